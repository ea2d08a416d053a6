/**
 * `selectFormatter`: which formatter formats a path, with which settings, and why.
 * Order: user rules (globs, then language ids) → what the project declares (Biome before Prettier,
 * Ruff before black) → with `mode: 'always'`, the language default → skip.
 */
import type { ConfigSource, FormatterChoice, IgnoredItem, SkipReason } from '../core/types.js';
import type { ConfigError, SettingOrigin } from './config-error.js';
import { languageOf, extensionOf } from '../core/languages.js';
import { biomeConfigFor, biomeExcludes, biomeVcsIgnore } from '../formatters/biome/config.js';
import type { DprintPluginName } from '../formatters/dprint/config.js';
import { editorconfigFor, editorconfigToPrettier, normalisedProperties, shellSectionFor } from './editorconfig.js';
import { insideNodeModules, isIgnoredBy } from './ignore-file.js';
import { isUnder, nearest, normalisePath } from './paths.js';
import { nearestPrettierConfig, prettierConfigError, prettierOptionsFor, PRETTIER_PLUGIN_ALLOWLIST, type PrettierConfigFile } from '../formatters/prettier/config.js';
import type { ProjectConfig } from './project.js';
import { clangFormatSettingsFor, rustfmtSettingsFor } from './toolchains.js';
import { ruffExcludes } from '../formatters/ruff/exclude.js';
import { ruffSettingsFor } from '../formatters/ruff/config.js';
import type { NormalisedUserConfig, UserRule } from './user.js';

export type Selection =
  | {
      kind: 'format';
      /** An adapter name, or the user's object choice (`{command}`, `{wasi}`, `{dprint}`). */
      formatter: string | FormatterChoice;
      language: string;
      /** In the adapter's own shape (Prettier options, a biome.json object, ruff.toml options, …). */
      settings: Record<string, unknown>;
      because: string;
      /** Project config items ignored for this file (the receipt carries them). */
      ignored: IgnoredItem[];
      /** Directory of the config file `settings` came from, when its globs are relative to it (Biome): `AdapterRequest.settingsDir`. */
      settingsDir?: string;
      /** The config files the settings came from, as written (`AdapterRequest.configSources`). */
      configSources?: ConfigSource[];
      /** Where each setting is written, to name a value the formatter rejects. */
      settingOrigins?: Record<string, SettingOrigin>;
    }
  /** The project's formatter would reject its config (or skip it silently): formatbox refuses. */
  | { kind: 'invalid-config'; formatter: string; language: string; error: ConfigError; because: string; ignored: IgnoredItem[] }
  | { kind: 'skip'; reason: SkipReason; detail?: string; language?: string };

export const BIOME_LANGUAGES = new Set(['javascript', 'typescript', 'json', 'jsonc', 'css', 'graphql']);
export const PRETTIER_LANGUAGES = new Set([...BIOME_LANGUAGES, 'json5', 'scss', 'less', 'markdown', 'mdx', 'yaml', 'html', 'vue', 'handlebars']);
const CLANG_LANGUAGES = new Set(['c', 'cpp', 'java', 'proto', 'csharp', 'objective-c', 'verilog', 'textproto']);

/**
 * Language defaults for `mode: 'always'`. Prettier covers the web languages (it is the formatter most
 * projects without config expect, and one formatter for all of them keeps output consistent); the
 * languages of the shipped Prettier plugins get Prettier with that plugin (`pluginForLanguage`).
 */
export const DEFAULT_FORMATTER: Readonly<Record<string, string>> = {
  ...Object.fromEntries([...PRETTIER_LANGUAGES].map((language) => [language, 'prettier'])),
  python: 'ruff',
  go: 'gofmt',
  rust: 'rustfmt',
  c: 'clang-format',
  cpp: 'clang-format',
  java: 'clang-format',
  proto: 'clang-format',
  csharp: 'clang-format',
  'objective-c': 'clang-format',
  verilog: 'clang-format',
  textproto: 'clang-format',
  toml: 'toml',
  shell: 'shfmt',
  lua: 'stylua',
  sql: 'sql_fmt',
  dockerfile: 'dprint:dockerfile',
};

/** Languages a shipped dprint plugin formats, and the plugin (its dprint.json section name). */
const DPRINT_LANGUAGES: Readonly<Record<string, DprintPluginName>> = { toml: 'toml', markdown: 'markdown', json: 'json', jsonc: 'json', dockerfile: 'dockerfile' };

const NAMES: Record<string, string> = { shfmt: 'shfmt', prettier: 'Prettier', biome: 'Biome', ruff: 'Ruff', gofmt: 'gofmt', rustfmt: 'rustfmt', 'clang-format': 'clang-format', toml: 'the TOML formatter' };

export function selectFormatter(project: ProjectConfig, user: NormalisedUserConfig, rawPath: string): Selection {
  const path = normalisePath(rawPath);
  if (!user.enabled) return { kind: 'skip', reason: 'disabled' };
  const language = languageOf(path, user.languages);
  const rule = userRuleFor(user, path, language);
  if (rule) {
    const lang = language ?? (extensionOf(path) || 'text');
    if (rule.choice === false) return { kind: 'skip', reason: 'turned off', detail: rule.because, language: lang };
    if (typeof rule.choice === 'string') {
      const resolved = settingsFor(project, rule.choice, path, lang);
      if (resolved.error) return { kind: 'invalid-config', formatter: rule.choice, language: lang, error: resolved.error, because: rule.because, ignored: short(resolved.ignored) };
      return { kind: 'format', formatter: rule.choice, language: lang, settings: resolved.settings, because: rule.because, ignored: short(resolved.ignored), ...extrasOf(resolved) };
    }
    return { kind: 'format', formatter: rule.choice, language: lang, settings: {}, because: rule.because, ignored: [] };
  }
  if (!language) return editorconfigFallback(project, path, 'text') ?? { kind: 'skip', reason: 'unknown extension' };

  const declared = declaredFormatter(project, path, language);
  if (declared && 'skip' in declared) return { kind: 'skip', reason: 'ignored by project config', detail: declared.skip, language };
  let formatter = declared?.formatter;
  let because = declared?.because;
  // mode 'always' for a language only a shipped Prettier plugin formats (XML/SVG, PHP, Svelte, Astro): Prettier with formatbox's copy of it.
  let defaultPlugin: string | undefined;
  if (!formatter && user.mode === 'always') {
    defaultPlugin = DEFAULT_FORMATTER[language] ? undefined : pluginForLanguage(language);
    formatter = DEFAULT_FORMATTER[language] ?? (defaultPlugin ? 'prettier' : undefined);
    const name = formatter === undefined ? undefined : defaultPlugin ? `Prettier with its ${defaultPlugin} plugin` : NAMES[formatter] ?? formatter;
    because = name ? `mode 'always': ${name} is the default for ${language}` : undefined;
  }
  if (!formatter || !because) {
    const fallback = editorconfigFallback(project, path, language);
    if (fallback) return fallback;
    // Biome 2.4's SCSS formatter is behind a build feature its published packages leave off.
    const biomeScss = language === 'scss' && biomeConfigFor(project.biome, path) ? " (Biome's published build formats no SCSS: its SCSS support is behind a build feature)" : '';
    return { kind: 'skip', reason: 'no formatter declared', detail: `the project declares no formatter for ${language}${biomeScss}`, language };
  }
  const prettierSkip = formatter === 'prettier' ? prettierIgnores(project, path) : undefined;
  if (prettierSkip) return { kind: 'skip', reason: 'ignored by project config', detail: prettierSkip, language };
  const resolved = settingsFor(project, formatter, path, language);
  if (resolved.error) return { kind: 'invalid-config', formatter, language, error: resolved.error, because, ignored: short(resolved.ignored) };
  const settings = defaultPlugin ? { ...resolved.settings, plugins: [...(Array.isArray(resolved.settings.plugins) ? resolved.settings.plugins : []), defaultPlugin] } : resolved.settings;
  return { kind: 'format', formatter, language, settings, because, ignored: short(resolved.ignored), ...extrasOf(resolved) };
}

/**
 * A file no formatter covers gets what an editor's EditorConfig plugin does on save, when the
 * project's `.editorconfig` gives it a property the normaliser applies. Dependencies are left alone.
 */
function editorconfigFallback(project: ProjectConfig, path: string, language: string): Selection | undefined {
  if (project.editorconfig.length === 0 || insideNodeModules(path)) return undefined;
  const properties = editorconfigFor(project.editorconfig, path);
  const applied = normalisedProperties(properties);
  if (applied.length === 0) return undefined;
  const file = [...project.editorconfig].reverse().find((f) => f.dir === '' || path.startsWith(`${f.dir}/`));
  return { kind: 'format', formatter: 'editorconfig', language, settings: properties, because: `${file?.file ?? '.editorconfig'} sets ${applied.join(', ')} and no formatter covers this file`, ignored: [] };
}

/** Why Prettier's CLI would leave `path` alone: node_modules, the root .gitignore, the root .prettierignore. */
function prettierIgnores(project: ProjectConfig, path: string): string | undefined {
  if (insideNodeModules(path)) return 'inside node_modules (Prettier leaves dependencies alone)';
  const rootGitignore = project.gitignore.find((g) => g.dir === '');
  if (rootGitignore && isIgnoredBy([rootGitignore], path)) return 'listed in .gitignore (Prettier reads the root .gitignore)';
  if (project.prettierignore && isIgnoredBy([project.prettierignore], path)) return 'listed in .prettierignore';
  return undefined;
}

function userRuleFor(user: NormalisedUserConfig, path: string, language: string | undefined): UserRule | undefined {
  for (const rule of user.rules) {
    if (rule.kind === 'glob' ? rule.test?.(path) : rule.key === language) return rule;
  }
  return undefined;
}

type Declared = { formatter: string; because: string } | { skip: string };

/** What the project's own config files say about `path`. */
function declaredFormatter(project: ProjectConfig, path: string, language: string): Declared | undefined {
  // A dprint config that lists the plugin for this language is the most specific declaration.
  const dprintPlugin = DPRINT_LANGUAGES[language];
  if (dprintPlugin && dprintPlugin !== 'toml') {
    const dprint = nearest(project.dprint.filter((d) => d.plugins.has(dprintPlugin)), path);
    if (dprint) return { formatter: `dprint:${dprintPlugin}`, because: `${dprint.file} declares dprint's ${dprintPlugin} plugin` };
  }
  if (BIOME_LANGUAGES.has(language)) {
    const biome = biomeConfigFor(project.biome, path);
    if (biome) {
      const excluded = biomeExcludes(biome.config, biome.configuration, path, language, []);
      if (excluded) return { skip: excluded };
      if (insideNodeModules(path)) return { skip: 'inside node_modules (Biome leaves dependencies alone)' };
      const vcs = biomeVcsIgnore(project.biome, path);
      if (vcs && isIgnoredBy(project.biomeGitignore.filter((g) => isUnder(vcs.dir, g.file)), path)) {
        return { skip: `listed in .gitignore (vcs.useIgnoreFile in ${vcs.file})` };
      }
      return { formatter: 'biome', because: `${biome.config.file} declares Biome` };
    }
  }
  if (PRETTIER_LANGUAGES.has(language)) {
    const prettier = nearestPrettierConfig(project.prettier, path);
    if (prettier) return { formatter: 'prettier', because: `${prettier.file} declares Prettier${prettier.code && project.trust === 'untrusted' ? ' (its config is code: untrusted mode refuses these files)' : ''}` };
  }
  const plugin = pluginForLanguage(language);
  if (plugin) {
    const prettier = nearestPrettierConfig(project.prettier, path);
    if (prettier && listsPlugin(prettier, plugin)) {
      return { formatter: 'prettier', because: `${prettier.file} lists the Prettier plugin for ${language}; formatbox runs its own copy` };
    }
  }
  if (language === 'python') {
    const ruff = nearest(project.ruff, path);
    if (ruff) {
      // As `ruff format --force-exclude` (what editors run on save) treats a file named on its command line.
      const excluded = ruff.error ? undefined : ruffExcludes(ruff, path);
      if (excluded) return { skip: `${excluded}; Ruff leaves it alone` };
      return { formatter: 'ruff', because: `${ruff.file}${ruff.file.endsWith('pyproject.toml') ? ' [tool.ruff]' : ''} declares Ruff` };
    }
    const black = nearest(project.black, path);
    if (black) return { formatter: 'ruff', because: `${black.file} [tool.black] declares black-style formatting, done by Ruff's formatter` };
  }
  if (language === 'go') {
    const mod = nearest(project.go, path);
    if (mod) return { formatter: 'gofmt', because: `${mod.file} declares Go (gofmt)` };
  }
  if (language === 'rust') {
    const manifest = nearest(project.cargo, path) ?? nearest(project.rustfmt, path);
    if (manifest) return { formatter: 'rustfmt', because: `${manifest.file} declares Rust (rustfmt, edition ${rustfmtSettingsFor(project.cargo, project.rustfmt, path).edition})` };
  }
  if (CLANG_LANGUAGES.has(language)) {
    const clang = nearest(project.clangFormat, path);
    if (clang) return { formatter: 'clang-format', because: `${clang.file} declares clang-format` };
  }
  if (language === 'lua') {
    const stylua = nearest(project.stylua, path);
    if (stylua) return { formatter: 'stylua', because: `${stylua.file} declares StyLua` };
  }
  if (language === 'shell') {
    const section = shellSectionFor(project.editorconfig, path);
    if (section) return { formatter: 'shfmt', because: `${section.file} [${section.glob}] declares shell formatting (shfmt reads .editorconfig)` };
  }
  if (language === 'toml') {
    const toml = nearest([...project.toml, ...project.dprint.filter((d) => d.plugins.has('toml'))], path);
    if (toml) return { formatter: 'toml', because: `${toml.file} declares TOML formatting` };
  }
  return undefined;
}

/** The allowlisted Prettier plugin (xml, php, java, svelte, astro, …) that formats a language Prettier itself does not. */
function pluginForLanguage(language: string): string | undefined {
  if (PRETTIER_LANGUAGES.has(language)) return undefined;
  return Object.keys(PRETTIER_PLUGIN_ALLOWLIST).find((id) => PRETTIER_PLUGIN_ALLOWLIST[id]!.shipped && PRETTIER_PLUGIN_ALLOWLIST[id]!.languages.includes(language));
}

function listsPlugin(config: PrettierConfigFile, id: string): boolean {
  const has = (options: Record<string, unknown>) => Array.isArray(options.plugins) && options.plugins.includes(id);
  return has(config.options) || config.overrides.some((override) => has(override.options));
}

/** What `settingsFor` resolves: settings in the adapter's shape, or the config error that stops formatting. */
export interface ResolvedSettings {
  settings: Record<string, unknown>;
  ignored: IgnoredItem[];
  settingsDir?: string;
  configSources?: ConfigSource[];
  settingOrigins?: Record<string, SettingOrigin>;
  error?: ConfigError;
}

/** The formatter's settings for `path`, in the adapter's own shape, and the config items ignored on the way. */
export function settingsFor(project: ProjectConfig, formatter: string, path: string, language: string): ResolvedSettings {
  switch (formatter) {
    case 'prettier': {
      const config = nearestPrettierConfig(project.prettier, path);
      const editorconfigIgnored = project.ignored.filter((i) => i.file.endsWith('.editorconfig') && isUnder(dirOfFile(i.file), path));
      const ignored = [...(config ? config.ignored : []), ...editorconfigIgnored];
      const error = prettierConfigError(project.prettier, path);
      if (error) return { settings: {}, ignored, error };
      const fromEditorconfig = editorconfigToPrettier(editorconfigFor(project.editorconfig, path));
      // Prettier: config file keys win over .editorconfig.
      const settingOrigins: Record<string, SettingOrigin> = {};
      const settings = { ...fromEditorconfig, ...prettierOptionsFor(config, path, settingOrigins) };
      return { settings, ignored, settingOrigins };
    }
    case 'biome': {
      // The root .editorconfig is merged in there, as Biome's CLI reads it (biome-editorconfig.ts).
      const biome = biomeConfigFor(project.biome, path, project.editorconfig);
      if (!biome) return { settings: {}, ignored: [] };
      const ignored = biome.ignored;
      if (biome.error) return { settings: {}, ignored, error: biome.error };
      return { settings: biome.configuration, ignored, settingsDir: biome.config.dir, configSources: biome.sources };
    }
    case 'ruff': {
      const config = nearest(project.ruff, path) ?? nearest(project.black, path);
      if (config?.error) return { settings: {}, ignored: [...config.ignored], error: config.error };
      // Ruff's loader judges the whole table (unknown keys, wrong types) in the adapter.
      const configSources = config?.source ? [{ file: config.file, text: config.source.text, options: config.source.options }] : undefined;
      const forPath = config ? ruffSettingsFor(config, path) : { settings: {} };
      if (forPath.error) return { settings: {}, ignored: config ? [...config.ignored] : [], error: forPath.error };
      return { settings: forPath.settings, ignored: config ? [...config.ignored] : [], ...(configSources ? { configSources } : {}) };
    }
    case 'rustfmt':
      return { settings: rustfmtSettingsFor(project.cargo, project.rustfmt, path), ignored: project.ignored.filter((i) => /(^|\/)(rust-toolchain(\.toml)?|\.?rustfmt\.toml)$/.test(i.file) && isUnder(dirOfFile(i.file), path)) };
    case 'gofmt':
      return { settings: {}, ignored: project.ignored.filter((i) => i.file.endsWith('go.mod') && isUnder(dirOfFile(i.file), path)) };
    case 'stylua': {
      const stylua = nearest(project.stylua, path);
      const ignored = stylua ? project.ignored.filter((i) => i.file === stylua.file) : [];
      if (stylua?.error) return { settings: {}, ignored, error: stylua.error };
      return { settings: stylua ? stylua.settings : {}, ignored };
    }
    case 'shfmt':
    case 'sql_fmt':
      return { settings: editorconfigFor(project.editorconfig, path), ignored: [] };
    case 'clang-format':
      return { settings: clangFormatSettingsFor(project.clangFormat, path, language), ignored: project.ignored.filter((i) => /(^|\/)[._]clang-format$/.test(i.file) && isUnder(dirOfFile(i.file), path)) };
    case 'toml':
    case 'dprint:markdown':
    case 'dprint:json':
    case 'dprint:dockerfile': {
      // dprint.json settings (global keys and the plugin's section); taplo.toml is only a declaration.
      const plugin = formatter === 'toml' ? 'toml' : (formatter.slice('dprint:'.length) as DprintPluginName);
      const dprint = nearest(project.dprint.filter((d) => d.plugins.has(plugin)), path);
      const taplo = plugin === 'toml' ? nearest(project.toml, path) : undefined;
      if (!dprint || (taplo && taplo.dir.length > dprint.dir.length)) return { settings: {}, ignored: [] };
      return { settings: dprint.settings[plugin], ignored: project.ignored.filter((i) => i.file === dprint.file) };
    }
    default:
      return { settings: {}, ignored: [] };
  }
}

/** Receipts carry a short list: the first items and a count of the rest (doctor() lists them all). */
export const MAX_IGNORED_PER_FILE = 8;

function short(ignored: IgnoredItem[]): IgnoredItem[] {
  if (ignored.length <= MAX_IGNORED_PER_FILE) return ignored;
  const rest = ignored.length - (MAX_IGNORED_PER_FILE - 1);
  return [...ignored.slice(0, MAX_IGNORED_PER_FILE - 1), { file: '(project config)', item: `${rest} more items`, reason: 'see doctor() for the full list' }];
}

function extrasOf(resolved: ResolvedSettings): { settingsDir?: string; configSources?: ConfigSource[]; settingOrigins?: Record<string, SettingOrigin> } {
  return {
    ...(resolved.settingsDir ? { settingsDir: resolved.settingsDir } : {}),
    ...(resolved.configSources ? { configSources: resolved.configSources } : {}),
    ...(resolved.settingOrigins ? { settingOrigins: resolved.settingOrigins } : {}),
  };
}

function dirOfFile(file: string): string {
  const slash = file.lastIndexOf('/');
  return slash < 0 ? '' : file.slice(0, slash);
}
