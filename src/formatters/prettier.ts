/**
 * Prettier through its standalone JS API, with the built-in plugins that ship inside formatbox.
 *
 * This is the safe base for untrusted repos: `prettier/standalone` does no config lookup, no
 * plugin loading and no module resolution. Settings arrive already resolved by `src/config`
 * (read as data); this adapter only drops keys that would name code to load.
 */
import type { Plugin, Options } from 'prettier';
import type { AdapterRequest, AdapterResult, FormatterAdapter, FormatterInfo, LineEndingPolicy } from '../core/types.js';
import { messageOf } from '../core/errors.js';
import { lazy } from '../core/wasm.js';
import { firstLine, isPlainObject } from './shared.js';

export interface PrettierFormatterOptions {
  /**
   * Extra Prettier plugin objects (already imported by the embedding program, e.g. in trusted mode).
   * They are added after the built-in ones. formatbox never resolves plugin names itself.
   */
  plugins?: unknown[];
}

/** Language ids this adapter formats (see src/core/languages.ts). */
/** Languages whose Prettier printers honour rangeStart/rangeEnd; the others are formatted whole. */
export const PRETTIER_RANGE_LANGUAGES: readonly string[] = ['javascript', 'typescript', 'json', 'jsonc', 'json5', 'graphql', 'vue'];

export const PRETTIER_LANGUAGES = [
  'javascript', 'typescript', 'json', 'jsonc', 'json5', 'css', 'scss', 'less',
  'markdown', 'mdx', 'yaml', 'html', 'vue', 'graphql',
] as const;

/**
 * Parsers for which Prettier honours `rangeStart`/`rangeEnd` (its range-util only knows JS-like,
 * JSON, GraphQL and Vue source elements). For every other parser Prettier silently returns the
 * input unchanged when a range is given, so this adapter formats the whole file instead.
 */
const RANGE_PARSERS = new Set([
  'babel', 'babel-flow', 'babel-ts', 'flow', 'typescript', 'acorn', 'espree', 'meriyah',
  'json', 'json5', 'jsonc', 'json-stringify', 'graphql', 'vue',
]);
const RANGE_LANGUAGES = new Set(['javascript', 'typescript', 'json', 'jsonc', 'json5', 'graphql', 'vue']);

/** Plugins loaded on first use: they cover every language above, and embedded code in them. */
function loadBasePlugins(): Promise<Plugin[]> {
  return Promise.all([
    import('prettier/plugins/babel'),
    import('prettier/plugins/estree'),
    import('prettier/plugins/typescript'),
    import('prettier/plugins/postcss'),
    import('prettier/plugins/markdown'),
    import('prettier/plugins/yaml'),
    import('prettier/plugins/html'),
    import('prettier/plugins/graphql'),
  ]) as Promise<Plugin[]>;
}

/**
 * Built-in plugins that are only loaded when a project's `parser` setting asks for one of their
 * parsers (they are still part of prettier itself, so nothing from the repo is loaded).
 */
const OPTIONAL_PLUGINS: Readonly<Record<string, () => Promise<unknown>>> = {
  acorn: () => import('prettier/plugins/acorn'),
  espree: () => import('prettier/plugins/acorn'),
  meriyah: () => import('prettier/plugins/meriyah'),
  flow: () => import('prettier/plugins/flow'),
  angular: () => import('prettier/plugins/angular'),
  glimmer: () => import('prettier/plugins/glimmer'),
};

/** Option keys that never pass through: code loading, per-call positions, and config-file structure. */
const DROPPED_KEYS = ['plugins', 'pluginSearchDirs', 'overrides', '$schema', 'filepath', 'rangeStart', 'rangeEnd', 'cursorOffset'];

interface Loaded {
  format: (text: string, options: Options) => Promise<string>;
  plugins: Plugin[];
  parsers: Set<string>;
  /** Prettier's option schema (`getSupportInfo()`), by option name. */
  schema: Map<string, SupportOption>;
}

interface SupportOption {
  name: string;
  type: string;
  choices?: Array<{ value: unknown }>;
}

function parsersOf(plugins: Plugin[]): Set<string> {
  const names = new Set<string>();
  for (const plugin of plugins) for (const name of Object.keys(plugin.parsers ?? {})) names.add(name);
  return names;
}

export function prettierFormatter(options: PrettierFormatterOptions = {}): FormatterAdapter {
  const extraPlugins = (options.plugins ?? []) as Plugin[];
  const optionalLoaded = new Map<string, Plugin>();

  // `info()` needs only the core (85 kB); `format()` needs the plugins too (about 2.5 MB of JS).
  const core = lazy(() => import('prettier/standalone'));
  const loader = lazy(async (): Promise<Loaded> => {
    const [prettier, base] = await Promise.all([core.get(), loadBasePlugins()]);
    const plugins = [...base, ...extraPlugins];
    const info = (await (prettier.getSupportInfo as (options: { plugins: Plugin[] }) => Promise<unknown>)({ plugins })) as { options: SupportOption[] };
    return { format: prettier.format, plugins, parsers: parsersOf(plugins), schema: new Map(info.options.map((o) => [o.name, o])) };
  });

  /** The plugin list for one call: the base set, plus an optional built-in plugin if `parser` needs it. */
  async function pluginsFor(loaded: Loaded, parser: string | undefined): Promise<Plugin[] | 'omitted' | undefined> {
    if (parser === undefined || loaded.parsers.has(parser)) return loaded.plugins;
    const load = OPTIONAL_PLUGINS[parser];
    if (!load) return undefined;
    let plugin = optionalLoaded.get(parser);
    if (!plugin) {
      plugin = (await load()) as Plugin;
      optionalLoaded.set(parser, plugin);
    }
    // A bundle may leave an optional plugin out (the edge worker profile): then the parser is not here.
    if ((plugin as { formatboxOmitted?: boolean }).formatboxOmitted) return 'omitted';
    return [...loaded.plugins, plugin];
  }

  return {
    name: 'prettier',
    via: 'js',
    languages: PRETTIER_LANGUAGES,
    supportsRange: true,
    rangeLanguages: PRETTIER_RANGE_LANGUAGES,

    async info(): Promise<FormatterInfo> {
      return { name: 'prettier', version: versionOf(await core.get()), via: 'js' };
    },

    async format(request: AdapterRequest): Promise<AdapterResult> {
      const loaded = await loader.get();
      const settings = isPlainObject(request.settings) ? { ...request.settings } : {};
      for (const key of DROPPED_KEYS) delete settings[key];

      let parser: string | undefined;
      if ('parser' in settings) {
        if (typeof settings.parser !== 'string') {
          return { kind: 'error', message: `invalid prettier option: parser must be a string` };
        }
        parser = settings.parser;
      }
      // The CLI checks every option against the schema before formatting; the API lets a few deprecated
      // values through (`trailingComma: true` for JSON). Same check, same message as the CLI.
      const rejected = schemaError(settings, loaded.schema);
      if (rejected) return { kind: 'error', ...rejected };
      const plugins = await pluginsFor(loaded, parser);
      if (plugins === 'omitted') {
        return { kind: 'unsupported', reason: `prettier parser "${parser}" is left out of this build of formatbox (its optional parsers are not bundled)` };
      }
      if (!plugins) {
        return {
          kind: 'unsupported',
          reason: `prettier parser "${parser}" comes from a plugin, and formatbox loads no plugins (built-in parsers: ${[...loaded.parsers].filter((name) => !name.startsWith('__')).join(', ')})`,
        };
      }

      // LF in, LF out; the engine then writes Prettier's own `endOfLine` (default lf, `auto`: the first CR
      // decides). Any other value goes to Prettier as written, which rejects it as its CLI does.
      const endOfLine = String(settings.endOfLine ?? 'lf');
      const lineEnding = Object.hasOwn(END_OF_LINE, endOfLine) ? END_OF_LINE[endOfLine] : undefined;
      const prettierOptions: Options = {
        ...settings,
        ...(lineEnding ? { endOfLine: 'lf' } : {}),
        filepath: request.path,
        plugins,
      };
      if (request.range && rangeCapable(request.language, parser)) {
        prettierOptions.rangeStart = request.range.utf16Start;
        prettierOptions.rangeEnd = request.range.utf16End;
      }

      try {
        const text = await loaded.format(request.text, prettierOptions);
        return lineEnding ? { kind: 'ok', text, lineEnding } : { kind: 'ok', text };
      } catch (error) {
        return resultOfError(error);
      }
    },

    async preload() {
      await loader.get();
    },


    dispose() {
      core.reset();
      loader.reset();
      optionalLoaded.clear();
    },
  };
}

/**
 * The first option whose value Prettier's CLI rejects, with the CLI's message ("Invalid tabWidth value.
 * Expected an integer, but received "4"."). Unknown keys are left to Prettier (it ignores them).
 */
export function schemaError(settings: Record<string, unknown>, schema: Map<string, SupportOption>): { message: string; setting: string } | undefined {
  for (const [name, value] of Object.entries(settings)) {
    const option = schema.get(name);
    if (!option || name === 'parser' || value === undefined) continue;
    let expected: string | undefined;
    if (option.type === 'int' && !(typeof value === 'number' && (Number.isInteger(value) || value === Number.POSITIVE_INFINITY))) expected = 'an integer';
    else if (option.type === 'boolean' && typeof value !== 'boolean') expected = 'true or false';
    else if (option.type === 'choice' && option.choices && !option.choices.some((c) => c.value === value)) expected = listOf(option.choices.map((c) => JSON.stringify(c.value)));
    if (expected) return { message: `Invalid ${name} value. Expected ${expected}, but received ${shown(value)}.`, setting: name };
  }
  return undefined;
}

function listOf(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value !== null && typeof value === 'object') return JSON.stringify(value) ?? String(value);
  return String(value);
}

/** Prettier's `endOfLine` choices as line-ending policies (`auto` is its guessEndOfLine: the first CR). */
const END_OF_LINE: Readonly<Record<string, LineEndingPolicy>> = { lf: 'lf', crlf: 'crlf', cr: 'cr', auto: 'first-cr' };

/** `version` is exported by prettier/standalone at run time, but missing from its .d.ts. */
function versionOf(prettier: unknown): string {
  return String((prettier as { version?: unknown }).version ?? 'unknown');
}

function rangeCapable(language: string, parser: string | undefined): boolean {
  return parser === undefined ? RANGE_LANGUAGES.has(language) : RANGE_PARSERS.has(parser);
}

/** Maps what Prettier throws to an adapter value: syntax errors carry `(line:column)`. */
function resultOfError(error: unknown): AdapterResult {
  const name = error instanceof Error ? error.name : '';
  const message = firstLine(messageOf(error));
  if (name === 'UndefinedParserError') return { kind: 'unsupported', reason: message };
  if (name === 'ConfigError') return { kind: 'unsupported', reason: message };
  // Prettier's option normalisation: "Invalid tabWidth value. Expected an integer, but received "4"."
  const rejected = /^Invalid (\w+) value\./.exec(message);
  if (rejected?.[1]) return { kind: 'error', message, setting: rejected[1] };
  const loc = (error as { loc?: { start?: { line?: number; column?: number } } } | null)?.loc?.start;
  if (loc && typeof loc.line === 'number' && !/\(\d+:\d+\)\s*$/.test(message)) {
    return { kind: 'error', message: `${message} (${loc.line}:${loc.column ?? 0})` };
  }
  return { kind: 'error', message };
}
