/**
 * `formatbox init opencode`: the plugin the package ships (dist/opencode-plugin.js), which hands the
 * model the formatted text after edit, write and apply_patch, and opencode's own formatters turned
 * off for the languages formatbox formats (opencode otherwise runs its own Prettier, Biome, gofmt
 * and ruff on the same files). In `opencode.json(c)` of the project, or `~/.config/opencode/`.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AgentInit } from '../module.js';
import { jsonChange } from '../shared/config-files.js';
import { readJson, type InitOptions } from '../shared/init-types.js';

/** opencode's built-in formatters that cover what formatbox formats. */
const OVERLAPPING_FORMATTERS = ['prettier', 'biome', 'oxfmt', 'gofmt', 'ruff', 'uv', 'clang-format', 'shfmt', 'rustfmt'];

function configFile(options: Pick<InitOptions, 'home' | 'root'>, scope: 'user' | 'project', env: NodeJS.ProcessEnv = process.env): string {
  const dir = scope === 'user' ? join(env.XDG_CONFIG_HOME || join(options.home, '.config'), 'opencode') : options.root;
  const jsonc = join(dir, 'opencode.jsonc');
  return existsSync(jsonc) ? jsonc : join(dir, 'opencode.json');
}

/** The plugin file next to this bundle (dist/opencode-plugin.js of the installed package). */
function pluginPath(): string {
  return fileURLToPath(new URL('./opencode-plugin.js', import.meta.url));
}

/**
 * The plugin entry: the installed package's directory as a file URL. opencode resolves a package
 * directory through its `./server` export (the plugin), which is how the end-to-end test loads it;
 * a bare file path would be taken for a package name.
 */
function pluginEntry(): string {
  return pathToFileURL(dirname(dirname(pluginPath()))).href;
}

const isOurPlugin = (entry: unknown) =>
  typeof entry === 'string' && (entry === 'formatbox' || entry === pluginEntry() || entry.includes('formatbox/opencode') || entry.endsWith('opencode-plugin.js'));

export const opencodeInit: AgentInit = {
  changes(options) {
    return [jsonChange(configFile(options, options.scope), (doc) => {
      if (doc.get(['$schema']) === undefined) doc.set(['$schema'], 'https://opencode.ai/config.json');
      doc.ensureInArray(['plugin'], pluginEntry(), isOurPlugin);
      for (const name of OVERLAPPING_FORMATTERS) {
        if (doc.get(['formatter']) === false) break; // every opencode formatter is off already
        doc.ensure(['formatter', name, 'disabled'], true, `formatter.${name}.disabled`);
      }
    })];
  },
  notes: () => [
    'opencode takes its project from the directory it starts in ($PWD)',
    ...(existsSync(pluginPath()) ? [] : [`the plugin file ${pluginPath()} is missing from this install (npm run build makes it)`]),
  ],
};

/** Where opencode is set up to use formatbox (`formatbox doctor`). */
export function detectOpencode(options: Omit<InitOptions, 'scope'>): string[] {
  const found: string[] = [];
  for (const scope of ['user', 'project'] as const) {
    const path = configFile(options, scope);
    const doc = readJson(path);
    if (!doc) continue;
    if (Array.isArray(doc.plugin) && doc.plugin.some(isOurPlugin)) {
      const formatter = doc.formatter as Record<string, { disabled?: boolean }> | false | undefined;
      const on = formatter === false ? [] : OVERLAPPING_FORMATTERS.filter((n) => formatter?.[n]?.disabled !== true);
      found.push(`${path}: the formatbox plugin${on.length ? ` (opencode's own ${on.join(', ')} still on)` : ', opencode\'s overlapping formatters off'}`);
    }
    if ((doc.mcp as Record<string, unknown> | undefined)?.formatbox) found.push(`${path}: the MCP server`);
  }
  return found;
}
