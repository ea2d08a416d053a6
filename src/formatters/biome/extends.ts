/**
 * Biome `extends` entries read as data and merged the way Biome 2.4.15's CLI merges them (checked
 * against it, test/agreement/biome-extends.test.ts and biome-package-extends.test.ts):
 * - entries in order, each later one over the earlier ones, the extending file over all of them;
 * - objects merge key by key, `overrides` lists are concatenated (the extended file's first), any
 *   other value (including lists such as `files.includes`) is replaced;
 * - a relative entry (`./`, `../`) is resolved against the directory of the file that extends; any
 *   other (`biome.base.json`, `ultracite/biome/core`, `@company/biome-config`) goes through Biome's
 *   package resolution from the root config's directory (resolve.ts), which tries it as a file
 *   there first; a `.json` file is read as strict JSON (comments and trailing commas are errors in
 *   Biome too), any other name as JSONC;
 * - `extends` inside an extended file is not followed (Biome ignores it), so there are no chains
 *   and no cycles; a file that extends itself merges over itself (no change), as in Biome;
 * - globs in an extended file are relative to the extending config's directory (as in Biome).
 * Refused (formatbox does not format rather than format without them): an absolute path, a path
 * that leaves the project root, a file that is missing or was not read, a package resolution that
 * resolve.ts does not follow, a package name in a nested config (`root: false`: Biome resolves it
 * from another base there, not verified). Biome itself stops on a missing file ("No such file or
 * directory") and on an unresolvable package.
 */
import type { ConfigError } from '../../config/config-error.js';
import { isRecord, parseData } from '../../config/data.js';
import { dirOf, normalisePath } from '../../config/paths.js';
import type { FileLookup } from '../../config/package-resolve.js';
import { isBiomeRelativeSpecifier, resolveBiomePackageExtends } from './resolve.js';

/**
 * Whether formatbox reads an `extends` entry as a path against the extending file's directory: a
 * relative or absolute one, and in a nested config a bare `.json`/`.jsonc` name (as before package
 * resolution; a root config resolves those through resolve.ts, whose first step is the same file).
 */
function isBiomeExtendsPath(entry: string, isRoot: boolean): boolean {
  return isBiomeRelativeSpecifier(entry) || entry.startsWith('/') || (!isRoot && /\.jsonc?$/.test(entry));
}

/** A root config as far as its own text says (`root: false` is nested; a list `extends` is never `"//"`). */
function isRootConfig(configuration: Record<string, unknown>): boolean {
  return configuration.root !== false;
}

/**
 * The project-relative path an `extends` entry of `configFile` names, or the reason it is not
 * followed (a package, an absolute path, a path out of the root).
 */
function resolveBiomeExtends(configFile: string, entry: string, isRoot: boolean, lookup: FileLookup): { path: string; viaPackage?: boolean } | { reason: string } {
  if (!isBiomeExtendsPath(entry, isRoot)) {
    if (!isRoot) return { reason: 'a package name in a nested config (root: false); formatbox follows package names only in the root config, where its resolution was checked against Biome' };
    const resolved = resolveBiomePackageExtends(entry, dirOf(configFile), lookup);
    return 'error' in resolved ? { reason: resolved.error } : { path: resolved.file, viaPackage: resolved.viaPackage };
  }
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

/**
 * The root-relative files the `extends` of a Biome config names (for discovery to read, and for the
 * config watch). Package resolution asks `lookup` for every file it looks at (discovery reads them);
 * the files it looked at are not returned here, only the targets it reached.
 */
export function biomeExtendsTargets(configFile: string, text: string, lookup: FileLookup = () => undefined): string[] {
  const parsed = parseData(text, 'jsonc');
  if (!parsed.ok || !isRecord(parsed.value)) return [];
  const list = Array.isArray(parsed.value.extends) ? parsed.value.extends : [parsed.value.extends];
  const isRoot = isRootConfig(parsed.value);
  const out: string[] = [];
  for (const entry of list) {
    if (typeof entry !== 'string' || entry === '//') continue;
    const resolved = resolveBiomeExtends(configFile, entry, isRoot, lookup);
    if ('path' in resolved) out.push(resolved.path);
  }
  return out;
}

interface ExtendedConfig {
  file: string;
  text: string;
  configuration: Record<string, unknown>;
  /** The `extends` entry, when it was found by package resolution. */
  package?: string;
}

/**
 * Reads the files `entries` names (from `files`, the project's config files as read). Returns them
 * in order, or the error that stops formatting with this config.
 */
export function readBiomeExtends(configFile: string, extendsValue: unknown, files: Readonly<Record<string, string | null>>, isRoot = true): { extended: ExtendedConfig[] } | { error: ConfigError } {
  const lookup: FileLookup = (path) => (Object.hasOwn(files, path) ? files[path] : undefined);
  const extended: ExtendedConfig[] = [];
  // As Biome 2.4.15: `"//"` is valid only as the whole value; anything else must be a list of paths.
  if (extendsValue === undefined || extendsValue === '//') return { extended };
  // Anything else that is not a list, Biome's own loader rejects (the adapter runs it), with its message and position.
  if (!Array.isArray(extendsValue)) return { extended };
  for (const entry of extendsValue as unknown[]) {
    if (entry === '//') return { error: { file: configFile, message: 'Failed to resolve the configuration from // ("//" is valid only as the whole extends value, as Biome reads it)' } };
    if (typeof entry !== 'string') return { error: { file: configFile, message: `extends: ${JSON.stringify(entry)} is not a string` } };
    const resolved = resolveBiomeExtends(configFile, entry, isRoot, lookup);
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
    extended.push({ file: resolved.path, text, configuration: parsed.value, ...(resolved.viaPackage ? { package: entry } : {}) });
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
