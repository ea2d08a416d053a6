/**
 * The npm registry the USER's npm is configured for, as `npm config get registry` reads it, but never
 * from the repository: the environment (`npm_config_registry`), the user's npmrc (`npm_config_userconfig`
 * or ~/.npmrc), the global npmrc, else registry.npmjs.org. A `@scope:registry=` line applies to that
 * scope, as in npm. A project's .npmrc is never read; and when formatbox runs under npm (`npx`, an npm
 * script), npm has already copied the project's .npmrc into `npm_config_*`, so the environment is not
 * believed then and only the user's and the global files count.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

const DEFAULT_REGISTRY = 'https://registry.npmjs.org/';

export interface RegistryChoice {
  /** Always ends with `/`. */
  url: string;
  /** Where it was read: `environment`, `~/.npmrc`, `global npmrc`, `npm's default`. */
  source: string;
  /** Values npm would expand into it from `${VAR}` (tokens, typically): never shown (redactSecrets). */
  secrets: string[];
}

export function userRegistryFor(packageName: string, env: NodeJS.ProcessEnv = process.env): RegistryChoice {
  const scope = packageName.startsWith('@') ? packageName.slice(0, packageName.indexOf('/')) : undefined;
  const keys = [...(scope ? [`${scope}:registry`] : []), 'registry'];
  const underNpm = env.npm_command !== undefined || env.npm_lifecycle_event !== undefined || env.npm_execpath !== undefined;
  if (!underNpm) {
    for (const key of keys) {
      const value = envValue(env, `npm_config_${key}`);
      if (value) return { url: withSlash(value), source: 'environment', secrets: [] };
    }
  }
  const userFile = (!underNpm && envValue(env, 'npm_config_userconfig')) || join(env.HOME ?? homedir(), '.npmrc');
  const globalFile = (!underNpm && envValue(env, 'npm_config_globalconfig')) || join(dirname(dirname(process.execPath)), 'etc', 'npmrc');
  for (const [file, source] of [[userFile, userFile === join(env.HOME ?? homedir(), '.npmrc') ? '~/.npmrc' : userFile], [globalFile, 'global npmrc']] as const) {
    const values = readNpmrc(file, env);
    for (const key of keys) {
      const value = values.get(key);
      if (value) return { url: withSlash(value.text), source, secrets: value.expanded };
    }
  }
  return { url: DEFAULT_REGISTRY, source: "npm's default", secrets: [] };
}

function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(env)) if (key.toLowerCase() === lower && value) return value;
  return undefined;
}

/** `key=value` lines of an npmrc (ini), `${VAR}` expanded as npm expands it; comments and sections ignored. */
function readNpmrc(file: string, env: NodeJS.ProcessEnv): Map<string, { text: string; expanded: string[] }> {
  const values = new Map<string, { text: string; expanded: string[] }>();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return values;
  }
  for (const raw of text.slice(0, 1024 * 1024).split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';') || line.startsWith('[')) continue;
    const equals = line.indexOf('=');
    if (equals <= 0) continue;
    const key = line.slice(0, equals).trim();
    const expanded: string[] = [];
    const value = line.slice(equals + 1).trim().replace(/^"(.*)"$/, '$1').replace(/\$\{([^}]+)\}/g, (_, name: string) => {
      const text = env[name] ?? '';
      if (text !== '') expanded.push(text);
      return text;
    });
    values.set(key, { text: value, expanded });
  }
  return values;
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}
