/**
 * Prettier config read as data: `.prettierrc` (JSON or YAML), `.prettierrc.{json,yaml,yml,json5,toml}`,
 * `package.json`/`package.yaml` "prettier" objects. A string config (a shared config by package name,
 * or a path) is resolved as Node's `require` resolves it (config/require-resolve.ts, as Prettier
 * loads it) and read when it is a `.json` file, as Node's JSON loader reads it. JS/TS config files,
 * and string configs that resolve to anything else, are code and are refused in untrusted mode;
 * `plugins` are stripped everywhere; plugin-only parsers are dropped.
 * Search order per directory is Prettier's own (config-searcher.js); the nearest directory wins.
 */
import type { IgnoredItem } from '../../core/types.js';
import type { Trust } from '../../config/project.js';
import { allowlistedPlugin, listedPlugins, PRETTIER_PLUGIN_ALLOWLIST } from './plugin-allowlist.js';
import { compileGlob, type GlobBudget } from '../../config/glob.js';
import { isRecord, parseData, truncate, type DataFormat } from '../../config/data.js';
import { baseOf, dirOf, isUnder, relativeTo } from '../../config/paths.js';
import { NOT_READ_REASON, locateKey, positionAt, type ConfigError, type SettingOrigin } from '../../config/config-error.js';
import { resolveRequire } from '../../config/require-resolve.js';
import type { FileLookup } from '../../config/package-resolve.js';

export type { Trust } from '../../config/project.js';
export { PRETTIER_PLUGIN_ALLOWLIST };

/** Prettier's CONFIG_FILES order (prettier 3, config-searcher.js). */
export const PRETTIER_CONFIG_NAMES = [
  'package.json',
  'package.yaml',
  '.prettierrc',
  '.prettierrc.json',
  '.prettierrc.yml',
  '.prettierrc.yaml',
  '.prettierrc.json5',
  '.prettierrc.js',
  'prettier.config.js',
  '.prettierrc.ts',
  'prettier.config.ts',
  '.prettierrc.mjs',
  'prettier.config.mjs',
  '.prettierrc.mts',
  'prettier.config.mts',
  '.prettierrc.cjs',
  'prettier.config.cjs',
  '.prettierrc.cts',
  'prettier.config.cts',
  '.prettierrc.toml',
] as const;

/** Every name Prettier would import as code. */
export const PRETTIER_CODE_CONFIG_NAMES: readonly string[] = PRETTIER_CONFIG_NAMES.filter((name) => /\.[cm]?[jt]s$/.test(name));

/** Options of Prettier's core and its bundled languages. Anything else needs a plugin. */
export const PRETTIER_OPTIONS = new Set([
  'printWidth', 'tabWidth', 'useTabs', 'semi', 'singleQuote', 'jsxSingleQuote', 'quoteProps', 'trailingComma',
  'bracketSpacing', 'objectWrap', 'bracketSameLine', 'jsxBracketSameLine', 'arrowParens', 'parser', 'requirePragma',
  'insertPragma', 'checkIgnorePragma', 'proseWrap', 'htmlWhitespaceSensitivity', 'vueIndentScriptAndStyle', 'endOfLine',
  'embeddedLanguageFormatting', 'singleAttributePerLine', 'experimentalTernaries', 'experimentalOperatorPosition',
]);


/** Parsers that ship with Prettier 3 (prettier/plugins/*). Any other parser name comes from a plugin. */
export const PRETTIER_BUILTIN_PARSERS = new Set([
  'flow', 'babel', 'babel-flow', 'babel-ts', 'typescript', 'acorn', 'espree', 'meriyah', 'css', 'less', 'scss',
  'json', 'json5', 'jsonc', 'json-stringify', 'graphql', 'markdown', 'mdx', 'vue', 'yaml', 'glimmer', 'html',
  'angular', 'lwc', 'mjml',
]);

const TRUSTED_REASON = 'loaded by Prettier itself (trusted mode)';
const CODE_CONFIG_IGNORED = 'JS/TS config files are code and are never loaded in untrusted mode; the files it configures are refused';
const MODULE_CONFIG_IGNORED = 'a string config names a module to load; never loaded in untrusted mode, the files it configures are refused';

/**
 * A Prettier config that is code (or names a module) in untrusted mode: formatbox will not run it,
 * and formatting with defaults would not write what the project's Prettier writes, so it refuses.
 */
/**
 * A plugin can change the bytes of any file it sees (Tailwind's class order, import sorting), and
 * untrusted mode runs no plugin from the repository: formatting without it would not give the
 * project's bytes, so the files the config governs are refused.
 */
function pluginRefusal(file: string, specifiers: readonly string[], where?: string): ConfigError {
  // A package name or path is shown as written; anything else is quoted, so the message cuts it short.
  const names = specifiers.map((s) => (/^[@\w./][\w./@:+-]{0,63}$/.test(s) ? s : JSON.stringify(truncate(s)))).join(', ');
  return codeConfigRefusal(file, `${where ? `${where} of this config` : 'this config'} loads the Prettier plugin${specifiers.length > 1 ? 's' : ''} ${names}, which formatbox does not run`);
}

function codeConfigRefusal(file: string, what: string): ConfigError {
  return {
    file,
    message: `${what}; untrusted mode never runs repository code, so formatbox cannot format as this project's Prettier would (trust the workspace to run it)`,
    refusal: true,
    projectCode: true,
  };
}

interface PrettierOverride {
  /** Patterns without a `/`: Prettier matches them (and every excludeFiles pattern) against the basename. */
  basenameFiles: Array<(path: string) => boolean>;
  /** Patterns with a `/`: matched (with excludeFiles) against the path relative to the config file. */
  pathFiles: Array<(path: string) => boolean>;
  excludeFiles: Array<(path: string) => boolean>;
  options: Record<string, unknown>;
  /** Where each of `options` is written (for a rejected value's position). */
  origins: Record<string, SettingOrigin>;
  /** The override loads a plugin formatbox does not run: files it matches are refused. */
  refusal?: ConfigError;
}

export interface PrettierConfigFile {
  dir: string;
  file: string;
  /** Sanitised options (no overrides). Empty when the file could not be used. */
  options: Record<string, unknown>;
  overrides: PrettierOverride[];
  /** Items of this file that were ignored (also in the project-wide list). */
  ignored: IgnoredItem[];
  /** The file exists but is code (or points at a module): declared, never loaded in untrusted mode. */
  code: boolean;
  /** A string config read as data: the specifier and the `.json` file it resolved to. */
  shared?: { specifier: string; file: string };
  /** Where each of `options` is written. */
  origins: Record<string, SettingOrigin>;
  /** Prettier would reject this file: formatbox refuses to format with it. */
  error?: ConfigError;
  /**
   * A package.json/package.yaml Prettier cannot parse: Prettier skips it silently and searches on;
   * formatbox refuses instead (it is never the config used, only a reason to refuse).
   */
  skippedByPrettier?: boolean;
}

/**
 * Reads every Prettier config among `files`, keeping per directory only the one Prettier would use.
 * Unusable files are reported in `ignored`.
 */
export function loadPrettierConfigs(files: Record<string, string | null>, trust: Trust, ignored: IgnoredItem[], budget?: GlobBudget, all: Record<string, string | null> = files): PrettierConfigFile[] {
  const lookup: FileLookup = (path) => (Object.hasOwn(all, path) ? all[path] : undefined);
  const byDir = new Map<string, string[]>();
  for (const path of Object.keys(files)) {
    if ((PRETTIER_CONFIG_NAMES as readonly string[]).includes(baseOf(path))) {
      const dir = dirOf(path);
      byDir.set(dir, [...(byDir.get(dir) ?? []), path]);
    }
  }
  const result: PrettierConfigFile[] = [];
  for (const [dir, paths] of byDir) {
    const ordered = [...paths].sort((a, b) => rank(a) - rank(b));
    for (const file of ordered) {
      const entry = readOne(file, dir, files[file] ?? null, trust, budget, lookup);
      if (!entry) continue; // package.json without "prettier": Prettier keeps looking in the same directory.
      if (entry.skippedByPrettier) {
        // Prettier skips it and keeps looking in the same directory: so does the search, but the file is remembered.
        result.push(entry);
        continue;
      }
      // In trusted mode Prettier itself loads code configs and plugins: nothing of that is ignored.
      if (trust === 'trusted') entry.ignored = entry.ignored.filter((item) => item.reason !== TRUSTED_REASON);
      ignored.push(...entry.ignored);
      result.push(entry);
      break;
    }
  }
  return result;
}

function rank(path: string): number {
  return (PRETTIER_CONFIG_NAMES as readonly string[]).indexOf(baseOf(path));
}

function readOne(file: string, dir: string, text: string | null, trust: Trust, budget: GlobBudget | undefined, lookup: FileLookup): PrettierConfigFile | undefined {
  const base = baseOf(file);
  const entry: PrettierConfigFile = { dir, file, options: {}, overrides: [], ignored: [], code: false, origins: {} };
  if (PRETTIER_CODE_CONFIG_NAMES.includes(base)) {
    entry.code = true;
    entry.ignored.push({ file, item: base, reason: trust === 'trusted' ? TRUSTED_REASON : CODE_CONFIG_IGNORED });
    if (trust === 'untrusted') entry.error = codeConfigRefusal(file, 'this config is code');
    return entry;
  }
  const isPackage = base === 'package.json' || base === 'package.yaml';
  if (text === null) {
    if (isPackage) return undefined;
    entry.error = { file, message: NOT_READ_REASON };
    return entry;
  }
  const parsed = parsePrettierConfig(text, formatOf(base));
  if (!parsed.ok) {
    const error: ConfigError = { file, message: parsed.reason, ...(parsed.line !== undefined ? { line: parsed.line } : {}), ...(parsed.column !== undefined ? { column: parsed.column } : {}) };
    if (isPackage) return { ...entry, error: { ...error, message: `${error.message} (Prettier skips an unparsable ${base} silently; formatbox refuses)` }, skippedByPrettier: true };
    entry.error = error;
    return entry;
  }
  let config: unknown = parsed.value;
  if (isPackage) {
    if (!isRecord(config) || !config.prettier) return undefined;
    config = config.prettier;
  }
  /** Where the options are written: the config file, or the shared config a string names. */
  let source = { file, text };
  if (typeof config === 'string') {
    const specifier = config;
    const item = isPackage ? `"prettier": ${JSON.stringify(truncate(config))}` : truncate(config);
    if (trust === 'trusted') {
      entry.code = true;
      entry.ignored.push({ file, item, reason: TRUSTED_REASON });
      return entry;
    }
    const shared = readSharedConfig(config, file, lookup);
    const named = isPackage ? item : JSON.stringify(truncate(specifier));
    if ('code' in shared) {
      entry.code = true;
      entry.ignored.push({ file, item, reason: MODULE_CONFIG_IGNORED });
      entry.error = codeConfigRefusal(file, `${named} ${shared.code}`);
      return entry;
    }
    if ('refused' in shared) {
      entry.ignored.push({ file, item, reason: `not followed: ${shared.refused}` });
      // Not installed (a fresh clone): the project's own Prettier, with the toolchain its lockfile names, can resolve it in the OS sandbox.
      entry.error = { file, message: `${named} names a shared config formatbox does not read: ${shared.refused}`, refusal: true, ...(shared.notInstalled ? { projectCode: true } : {}) };
      return entry;
    }
    if ('error' in shared) {
      entry.error = shared.error;
      return entry;
    }
    config = shared.value;
    source = { file: shared.file, text: shared.text };
    entry.shared = { specifier, file: shared.file };
  }
  if (!isRecord(config)) {
    // An empty .prettierrc (or `false`) gives Prettier's defaults; anything else is Prettier's TypeError.
    if (config !== null && config !== undefined && config !== false && config !== 0 && config !== '') {
      entry.error = { file, message: `Config is only allowed to be an object, but received ${Array.isArray(config) ? 'object' : typeof config}` };
    }
    return entry;
  }
  const { overrides, ...options } = config;
  const plugins = listedPlugins(config);
  const notRun: string[] = [];
  entry.options = sanitiseOptions(options, source.file, '', entry.ignored, trust, plugins, notRun);
  if (notRun.length > 0) entry.error ??= pluginRefusal(source.file, notRun);
  entry.origins = originsOf(entry.options, source.file, source.text);
  if (overrides !== undefined && overrides !== null) {
    if (!Array.isArray(overrides)) entry.error = { file: source.file, ...locateKey(source.text, 'overrides'), message: 'overrides is not an array (Prettier fails on it)' };
    else {
      overrides.forEach((override: unknown, index) => {
        const where = `overrides[${index}]`;
        // Prettier reads `files` of every override and fails on anything but a string or strings.
        const files = isRecord(override) ? override.files : undefined;
        const filesOk = typeof files === 'string' || (Array.isArray(files) && files.length > 0 && files.every((f) => typeof f === 'string'));
        if (!isRecord(override) || !filesOk) {
          entry.error ??= { file: source.file, ...locateKey(source.text, 'overrides'), message: `${where}${isRecord(override) ? '.files' : ''} is not ${isRecord(override) ? 'a glob or a list of globs' : 'an object'} (Prettier fails on it)` };
          return;
        }
        const matchers = (value: unknown, what: string): Array<((path: string) => boolean) & { slash?: boolean }> | undefined => {
          const list = value === undefined ? [] : Array.isArray(value) ? value : [value];
          const out: Array<((path: string) => boolean) & { slash?: boolean }> = [];
          for (const [k, pattern] of list.entries()) {
            if (typeof pattern !== 'string') {
              entry.ignored.push({ file: source.file, item: `${where}.${what}[${k}]`, reason: 'not a string' });
              return undefined;
            }
            const m = prettierGlob(pattern, budget);
            if (!m.ok) {
              entry.ignored.push({ file: source.file, item: `${where}.${what}: ${truncate(pattern)}`, reason: m.reason });
              return undefined;
            }
            out.push(Object.assign(m.test, { slash: pattern.includes('/') }));
          }
          return out;
        };
        const filesMatchers = matchers(override.files, 'files');
        const excludeMatchers = matchers(override.excludeFiles, 'excludeFiles');
        if (!filesMatchers || !excludeMatchers) return;
        const overrideNotRun: string[] = [];
        const overrideOptions = isRecord(override.options) ? sanitiseOptions(override.options, source.file, `${where}.options.`, entry.ignored, trust, plugins, overrideNotRun) : {};
        entry.overrides.push({
          ...(overrideNotRun.length > 0 ? { refusal: pluginRefusal(source.file, overrideNotRun, where) } : {}),
          basenameFiles: filesMatchers.filter((m) => !m.slash),
          pathFiles: filesMatchers.filter((m) => m.slash),
          excludeFiles: excludeMatchers,
          options: overrideOptions,
          origins: originsOf(overrideOptions, source.file, source.text),
        });
      });
    }
  }
  return entry;
}

/**
 * The shared config a string config names, when `require` from the config file resolves it to a
 * `.json` file (config/require-resolve.ts): parsed as Node's JSON loader parses it (JSON.parse, BOM
 * stripped). `code`: it resolves to code; `refused`: it cannot be followed (not installed, a
 * resolution formatbox does not follow).
 */
function readSharedConfig(specifier: string, configFile: string, lookup: FileLookup): { file: string; text: string; value: unknown } | { code: string } | { refused: string; notInstalled?: true } | { error: ConfigError } {
  const resolved = resolveRequire(specifier, dirOf(configFile), lookup);
  if ('error' in resolved) return { refused: resolved.error, ...(resolved.notInstalled ? { notInstalled: true } : {}) };
  if (!resolved.file.endsWith('.json')) return { code: `names a module (code): require resolves it to ${resolved.file}, which Prettier would run` };
  const text = lookup(resolved.file);
  if (typeof text !== 'string') return { refused: `${resolved.file} was not read` };
  const parsed = parsePrettierConfig(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, 'strict-json');
  if (!parsed.ok) return { error: { file: resolved.file, message: `${parsed.reason} (the shared config ${JSON.stringify(truncate(specifier))} of ${configFile})`, ...(parsed.line !== undefined ? { line: parsed.line } : {}), ...(parsed.column !== undefined ? { column: parsed.column } : {}) } };
  if (parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
    // Prettier's check after loading a string config ("Config is only allowed to be an object").
    return { error: { file: configFile, message: `Config is only allowed to be an object, but received ${parsed.value === null || Array.isArray(parsed.value) ? 'object' : typeof parsed.value} (from ${resolved.file})` } };
  }
  // Prettier takes `.default` of what require returned when it says `__esModule` and Node can require ESM: it depends on the Node version.
  if ((parsed.value as Record<string, unknown>).__esModule) return { refused: `${resolved.file} sets "__esModule", and whether Prettier then reads its "default" depends on the Node version` };
  return { file: resolved.file, text, value: parsed.value };
}

/** The string a Prettier config file holds instead of options (a shared config to load), if it does. */
export function prettierStringConfig(file: string, text: string): string | undefined {
  const base = baseOf(file);
  if (!(PRETTIER_CONFIG_NAMES as readonly string[]).includes(base) || PRETTIER_CODE_CONFIG_NAMES.includes(base)) return undefined;
  const parsed = parsePrettierConfig(text, formatOf(base));
  if (!parsed.ok) return undefined;
  const value = base === 'package.json' || base === 'package.yaml' ? (isRecord(parsed.value) ? parsed.value.prettier : undefined) : parsed.value;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A glob from `overrides`, negation (`!x`) handled as micromatch does for a single pattern. */
function prettierGlob(pattern: string, budget?: GlobBudget): { ok: true; test: (path: string) => boolean } | { ok: false; reason: string } {
  const negated = pattern.startsWith('!') && !pattern.startsWith('!(');
  const compiled = compileGlob(negated ? pattern.slice(1) : pattern, budget);
  if (!compiled.ok) return compiled;
  const test = (path: string): boolean => path === pattern || compiled.test(path);
  return { ok: true, test: negated ? (path) => !test(path) : test };
}

/** Prettier's loaders: package.json and `.json` with JSON.parse (no comments), `.prettierrc` as YAML. */
function formatOf(base: string): DataFormat | 'strict-json' {
  if (base === 'package.json') return 'strict-json';
  if (base === 'package.yaml') return 'yaml';
  if (base.endsWith('.json5')) return 'json5';
  if (base.endsWith('.json')) return 'strict-json';
  if (base.endsWith('.toml')) return 'toml';
  return 'yaml';
}

function parsePrettierConfig(text: string, format: DataFormat | 'strict-json'): ReturnType<typeof parseData> {
  if (format !== 'strict-json') return parseData(text, format);
  try {
    JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const at = /position (\d+)/.exec(message);
    const position = at ? positionAt(text, Number(at[1])) : {};
    return { ok: false, reason: `not valid JSON: ${message.split('\n')[0]}`, ...position };
  }
  return parseData(text, 'json');
}

function originsOf(options: Record<string, unknown>, file: string, text: string): Record<string, SettingOrigin> {
  const out: Record<string, SettingOrigin> = {};
  for (const key of Object.keys(options)) out[key] = { file, ...locateKey(text, key) };
  return out;
}

/**
 * Keeps Prettier's own options; strips `plugins`, plugin-only parsers and anything unknown. A plugin
 * on the allowlist becomes its id in `plugins` (formatbox's own copy runs), and its options and
 * parsers are kept.
 */
function sanitiseOptions(options: Record<string, unknown>, file: string, prefix: string, ignored: IgnoredItem[], trust: Trust, listed: readonly string[] = [], notRun: string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const pluginOptions = new Set(listed.flatMap((id) => PRETTIER_PLUGIN_ALLOWLIST[id]!.options));
  const pluginParsers = new Set(listed.flatMap((id) => PRETTIER_PLUGIN_ALLOWLIST[id]!.parsers));
  for (const [key, value] of Object.entries(options)) {
    if (key === '$schema') continue;
    if (key === 'plugins' || key === 'pluginSearchDirs') {
      const entries = Array.isArray(value) ? value : [value];
      entries.forEach((plugin, index) => {
        const id = key === 'plugins' ? allowlistedPlugin(plugin) : undefined;
        // Not on the allowlist: code formatbox never runs untrusted. (An allowlisted plugin without a
        // shipped copy only adds its own language, whose files are reported instead.)
        if (key === 'plugins' && !id && trust !== 'trusted') notRun.push(typeof plugin === 'string' ? plugin : JSON.stringify(plugin) ?? String(plugin));
        if (id && PRETTIER_PLUGIN_ALLOWLIST[id]!.shipped && trust !== 'trusted') {
          const ids = (out.plugins as string[] | undefined) ?? [];
          if (!ids.includes(id)) ids.push(id);
          out.plugins = ids;
        }
        ignored.push({
          file,
          item: `${prefix}${key}[${index}]: ${truncate(typeof plugin === 'string' ? plugin : JSON.stringify(plugin) ?? String(plugin))}`,
          reason: trust === 'trusted'
            ? TRUSTED_REASON
            : id
              ? PRETTIER_PLUGIN_ALLOWLIST[id]!.shipped
                ? "the repository's copy is never loaded; formatbox runs its own pinned copy of this plugin (named in the receipt)"
                : 'on the allowlist of well-known plugins, but formatbox ships no in-process copy of it'
              : 'plugins are code and are never loaded in untrusted mode',
        });
      });
      continue;
    }
    if (pluginOptions.has(key) && ['string', 'boolean', 'number'].includes(typeof value)) {
      out[key] = value;
      continue;
    }
    if (key === 'parser' && typeof value === 'string' && pluginParsers.has(value)) {
      out[key] = value;
      continue;
    }
    if (!PRETTIER_OPTIONS.has(key)) {
      ignored.push({ file, item: `${prefix}${key}`, reason: 'not a built-in Prettier option (plugin options need the plugin)' });
      continue;
    }
    // A parser that is neither Prettier's own nor a listed plugin's goes through too: Prettier's CLI
    // stops at it ("Couldn't resolve parser"), and so does the adapter.
    // Values of the wrong type or out of range go through as written: Prettier's own option
    // normalisation (in the adapter) rejects them with Prettier's message, as its CLI does.
    out[key] = value;
  }
  return out;
}

/** Options for `path` from its config (`{}` plus overrides when none), Prettier's mergeOverrides. */
export function prettierOptionsFor(config: PrettierConfigFile | undefined, path: string, origins: Record<string, SettingOrigin> = {}): Record<string, unknown> {
  if (!config) return {};
  const options = { ...config.options };
  Object.assign(origins, config.origins);
  const relative = relativeTo(config.dir, path);
  const base = baseOf(relative);
  for (const override of config.overrides) {
    if (overrideMatches(override, relative, base)) {
      Object.assign(options, override.options);
      Object.assign(origins, override.origins);
    }
  }
  return options;
}

function overrideMatches(override: PrettierOverride, relative: string, base: string): boolean {
  // micromatch.isMatch(path, withoutSlashes, { basename: true, ignore }) || isMatch(path, withSlashes, { ignore }).
  // With `basename: true` micromatch matches the ignore patterns against the basename too.
  const byBasename = override.basenameFiles.some((test) => test(base) || test(relative)) && !override.excludeFiles.some((test) => test(base));
  const byPath = override.pathFiles.some((test) => test(relative)) && !override.excludeFiles.some((test) => test(relative));
  return byBasename || byPath;
}

/** The nearest Prettier config for `path`, searching upward and stopping at the project root. */
export function nearestPrettierConfig(configs: readonly PrettierConfigFile[], path: string): PrettierConfigFile | undefined {
  let best: PrettierConfigFile | undefined;
  for (const config of configs) {
    if (config.skippedByPrettier) continue;
    if (isUnder(config.dir, path) && (!best || config.dir.length > best.dir.length)) best = config;
  }
  return best;
}

/**
 * Why formatbox refuses Prettier's config for `path`: the config itself is broken, or Prettier's
 * search passed an unparsable package.json on the way to it (Prettier would skip that file silently).
 */
export function prettierConfigError(configs: readonly PrettierConfigFile[], path: string): ConfigError | undefined {
  const config = nearestPrettierConfig(configs, path);
  if (config?.error) return config.error;
  if (config) {
    const relative = relativeTo(config.dir, path);
    const refused = config.overrides.find((override) => override.refusal && overrideMatches(override, relative, baseOf(relative)));
    if (refused) return refused.refusal;
  }
  const from = config ? config.dir.length : -1;
  let nearestBroken: PrettierConfigFile | undefined;
  for (const candidate of configs) {
    if (!candidate.skippedByPrettier || !isUnder(candidate.dir, path) || candidate.dir.length < from) continue;
    if (!nearestBroken || candidate.dir.length > nearestBroken.dir.length) nearestBroken = candidate;
  }
  return nearestBroken?.error;
}
