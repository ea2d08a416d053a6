/**
 * biome.json / biome.jsonc (and `.biome.json[c]`) read as JSONC data and sanitised: `extends`
 * files inside the root, and shared configs resolved from the project's node_modules as data, are
 * merged (extends.ts, resolve.ts), `"//"` merges the root config, anything else in `extends`
 * refuses the config; `plugins` are stripped, `files.maxSize` is clamped to Biome's default. `files.includes`/`formatter.includes` (and Biome 1's
 * `ignore`/`include`) are evaluated here, since the wasm `formatFile` does not honour them.
 */
import type { ConfigSource, IgnoredItem } from '../../core/types.js';
import { NOT_READ_REASON, type ConfigError } from '../../config/config-error.js';
import { isRecord, parseData, truncate } from '../../config/data.js';
import { compileGlob } from '../../config/glob.js';
import { CONFIG_BUDGET } from '../../config/budget.js';
import { baseOf, dirOf, isUnder, relativeTo } from '../../config/paths.js';
import { mergeBiomeConfiguration, readBiomeExtends } from './extends.js';
import { parseBiomeEditorconfig } from './editorconfig.js';
import type { EditorconfigFile } from '../../config/editorconfig.js';

export const BIOME_CONFIG_NAMES = ['biome.json', 'biome.jsonc', '.biome.json', '.biome.jsonc'];
/** Biome's default `files.maxSize` (1 MiB). A project may lower it, never raise it. */
export const BIOME_MAX_SIZE = 1024 * 1024;

export interface BiomeConfigFile {
  dir: string;
  file: string;
  /** Sanitised configuration, as given to the wasm workspace's updateSettings. */
  configuration: Record<string, unknown>;
  /** `root: false` */
  nested: boolean;
  /** A root config as Biome judges it: `root: true`, or `root` not given and no `extends: "//"`. */
  isRoot: boolean;
  /** `extends: "//"`: merged over the root config. */
  extendsRoot: boolean;
  ignored: IgnoredItem[];
  /** The file as written, for Biome's own loader to check (the adapter does); null when it could not be read. */
  text: string | null;
  /** Beyond formatbox's parse limits (size, depth, values), or an `extends` not followed: refused without handing it to Biome. */
  error?: ConfigError;
  /** The files its `extends` names, as read (merged into `configuration`). */
  extended?: ConfigSource[];
}

/** `files`: the configs to load (one directory's, say); `all`: every config file of the project, where `extends` targets are looked up. */
export function loadBiomeConfigs(files: Record<string, string | null>, ignored: IgnoredItem[], all: Record<string, string | null> = files): BiomeConfigFile[] {
  const byDir = new Map<string, BiomeConfigFile>();
  const paths = Object.keys(files)
    .filter((path) => BIOME_CONFIG_NAMES.includes(baseOf(path)))
    .sort((a, b) => BIOME_CONFIG_NAMES.indexOf(baseOf(a)) - BIOME_CONFIG_NAMES.indexOf(baseOf(b)));
  for (const file of paths) {
    const dir = dirOf(file);
    if (byDir.has(dir)) {
      ignored.push({ file, item: baseOf(file), reason: `${byDir.get(dir)?.file} is used instead (Biome reads one config per directory)` });
      continue;
    }
    const text = files[file] ?? null;
    const entry: BiomeConfigFile = { dir, file, configuration: {}, nested: false, isRoot: true, extendsRoot: false, ignored: [], text };
    // A file formatbox cannot parse is still used: Biome's own loader (in the adapter) rejects it with its message.
    if (text !== null) {
      const parsed = parseData(text, 'jsonc');
      if (parsed.ok && isRecord(parsed.value)) {
        sanitise(parsed.value, entry);
        mergeExtended(parsed.value.extends, entry, all);
      }
      // A syntax error goes to Biome's loader for its own message; a limit (depth, size) never reaches the wasm.
      else if (!parsed.ok && !parsed.reason.startsWith('not valid')) entry.error = { file, message: parsed.reason };
    }
    ignored.push(...entry.ignored);
    byDir.set(dir, entry);
  }
  return [...byDir.values()];
}

function sanitise(config: Record<string, unknown>, entry: BiomeConfigFile): void {
  const { file } = entry;
  const out: Record<string, unknown> = { ...config };
  delete out.$schema;
  if (out.root === false) entry.nested = true;
  // `"//"` (the whole value) merges the root config; a list of files is merged by mergeExtended.
  if (out.extends === '//') entry.extendsRoot = true;
  entry.isRoot = out.root === undefined ? !entry.extendsRoot : out.root !== false;
  delete out.extends;
  if (out.plugins !== undefined) {
    const list = Array.isArray(out.plugins) ? out.plugins : [out.plugins];
    list.forEach((plugin, index) => entry.ignored.push({ file, item: `plugins[${index}]: ${truncate(JSON.stringify(plugin) ?? String(plugin))}`, reason: 'plugins are never loaded in untrusted mode' }));
    delete out.plugins;
  }
  if (isRecord(out.files)) {
    const filesSection = { ...out.files };
    const maxSize = filesSection.maxSize;
    if (maxSize !== undefined && !(typeof maxSize === 'number' && maxSize > 0 && maxSize <= BIOME_MAX_SIZE)) {
      entry.ignored.push({ file, item: `files.maxSize: ${truncate(String(maxSize))}`, reason: `clamped to ${BIOME_MAX_SIZE} (a project may lower it, not raise it)` });
      filesSection.maxSize = BIOME_MAX_SIZE;
    }
    out.files = filesSection;
  }
  if (isRecord(out.vcs) && typeof out.vcs.root === 'string' && !['', '.', './'].includes(out.vcs.root)) {
    entry.ignored.push({ file, item: `vcs.root: ${truncate(out.vcs.root)}`, reason: 'not followed; the .gitignore files below this biome.json are used' });
  }
  if (Array.isArray(out.overrides)) {
    out.overrides = out.overrides.map((override: unknown, index) => {
      if (!isRecord(override) || override.plugins === undefined) return override;
      const { plugins: _plugins, ...rest } = override;
      entry.ignored.push({ file, item: `overrides[${index}].plugins`, reason: 'plugins are never loaded in untrusted mode' });
      return rest;
    });
  }
  entry.configuration = out;
}

/**
 * Merges the files `extends` names under the config (extends.ts): each is sanitised like a
 * config file; `extends` inside it is not followed, as in Biome. Their texts join `sources`.
 */
function mergeExtended(extendsValue: unknown, entry: BiomeConfigFile, files: Record<string, string | null>): void {
  const read = readBiomeExtends(entry.file, extendsValue, files, entry.isRoot);
  if ('error' in read) {
    entry.error = read.error;
    return;
  }
  if (read.extended.length === 0) return;
  let merged: Record<string, unknown> = {};
  for (const extended of read.extended) {
    const part: BiomeConfigFile = { dir: entry.dir, file: extended.file, configuration: {}, nested: false, isRoot: true, extendsRoot: false, ignored: [], text: extended.text };
    const { extends: inner, root: _root, ...rest } = extended.configuration;
    if (inner !== undefined) part.ignored.push({ file: extended.file, item: `extends: ${truncate(JSON.stringify(inner) ?? String(inner))}`, reason: `not followed: Biome ignores extends inside an extended file (${entry.file} extends this one)` });
    sanitise(rest, part);
    entry.ignored.push(...part.ignored);
    merged = mergeBiomeConfiguration(merged, part.configuration);
  }
  entry.configuration = mergeBiomeConfiguration(merged, entry.configuration);
  entry.extended = read.extended.map((e) => ({ file: e.file, text: e.text, ...(e.package ? { package: e.package } : {}) }));
}

export interface BiomeConfigForPath {
  config: BiomeConfigFile;
  configuration: Record<string, unknown>;
  /** The files Biome loads for `path`: its root config and every nested one below it, as written. */
  sources: ConfigSource[];
  /** A file that could not be read: formatbox refuses rather than use Biome's defaults. */
  error?: ConfigError;
  /** `formatter.useEditorconfig` of the root config (Biome reads `.editorconfig` only when the root asks). */
  useEditorconfig: boolean;
  /** Items ignored (or clamped) in the configs the settings come from: the config, and the root config it extends. */
  ignored: IgnoredItem[];
}

/**
 * The config Biome 2.4.15's CLI (run in the root config's directory) uses for `path`:
 * - the root config is the topmost config above `path` that is a root; every other config below it
 *   is nested, and Biome loads all of them before formatting anything: one it rejects, or one that is
 *   a root too ("Found a nested root configuration"), stops the whole run;
 * - Biome keeps nested settings in a map ordered by path and takes the first directory that holds the
 *   file: the outermost nested config above `path` wins over deeper ones (checked against the CLI);
 * - a nested config with `extends: "//"` is the root configuration (with its `.editorconfig` merged in)
 *   with the nested one merged over it, lists concatenated as Biome's Merge does;
 * - `.editorconfig` (editorconfig.ts) only when the root config sets `formatter.useEditorconfig`,
 *   only the one in the root config's directory, and only for files the root settings (or a nested
 *   config extending them) cover. Its sections other than `[*]` are overrides placed before biome.json's;
 *   those that match `path` (relative to the directory of the settings that apply) are given here as
 *   overrides for every file, since the settings are resolved per path anyway.
 */
export function biomeConfigFor(configs: readonly BiomeConfigFile[], path: string, editorconfigs: readonly EditorconfigFile[] = []): BiomeConfigForPath | undefined {
  const applicable = configs.filter((c) => isUnder(c.dir, path)).sort((a, b) => a.dir.length - b.dir.length);
  if (applicable.length === 0) return undefined;
  const projectRoot = applicable.find((c) => c.isRoot) ?? applicable[0]!;
  const nestedAbove = applicable.filter((c) => c !== projectRoot && c.dir.length > projectRoot.dir.length && !scanSkips(projectRoot, c.dir));
  const config = nestedAbove[0] ?? projectRoot;
  // Biome's scan skips directories the root config's files.includes negates, and the configs in them.
  const used = configs.filter((c) => c === projectRoot || (isUnder(projectRoot.dir, c.file) && !scanSkips(projectRoot, c.dir))).sort((a, b) => a.dir.length - b.dir.length || (a.file < b.file ? -1 : 1));
  const unreadable = used.find((c) => c.text === null || c.error);
  const nestedRoot = used.find((c) => c !== projectRoot && c.isRoot && c.dir !== projectRoot.dir);
  // Files they extend go through Biome's loader too: it rejects an extended file it cannot read.
  const sources = used.flatMap((c) => [...(c.text === null ? [] : [{ file: c.file, text: c.text }]), ...(c.extended ?? [])]);
  const rootFormatter = projectRoot.configuration.formatter;
  const rootUsesEditorconfig = isRecord(rootFormatter) && rootFormatter.useEditorconfig === true;
  const useEditorconfig = rootUsesEditorconfig && (config === projectRoot || config.extendsRoot);
  let error: ConfigError | undefined = unreadable ? (unreadable.error ?? { file: unreadable.file, message: NOT_READ_REASON }) : undefined;
  if (!error && nestedRoot) error = { file: nestedRoot.file, message: `Found a nested root configuration, but there's already a root configuration (${projectRoot.file}); set "root": false in it` };
  let rootConfiguration = projectRoot.configuration;
  if (rootUsesEditorconfig) {
    // Biome reads the file before anything else: one it cannot parse stops the whole run.
    const file = editorconfigs.find((e) => e.dir === projectRoot.dir);
    const parsed = file?.text !== undefined ? parseBiomeEditorconfig(file.text, file.file) : undefined;
    if (parsed && !parsed.ok) error ??= parsed.error;
    else if (parsed?.ok && useEditorconfig) {
      const relative = relativeTo(config.dir, path);
      const overrides = parsed.config.overrides.filter((o) => o.test(relative)).map((o) => ({ includes: ['**'], formatter: o.formatter }));
      rootConfiguration = biomeMerge({ ...(parsed.config.formatter ? { formatter: parsed.config.formatter } : {}), ...(overrides.length > 0 ? { overrides } : {}) }, rootConfiguration);
    }
  }
  const configuration = config === projectRoot ? rootConfiguration : config.extendsRoot ? withoutRoot(biomeMerge(rootConfiguration, config.configuration)) : config.configuration;
  const ignored = config !== projectRoot && config.extendsRoot ? [...config.ignored, ...projectRoot.ignored] : [...config.ignored];
  return { config, configuration, sources, useEditorconfig, ignored, ...(error ? { error } : {}) };
}

/** Whether Biome's scan stays out of `dir`: a negated `files.includes` pattern of the root config matches it or a directory above it. */
function scanSkips(root: BiomeConfigFile, dir: string): boolean {
  const files = root.configuration.files;
  const includes = isRecord(files) && Array.isArray(files.includes) ? files.includes : [];
  const relative = relativeTo(root.dir, dir);
  if (relative === '') return false;
  const dirs = [...ancestors(`${relative}/x`)];
  return includes.some((pattern) => typeof pattern === 'string' && pattern.startsWith('!') && dirs.some(biomeGlob(pattern.replace(/^!!?/, ''), root.file, 'files.includes', [])));
}

/** Biome's `Merge`: objects merged key by key, lists concatenated, other values replaced. */
function biomeMerge(base: Record<string, unknown>, over: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prior = out[key];
    if (Array.isArray(prior) && Array.isArray(value)) out[key] = prior.length === 0 ? value : [...prior, ...value];
    else out[key] = isRecord(prior) && isRecord(value) && depth < 64 ? biomeMerge(prior, value, depth + 1) : value;
  }
  return out;
}

function withoutRoot(configuration: Record<string, unknown>): Record<string, unknown> {
  const { root: _root, ...rest } = configuration;
  return rest;
}

/**
 * Biome's `vcs` settings for `path`, from the root config (Biome reads `vcs` there only): whether
 * `.gitignore` files apply (`vcs.enabled` and `vcs.useIgnoreFile`), and the directory below which
 * they are read (the root config's).
 */
export function biomeVcsIgnore(configs: readonly BiomeConfigFile[], path: string): { dir: string; file: string } | undefined {
  const applicable = configs.filter((c) => isUnder(c.dir, path)).sort((a, b) => b.dir.length - a.dir.length);
  const root = applicable.find((c) => !c.nested) ?? applicable[0];
  if (!root) return undefined;
  const vcs = root.configuration.vcs;
  if (!isRecord(vcs) || vcs.enabled !== true || vcs.useIgnoreFile !== true) return undefined;
  if (vcs.clientKind !== undefined && vcs.clientKind !== 'git') return undefined;
  return { dir: root.dir, file: root.file };
}

/**
 * Whether Biome would leave `path` alone: `files.includes`, `formatter.includes`, Biome 1's
 * `files.ignore`/`include`, `formatter.enabled: false`, or `<language>.formatter.enabled: false`.
 * Returns the reason, or undefined when the file is formatted.
 */
export function biomeExcludes(config: BiomeConfigFile, configuration: Record<string, unknown>, path: string, language: string, ignored: IgnoredItem[]): string | undefined {
  const relative = relativeTo(config.dir, path);
  const files = isRecord(configuration.files) ? configuration.files : {};
  const formatter = isRecord(configuration.formatter) ? configuration.formatter : {};
  const section = biomeLanguageSection(language);
  const languageConfig = section && isRecord(configuration[section]) ? configuration[section] : undefined;
  // `<language>.formatter.enabled: true` wins over `formatter.enabled: false` in Biome's CLI.
  const languageEnabled = languageConfig !== undefined && isRecord(languageConfig.formatter) && languageConfig.formatter.enabled === true;
  if (formatter.enabled === false && !languageEnabled) return `formatter.enabled is false in ${config.file}`;
  if (languageConfig && isRecord(languageConfig.formatter) && languageConfig.formatter.enabled === false) {
    return `${section}.formatter.enabled is false in ${config.file}`;
  }
  for (const [where, section2] of [['files', files], ['formatter', formatter]] as const) {
    for (const key of ['includes', 'include'] as const) {
      const list = section2[key];
      if (Array.isArray(list) && !includesMatch(list, relative, config.file, `${where}.${key}`, ignored)) return `not in ${where}.${key} of ${config.file}`;
    }
    const ignoreList = section2.ignore;
    if (Array.isArray(ignoreList) && ignoreList.some((p) => typeof p === 'string' && biomeGlob(p, config.file, `${where}.ignore`, ignored)(relative))) {
      return `matched by ${where}.ignore of ${config.file}`;
    }
  }
  return undefined;
}

function biomeLanguageSection(language: string): string | undefined {
  if (language === 'javascript' || language === 'typescript') return 'javascript';
  if (language === 'json' || language === 'jsonc') return 'json';
  if (language === 'css' || language === 'graphql') return language;
  return undefined;
}

/** Biome 2 `includes`: patterns in order, `!`/`!!` exclude, the last match wins; a negated folder excludes its contents. */
function includesMatch(list: unknown[], relative: string, file: string, where: string, ignored: IgnoredItem[]): boolean {
  const patterns = list.filter((p): p is string => typeof p === 'string');
  let included = patterns.length > 0 && patterns[0]?.startsWith('!') === true;
  for (const pattern of patterns) {
    const negated = pattern.startsWith('!');
    const body = pattern.replace(/^!!?/, '');
    const test = biomeGlob(body, file, where, ignored);
    if (negated ? test(relative) || ancestors(relative).some(test) : test(relative)) included = !negated;
  }
  return included;
}

function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) out.push(path.slice(0, i));
  return out;
}

const globCache = new Map<string, { test: (path: string) => boolean; reason?: string }>();
/** Bounded by what it holds, not by count: a project's includes (within its config budget) all fit, so none is compiled twice. */
const MAX_CACHED_GLOB_SIZE = 2 * CONFIG_BUDGET.maxGlobChars;
let cachedGlobSize = 0;

function biomeGlob(pattern: string, file: string, where: string, ignored: IgnoredItem[]): (path: string) => boolean {
  let entry = globCache.get(pattern);
  if (!entry) {
    const compiled = compileGlob(pattern.replace(/^\.\//, ''));
    entry = compiled.ok ? { test: compiled.test } : { test: () => false, reason: compiled.reason };
    const size = compiled.ok ? compiled.size : 1;
    if (cachedGlobSize + size > MAX_CACHED_GLOB_SIZE) {
      globCache.clear();
      cachedGlobSize = 0;
    }
    cachedGlobSize += size;
    globCache.set(pattern, entry);
  }
  if (entry.reason) ignored.push({ file, item: `${where}: ${truncate(pattern)}`, reason: entry.reason });
  return entry.test;
}
