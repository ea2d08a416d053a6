/**
 * `selectFormatter`: which formatter formats a path, with which settings, and why.
 * Order: user rules (globs, then language ids) → what the project declares (Biome before Prettier,
 * Ruff before black) → with `mode: 'always'`, the language default → skip. The language comes from
 * the path; for a name the path gives none and without an extension, from the file's first line as
 * its formatter's CLI reads it (a shell shebang), and the selection says so (`languageFrom`).
 */
import type { ConfigSource, FormatterChoice, IgnoredItem, SkipReason } from '../core/types.js';
import type { ConfigError, SettingOrigin } from './config-error.js';
import { languageOf, extensionOf } from '../core/languages.js';
import { editorconfigFor, normalisedProperties } from './editorconfig.js';
import { insideNodeModules } from './ignore-file.js';
import { normalisePath } from './paths.js';
import type { ProjectConfig } from './project.js';
import type { NormalisedUserConfig, UserRule } from './user.js';
import type { Declared, ResolvedSettings } from '../formatters/module.js';
import { DEFAULT_FORMATTER, displayNameOf, FIRST_LINE_RULES, FORMATTER_EXTENSIONS, MODULES, moduleOfAdapter } from '../formatters/derived.js';

export type { ResolvedSettings };

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
      /** Set when the language came from the file's first line rather than its path: why. */
      languageFrom?: string;
    }
  /** The project's formatter would reject its config (or skip it silently): formatbox refuses. */
  | { kind: 'invalid-config'; formatter: string; language: string; error: ConfigError; because: string; ignored: IgnoredItem[]; languageFrom?: string }
  | { kind: 'skip'; reason: SkipReason; detail?: string; language?: string; languageFrom?: string };

/** A path's language: core's tables, the languages registered formatters add, and the user's own extensions (these win). */
export function languageOfPath(path: string, userLanguages: Record<string, string[]> = {}): string | undefined {
  return languageOf(path, { ...FORMATTER_EXTENSIONS, ...userLanguages });
}

/**
 * The language a file's first line gives it when its path gives none: the first formatter rule
 * (shfmt's shebang) that recognises it, and why. Reads only the start of `text`.
 */
export function languageOfFirstLine(path: string, text: string): { language: string; from: string; found: string } | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  for (const rule of FIRST_LINE_RULES) {
    if (!rule.mayBe(name)) continue;
    const found = rule.recognise(text);
    if (found !== undefined) return { language: rule.language, from: rule.describe(found), found };
  }
  return undefined;
}

/**
 * `text` is the file's content (only its start is read), for a path that gives no language: a
 * selection that depends on it carries `languageFrom`. Without it, the path alone decides.
 */
export function selectFormatter(project: ProjectConfig, user: NormalisedUserConfig, rawPath: string, text?: string): Selection {
  const path = normalisePath(rawPath);
  if (!user.enabled) return { kind: 'skip', reason: 'disabled' };
  const byPath = languageOfPath(path, user.languages);
  const byFirstLine = byPath === undefined && text !== undefined ? languageOfFirstLine(path, text) : undefined;
  if (!byFirstLine) return selectForLanguage(project, user, path, byPath);
  return { ...selectForLanguage(project, user, path, byFirstLine.language), languageFrom: byFirstLine.from };
}

function selectForLanguage(project: ProjectConfig, user: NormalisedUserConfig, path: string, language: string | undefined): Selection {
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
  let extendSettings: ((settings: Record<string, unknown>) => Record<string, unknown>) | undefined;
  if (!formatter && user.mode === 'always') {
    const chosen = DEFAULT_FORMATTER[language];
    const fallback = chosen ? undefined : alwaysDefaultFor(language);
    formatter = chosen ?? fallback?.formatter;
    extendSettings = fallback?.settings;
    const name = chosen ? displayNameOf(chosen) : fallback?.name;
    because = name ? `mode 'always': ${name} is the default for ${language}` : undefined;
  }
  if (!formatter || !because) {
    const fallback = editorconfigFallback(project, path, language);
    if (fallback) return fallback;
    const notes = MODULES.map((module) => module.whyNotDeclared?.(project, path, language)).filter((note) => note !== undefined);
    return { kind: 'skip', reason: 'no formatter declared', detail: `the project declares no formatter for ${language}${notes.map((note) => ` (${note})`).join('')}`, language };
  }
  const leftAlone = moduleOfAdapter(formatter)?.leavesAlone?.(project, path);
  if (leftAlone) return { kind: 'skip', reason: 'ignored by project config', detail: leftAlone, language };
  const resolved = settingsFor(project, formatter, path, language);
  if (resolved.error) return { kind: 'invalid-config', formatter, language, error: resolved.error, because, ignored: short(resolved.ignored) };
  const settings = extendSettings ? extendSettings(resolved.settings) : resolved.settings;
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

function userRuleFor(user: NormalisedUserConfig, path: string, language: string | undefined): UserRule | undefined {
  for (const rule of user.rules) {
    if (rule.kind === 'glob' ? rule.test?.(path) : rule.key === language) return rule;
  }
  return undefined;
}

/** What the project's own config files say about `path`: the first formatter, in registry order, that declares it. */
function declaredFormatter(project: ProjectConfig, path: string, language: string): Declared | undefined {
  for (const module of MODULES) {
    const declared = module.declares?.(project, path, language);
    if (declared) return declared;
  }
  return undefined;
}

/** `mode: 'always'` for a language no formatter is the static default of (a shipped Prettier plugin's). */
function alwaysDefaultFor(language: string): ReturnType<NonNullable<(typeof MODULES)[number]['alwaysDefault']>> {
  for (const module of MODULES) {
    const chosen = module.alwaysDefault?.(language);
    if (chosen) return chosen;
  }
  return undefined;
}

/** The formatter's settings for `path`, in the adapter's own shape, and the config items ignored on the way. */
export function settingsFor(project: ProjectConfig, formatter: string, path: string, language: string): ResolvedSettings {
  return moduleOfAdapter(formatter)?.settings?.(project, formatter, path, language) ?? { settings: {}, ignored: [] };
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
