/**
 * Prettier through its standalone JS API, with the built-in plugins that ship inside formatbox.
 *
 * This is the safe base for untrusted repos: `prettier/standalone` does no config lookup, no
 * plugin loading and no module resolution. Settings arrive already resolved by `src/config`
 * (read as data); this adapter only drops keys that would name code to load.
 */
import type { Plugin, Options } from 'prettier';
import type { AdapterRequest, AdapterResult, FormatterAdapter, FormatterInfo, LineEndingPolicy } from '../../core/types.js';
import { messageOf } from '../../core/errors.js';
import { lazy } from '../../core/wasm.js';
import { firstLine, isPlainObject } from '../shared.js';
import { UNIVERSAL_PRETTIER_PLUGINS, type ShippedPrettierPlugin } from '../prettier-plugins.js';
import { PRETTIER_CORE_LANGUAGES, PRETTIER_LANGUAGES, PRETTIER_RANGE_LANGUAGES } from './index.js';

export interface PrettierFormatterOptions {
  /**
   * Extra Prettier plugin objects (already imported by the embedding program, e.g. in trusted mode).
   * They are added after the built-in ones. formatbox never resolves plugin names itself.
   */
  plugins?: unknown[];
  /**
   * formatbox's own copies of allowlisted plugins, by id (`xml`, `php`, `java`, `svelte`): run when a
   * project's config lists the plugin (settings `plugins: ['java']`). Default: the universal ones.
   */
  shippedPlugins?: Readonly<Record<string, ShippedPrettierPlugin>>;
  /**
   * Another Prettier 3 build than the one formatbox ships (the version a project pins, from the
   * verified store): its `standalone` and its own language plugins, by plugin file name.
   */
  modules?: PrettierModules;
}

/** Where a Prettier 3 build's standalone core and its language plugins (`plugins/<name>.mjs`) come from. */
export interface PrettierModules {
  standalone: () => Promise<unknown>;
  plugin: (name: PrettierPluginName) => Promise<unknown>;
}

export type PrettierPluginName = 'babel' | 'estree' | 'typescript' | 'postcss' | 'markdown' | 'yaml' | 'html' | 'graphql' | 'acorn' | 'meriyah' | 'flow' | 'angular' | 'glimmer';

export { PRETTIER_LANGUAGES, PRETTIER_RANGE_LANGUAGES };

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

const BASE_PLUGINS: readonly PrettierPluginName[] = ['angular', 'glimmer', 'babel', 'estree', 'typescript', 'postcss', 'markdown', 'yaml', 'html', 'graphql'];

/**
 * Plugins loaded on first use: they cover every language above, and embedded code in them. Angular and
 * glimmer are here although no file extension needs them first: Prettier's embed step formats Angular
 * templates (`*.component.html`, `@Component({template})`, `{{ }}`, control flow) and Handlebars
 * `<script type="text/x-handlebars-template">` with their parsers, and without them leaves that code as written.
 */
function loadBasePlugins(modules: PrettierModules | undefined): Promise<Plugin[]> {
  if (modules) return Promise.all(BASE_PLUGINS.map((name) => modules.plugin(name))) as Promise<Plugin[]>;
  return Promise.all([
    import('prettier/plugins/angular'),
    import('prettier/plugins/glimmer'),
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
const OPTIONAL_PLUGIN_NAMES: Readonly<Record<string, PrettierPluginName>> = { acorn: 'acorn', espree: 'acorn', meriyah: 'meriyah', flow: 'flow', angular: 'angular', glimmer: 'glimmer' };
const OPTIONAL_PLUGINS: Readonly<Record<string, () => Promise<unknown>>> = {
  acorn: () => import('prettier/plugins/acorn'),
  espree: () => import('prettier/plugins/acorn'),
  meriyah: () => import('prettier/plugins/meriyah'),
  flow: () => import('prettier/plugins/flow'),
};

/**
 * Prettier infers its flow parser for `*.js.flow`. Code its embed step would format with the flow parser (1.8 MB, so loaded only then): a Markdown
 * fence whose language is `flow` (or `js.flow`), a Vue or HTML block with `lang="flow"`. A superset is
 * harmless: a plugin that is loaded but not used changes nothing.
 */
const EMBEDS_FLOW = /(?:`{3,}|~{3,})[ \t]*(?:js\.)?flow\b|\blang[ \t]*=[ \t]*["']?flow\b/i;
const FLOW_EMBEDDING_LANGUAGES = new Set(['markdown', 'mdx', 'vue', 'html']);

/** Option keys that never pass through: code loading, per-call positions, and config-file structure. */
const DROPPED_KEYS = ['pluginSearchDirs', 'overrides', '$schema', 'filepath', 'rangeStart', 'rangeEnd', 'cursorOffset'];

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
  const shipped = options.shippedPlugins ?? UNIVERSAL_PRETTIER_PLUGINS;
  const shippedLoaded = new Map<string, Promise<Plugin>>();

  /** The shipped plugins `settings.plugins` names (ids from the config layer), loaded once each. */
  async function shippedPluginsFor(ids: unknown, language: string): Promise<{ plugins: Plugin[]; used: Array<ShippedPrettierPlugin & { plugin: Plugin }> } | { missing: string; omitted?: true }> {
    const plugins: Plugin[] = [];
    const used: Array<ShippedPrettierPlugin & { plugin: Plugin }> = [];
    for (const id of Array.isArray(ids) ? ids : []) {
      const entry = typeof id === 'string' ? shipped[id] : undefined;
      if (!entry) {
        // Only a file that needs a plugin (not one of Prettier's own languages) misses it.
        if (!(PRETTIER_CORE_LANGUAGES as readonly string[]).includes(language)) return { missing: String(id) };
        continue;
      }
      let pending = shippedLoaded.get(id as string);
      if (!pending) {
        pending = entry.load().then((module) => ((module as { default?: Plugin }).default ?? module) as Plugin);
        shippedLoaded.set(id as string, pending);
      }
      const plugin = await pending;
      // A bundle may leave a shipped plugin out (the edge worker profile): then its language is not here.
      if ((plugin as { formatboxOmitted?: boolean }).formatboxOmitted) {
        if (!(PRETTIER_CORE_LANGUAGES as readonly string[]).includes(language)) return { missing: entry.package, omitted: true };
        continue;
      }
      plugins.push(plugin);
      used.push({ ...entry, plugin });
    }
    return { plugins, used };
  }

  // `info()` needs only the core (85 kB); `format()` needs the plugins too (about 2.5 MB of JS).
  const modules = options.modules;
  const core = lazy(() => (modules ? (modules.standalone() as Promise<typeof import('prettier/standalone')>) : import('prettier/standalone')));
  const loader = lazy(async (): Promise<Loaded> => {
    const [prettier, base] = await Promise.all([core.get(), loadBasePlugins(modules)]);
    const plugins = [...base, ...extraPlugins];
    const info = (await (prettier.getSupportInfo as (options: { plugins: Plugin[] }) => Promise<unknown>)({ plugins })) as { options: SupportOption[] };
    return { format: prettier.format, plugins, parsers: parsersOf(plugins), schema: new Map(info.options.map((o) => [o.name, o])) };
  });

  /** The plugin list for one call: the base set, plus an optional built-in plugin if `parser` needs it. */
  async function pluginsFor(loaded: Loaded, parser: string | undefined): Promise<Plugin[] | 'omitted' | undefined> {
    if (parser === undefined || loaded.parsers.has(parser)) return loaded.plugins;
    const optional = Object.hasOwn(OPTIONAL_PLUGIN_NAMES, parser) ? OPTIONAL_PLUGIN_NAMES[parser] : undefined;
    const load = modules ? (optional ? () => modules.plugin(optional) : undefined) : OPTIONAL_PLUGINS[parser];
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
      // Handlebars: Prettier's own glimmer parser.
      if (parser === undefined && request.language === 'handlebars') parser = 'glimmer';
      const fromProject = await shippedPluginsFor(settings.plugins, request.language);
      delete settings.plugins;
      if ('missing' in fromProject) {
        const why = fromProject.omitted ? 'its copy is left out of this build of formatbox' : 'formatbox has no copy of it in this runtime';
        return { kind: 'unsupported', reason: `the project's Prettier config lists the ${fromProject.missing} plugin, and ${why}` };
      }
      // The CLI checks every option against the schema before formatting; the API lets a few deprecated
      // values through (`trailingComma: true` for JSON). Same check, same message as the CLI; the options
      // of the shipped plugins the config lists are part of the schema, as they are for the CLI.
      const rejected = schemaError(settings, schemaWith(loaded.schema, fromProject.plugins));
      if (rejected) return { kind: 'error', ...rejected };
      // A parser may come from a shipped plugin the config lists; otherwise it must be Prettier's own.
      const parserFromProject = parser !== undefined && fromProject.plugins.some((plugin) => parser! in (plugin.parsers ?? {}));
      const base = parserFromProject ? loaded.plugins : await pluginsFor(loaded, parser);
      if (base === 'omitted') {
        return { kind: 'unsupported', reason: `prettier parser "${parser}" is left out of this build of formatbox (its optional parsers are not bundled)` };
      }
      if (!base) {
        // Neither Prettier's own parser nor one of a plugin the config lists: Prettier's CLI stops here
        // with this message and formats nothing, so this is the config's error, not a missing feature.
        return { kind: 'error', message: `Couldn't resolve parser "${parser}". (It is neither Prettier's own nor a parser of a plugin the config lists.)`, setting: 'parser' };
      }
      let plugins = [...base, ...fromProject.plugins];
      if ((request.path.endsWith('.js.flow') || (FLOW_EMBEDDING_LANGUAGES.has(request.language) && EMBEDS_FLOW.test(request.text))) && !plugins.some((plugin) => 'flow' in (plugin.parsers ?? {}))) {
        const flow = await pluginsFor(loaded, 'flow');
        if (flow === 'omitted' || !flow) return { kind: 'unsupported', reason: 'the file is or embeds Flow code, and Prettier\'s flow parser is left out of this build of formatbox' };
        plugins = [...flow, ...fromProject.plugins];
      }

      // LF in, LF out; the engine then writes Prettier's own `endOfLine` (default lf, `auto`: the first CR
      // decides), for the shipped plugins' languages too (Prettier's core prints every plugin's line ends).
      // Any other value goes to Prettier as written, which rejects it as its CLI does.
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
        // requirePragma: without a pragma Prettier returns the file untouched, its line endings included,
        // where the engine would otherwise write `endOfLine`. Prettier's own answer says which: it formats
        // the file once the requirement is off, or (already formatted) inserts a pragma when asked to.
        if (settings.requirePragma === true && text === request.text && !request.range) {
          const loose = { ...prettierOptions, requirePragma: false };
          const plain = await loaded.format(request.text, loose);
          if (plain !== text || (await loaded.format(request.text, { ...loose, insertPragma: true })) !== plain) {
            return { kind: 'unsupported', reason: 'requirePragma is set and the file has no @format or @prettier pragma (Prettier leaves it as written)' };
          }
        }
        const ending = lineEnding ? { lineEnding } : {};
        // A file of a plugin's language: the receipt names the plugin build that printed it.
        const printer = fromProject.used.find((entry) => (entry.plugin.languages ?? []).some((language) => (language.extensions ?? []).some((extension) => request.path.endsWith(extension)) || (language.filenames ?? []).includes(request.path.slice(request.path.lastIndexOf('/') + 1))));
        if (printer) return { kind: 'ok', text, ...ending, formatter: { name: printer.package, version: `${printer.version} on prettier ${versionOf(await core.get())}`, via: 'js' } };
        return { kind: 'ok', text, ...ending };
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

/** The schema plus the options the given plugins declare (a plugin's option of the same name wins). */
function schemaWith(schema: Map<string, SupportOption>, plugins: Plugin[]): Map<string, SupportOption> {
  if (plugins.length === 0) return schema;
  const out = new Map(schema);
  for (const plugin of plugins) {
    for (const [name, option] of Object.entries((plugin.options ?? {}) as Record<string, { type?: unknown; choices?: Array<{ value: unknown }> }>)) {
      out.set(name, { name, type: String(option.type), ...(option.choices ? { choices: option.choices } : {}) });
    }
  }
  return out;
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
