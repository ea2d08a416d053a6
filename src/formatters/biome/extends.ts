/**
 * Biome `extends` entries that are files inside the project root, read as data and merged the way
 * Biome 2.4.15's CLI merges them (checked against it, test/agreement/biome-extends.test.ts):
 * - entries in order, each later one over the earlier ones, the extending file over all of them;
 * - objects merge key by key, `overrides` lists are concatenated (the extended file's first), any
 *   other value (including lists such as `files.includes`) is replaced;
 * - an entry is resolved against the directory of the file that extends; a `.json` file is read as
 *   strict JSON (comments and trailing commas are errors in Biome too), any other name as JSONC;
 * - `extends` inside an extended file is not followed (Biome ignores it), so there are no chains
 *   and no cycles; a file that extends itself merges over itself (no change), as in Biome;
 * - globs in an extended file are relative to the extending config's directory (as in Biome).
 * Refused (formatbox does not format rather than format without them): a package name, an absolute
 * path, a path that leaves the project root, a file that is missing or was not read. Biome itself
 * stops on a missing file ("No such file or directory") and on an unresolvable package.
 */
import type { ConfigError } from '../../config/config-error.js';
import { isRecord, parseData } from '../../config/data.js';
import { dirOf, normalisePath } from '../../config/paths.js';

/** Whether Biome reads an `extends` entry as a path (else it resolves a package). */
function isBiomeExtendsPath(entry: string): boolean {
  return entry.startsWith('.') || entry.startsWith('/') || /\.jsonc?$/.test(entry);
}

/**
 * The project-relative path an `extends` entry of `configFile` names, or the reason it is not
 * followed (a package, an absolute path, a path out of the root).
 */
function resolveBiomeExtends(configFile: string, entry: string): { path: string } | { reason: string } {
  if (!isBiomeExtendsPath(entry)) return { reason: 'a package name; packages are never resolved in untrusted mode' };
  if (entry.startsWith('/') || /^[A-Za-z]:[\\/]/.test(entry) || entry.includes('\\') || entry.includes('\0')) return { reason: 'an absolute path; only paths inside the project root are followed' };
  const segments: string[] = dirOf(configFile) === '' ? [] : dirOf(configFile).split('/');
  for (const segment of entry.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) return { reason: 'a path outside the project root' };
      segments.pop();
    } else segments.push(segment);
  }
  if (segments.length === 0) return { reason: 'not a file' };
  return { path: normalisePath(segments.join('/')) };
}

/** The root-relative files the `extends` of a Biome config names (for discovery to read). */
export function biomeExtendsTargets(configFile: string, text: string): string[] {
  const parsed = parseData(text, 'jsonc');
  if (!parsed.ok || !isRecord(parsed.value)) return [];
  const list = Array.isArray(parsed.value.extends) ? parsed.value.extends : [parsed.value.extends];
  const out: string[] = [];
  for (const entry of list) {
    if (typeof entry !== 'string' || entry === '//') continue;
    const resolved = resolveBiomeExtends(configFile, entry);
    if ('path' in resolved) out.push(resolved.path);
  }
  return out;
}

interface ExtendedConfig {
  file: string;
  text: string;
  configuration: Record<string, unknown>;
}

/**
 * Reads the files `entries` names (from `files`, the project's config files as read). Returns them
 * in order, or the error that stops formatting with this config.
 */
export function readBiomeExtends(configFile: string, extendsValue: unknown, files: Readonly<Record<string, string | null>>): { extended: ExtendedConfig[] } | { error: ConfigError } {
  const extended: ExtendedConfig[] = [];
  // As Biome 2.4.15: `"//"` is valid only as the whole value; anything else must be a list of paths.
  if (extendsValue === undefined || extendsValue === '//') return { extended };
  // Anything else that is not a list, Biome's own loader rejects (the adapter runs it), with its message and position.
  if (!Array.isArray(extendsValue)) return { extended };
  for (const entry of extendsValue as unknown[]) {
    if (entry === '//') return { error: { file: configFile, message: 'Failed to resolve the configuration from // ("//" is valid only as the whole extends value, as Biome reads it)' } };
    if (typeof entry !== 'string') return { error: { file: configFile, message: `extends: ${JSON.stringify(entry)} is not a string` } };
    const resolved = resolveBiomeExtends(configFile, entry);
    if ('reason' in resolved) return { error: refusal(configFile, entry, resolved.reason) };
    if (!(resolved.path in files)) return { error: refusal(configFile, entry, `${resolved.path} does not exist in the project (Biome stops: No such file or directory)`) };
    const text = files[resolved.path];
    if (typeof text !== 'string') return { error: refusal(configFile, entry, `${resolved.path} was not read (too large, not a regular file, or a symlink out of the root)`) };
    // Biome reads an extended `.json` file as strict JSON (a comment or trailing comma stops it), any other as JSONC.
    const parsed = parseData(text, 'jsonc');
    if (!parsed.ok) return { error: { file: resolved.path, message: `${parsed.reason} (extended by ${configFile})` } };
    const strictError = resolved.path.endsWith('.json') ? strictJsonError(text) : undefined;
    if (strictError) return { error: { file: resolved.path, message: `not valid JSON (Biome reads an extended .json file as strict JSON): ${strictError} (extended by ${configFile})` } };
    if (!isRecord(parsed.value)) return { error: { file: resolved.path, message: `not a JSON object (extended by ${configFile})` } };
    extended.push({ file: resolved.path, text, configuration: parsed.value });
  }
  return { extended };
}

/** Comments and trailing commas, which the JSONC reading accepts. Runs after parseData's caps held (depth, size). */
function strictJsonError(text: string): string | undefined {
  try {
    JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function refusal(configFile: string, entry: string, reason: string): ConfigError {
  return { file: configFile, message: `extends ${JSON.stringify(entry.length > 80 ? `${entry.slice(0, 80)}…` : entry)} is not followed: ${reason}` };
}

/** Biome's merge of one configuration over another (see the module comment). */
export function mergeBiomeConfiguration(base: Record<string, unknown>, over: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prior = out[key];
    if (depth === 0 && key === 'overrides' && Array.isArray(prior) && Array.isArray(value)) out[key] = [...prior, ...value];
    else out[key] = isRecord(prior) && isRecord(value) && depth < 64 ? mergeBiomeConfiguration(prior, value, depth + 1) : value;
  }
  return out;
}
