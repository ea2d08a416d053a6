/**
 * dprint wasm plugins (`@dprint/toml`, `@dprint/markdown`, `@dprint/json`: wasm with no imports at
 * all) run in-process by `@dprint/formatter`, in every runtime.
 *
 * `settings` is dprint configuration: `lineWidth`, `indentWidth` and `useTabs` are dprint's global
 * keys; the rest goes to the plugin. `newLineKind` is forced to `lf` (the engine restores the file's
 * own line endings). Unknown keys are dropped; a known key with a bad value is an error, as it is for
 * the dprint CLI. A trap leaves the plugin instance unusable, so the next call makes a new one.
 *
 * No range formatting: the plugins accept a byte range but format the whole file anyway.
 */
import { createFromWasmModule, type Formatter, type GlobalConfiguration } from '@dprint/formatter';
import { compileWasm, lazy } from '../../core/wasm.js';
import { messageOf } from '../../core/errors.js';
import type { AdapterRequest, AdapterResult, FormatterAdapter, LineEndingPolicy, FormatterInfo, WasmSource } from '../../core/types.js';
import { hostFormatter, splitEmbedded, type EmbeddedHost, type EmbeddedPlugins } from './embedded.js';

export interface DprintPluginOptions {
  /** The plugin's `plugin.wasm` (dprint's wasm plugin ABI; no imports). */
  wasm: WasmSource;
  /** Adapter name: what selection and user config call it (`toml`, `dprint:markdown`). */
  name: string;
  /** The plugin's section in dprint.json (`toml`, `markdown`, `json`): its keys go to the plugin. */
  section: string;
  languages: readonly string[];
  /** The shipped plugins that may format its code blocks (Markdown's), by dprint.json section; used for those the project lists. */
  embedded?: Readonly<Record<string, WasmSource>>;
}

const GLOBAL_KEYS = new Set(['lineWidth', 'indentWidth', 'useTabs']);

/**
 * Splits adapter settings into dprint's global and plugin configuration. `settings` is flat
 * (`{ lineWidth: 100, indentWidth: 4 }`) or in dprint.json shape (global keys plus a `<section>: {…}`).
 */
export function dprintConfig(settings: Record<string, unknown>, section: string): { global: GlobalConfiguration; plugin: Record<string, unknown> } {
  const global: Record<string, unknown> = {};
  const plugin: Record<string, unknown> = {};
  const place = (key: string, value: unknown) => {
    if (value === undefined || key === 'newLineKind') return;
    (GLOBAL_KEYS.has(key) ? global : plugin)[key] = value;
  };
  for (const [key, value] of Object.entries(settings)) {
    if (key === section && value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [inner, innerValue] of Object.entries(value)) {
        if (GLOBAL_KEYS.has(inner)) plugin[inner] = innerValue; // a plugin section may override global keys
        else place(inner, innerValue);
      }
    } else if (key !== section) {
      place(key, value);
    }
  }
  plugin['newLineKind'] = 'lf';
  return { global: { ...global, newLineKind: 'lf' } as GlobalConfiguration, plugin };
}

/**
 * dprint's `newLineKind` (the plugin section's, else the global one): `lf` by default, `crlf`, `system`
 * (LF here), `auto` (the file's last line ending). The plugin is given LF text and `lf`.
 */
export function dprintLineEnding(settings: Record<string, unknown>, section: string): LineEndingPolicy {
  const own = settings[section];
  const value = (own && typeof own === 'object' && !Array.isArray(own) ? (own as Record<string, unknown>)['newLineKind'] : undefined) ?? settings['newLineKind'];
  if (value === 'crlf') return 'crlf';
  if (value === 'auto') return 'last';
  return 'lf';
}

/** One instance of a plugin, with the configuration last set on it. */
interface PluginInstance {
  formatter: Formatter;
  configKey?: string;
  configError?: string;
  /** What it claims under its current configuration (made on first use as a code block's host). */
  claims?: (filePath: string) => boolean;
}

/** Sets the configuration when it changed; returns an error message for a bad value. */
function configure(target: PluginInstance, settings: Record<string, unknown>, section: string): string | undefined {
  const key = JSON.stringify(settings);
  if (key === target.configKey) return target.configError;
  const { global, plugin } = dprintConfig(settings, section);
  // The plugin traps (wasm `unreachable`) on a mistyped global key instead of reporting it.
  const mistyped = mistypedGlobalKey({ ...global, ...plugin });
  if (mistyped) return `invalid ${section} settings: ${mistyped}`;
  target.formatter.setConfig(global, plugin);
  let diagnostics = target.formatter.getConfigDiagnostics();
  const unknown = diagnostics.filter((d) => /unknown property/i.test(d.message));
  if (unknown.length > 0) {
    const globalRecord = global as Record<string, unknown>;
    for (const { propertyName } of unknown) {
      delete plugin[propertyName];
      delete globalRecord[propertyName];
    }
    target.formatter.setConfig(global, plugin);
    diagnostics = target.formatter.getConfigDiagnostics();
  }
  target.configKey = key;
  delete target.claims;
  target.configError = diagnostics.length > 0 ? `invalid ${section} settings: ${diagnostics.map((d) => `${d.propertyName}: ${d.message}`).join('; ')}` : undefined;
  return target.configError;
}

/** Whether a plugin claims `filePath`, by its file matching info (extensions, file names), as the dprint CLI resolves it. */
function claimsOf(formatter: Formatter): (filePath: string) => boolean {
  const { fileExtensions, fileNames } = formatter.getFileMatchingInfo();
  const extensions = new Set(fileExtensions.map((e) => e.replace(/^\./, '').toLowerCase()));
  const names = new Set((fileNames ?? []).map((n) => n.toLowerCase()));
  return (filePath) => {
    const base = filePath.slice(filePath.lastIndexOf('/') + 1).toLowerCase();
    return names.has(base) || extensions.has(base.slice(base.lastIndexOf('.') + 1));
  };
}

/** A dprint wasm plugin run in-process by `@dprint/formatter`. `info()` reports the plugin's own name and version. */
export function dprintPluginFormatter(options: DprintPluginOptions): FormatterAdapter {
  const what = `dprint plugin ${options.section}`;
  const module = lazy(() => compileWasm(options.wasm, what));
  let main: PluginInstance | undefined;
  /** The plugins that format code blocks (Markdown), one instance each, made on first use. */
  const embedded = new Map<string, Promise<PluginInstance>>();

  async function instance(): Promise<PluginInstance> {
    if (main) return main;
    main = { formatter: createFromWasmModule(await module.get(), { onOutput: () => {} }) };
    return main;
  }

  function embeddedInstance(section: string, wasm: WasmSource): Promise<PluginInstance> {
    let made = embedded.get(section);
    if (!made) {
      made = compileWasm(wasm, `dprint plugin ${section}`).then((compiled) => ({ formatter: createFromWasmModule(compiled, { onOutput: () => {} }) }));
      embedded.set(section, made);
    }
    return made;
  }

  /** The hosts for this call's code blocks: each shipped plugin the project lists, configured as the project configures it. */
  async function hostsFor(plugins: EmbeddedPlugins['plugins']): Promise<EmbeddedHost[] | string> {
    const hosts: EmbeddedHost[] = [];
    for (const [section, settings] of Object.entries(plugins)) {
      const wasm = options.embedded?.[section];
      if (!wasm) continue;
      const target = await embeddedInstance(section, wasm);
      const invalid = configure(target, settings, section);
      if (invalid) return invalid;
      // A code block inside a code block is left as written (the instance is busy with the outer one).
      target.formatter.setHostFormatter(undefined);
      const format = (request: Parameters<EmbeddedHost['format']>[0]): string => {
        try {
          return target.formatter.formatText(request);
        } catch (thrown) {
          // The block stays as written (the markdown plugin's answer to a failed block); a trapped instance is made again.
          if (thrown instanceof WebAssembly.RuntimeError) embedded.delete(section);
          throw thrown;
        }
      };
      hosts.push({ claims: (target.claims ??= claimsOf(target.formatter)), format });
    }
    return hosts;
  }

  return {
    name: options.name,
    via: 'wasm',
    languages: options.languages,
    supportsRange: false,

    async info(): Promise<FormatterInfo> {
      const { name, version } = (await instance()).formatter.getPluginInfo();
      return { name, version, via: 'wasm' };
    },

    async format(request: AdapterRequest): Promise<AdapterResult> {
      const target = await instance();
      const { settings, embedded: listed } = splitEmbedded(request.settings);
      try {
        const invalid = configure(target, settings, options.section);
        if (invalid) return { kind: 'error', message: invalid };
        const hosts = listed ? await hostsFor(listed.plugins) : [];
        if (typeof hosts === 'string') return { kind: 'error', message: hosts };
        const blocked: string[] = [];
        // A listed plugin this adapter was not given (a pinned build runs alone) may claim blocks too.
        const unrun = listed ? [...listed.unrun, ...Object.keys(listed.plugins).filter((section) => !options.embedded?.[section])] : [];
        target.formatter.setHostFormatter(listed ? hostFormatter(hosts, unrun, blocked) : undefined);
        const text = target.formatter.formatText({ filePath: request.path, fileText: request.text });
        if (blocked.length > 0) return { kind: 'unsupported', reason: `the file has ${blocked[0]}` };
        return { kind: 'ok', text, lineEnding: dprintLineEnding(settings, options.section) };
      } catch (thrown) {
        if (thrown instanceof WebAssembly.RuntimeError) {
          // A trap leaves the plugin instances unusable; the next call makes new ones.
          main = undefined;
          embedded.clear();
          return { kind: 'error', message: `${what} failed: ${messageOf(thrown)}` };
        }
        return { kind: 'error', message: locateDprintError(messageOf(thrown)) };
      }
    },

    async preload() {
      await instance();
    },

    dispose() {
      main = undefined;
      embedded.clear();
    },
  };
}

/** dprint's global keys must be a positive integer (lineWidth, indentWidth) or a boolean (useTabs). */
function mistypedGlobalKey(config: Record<string, unknown>): string | undefined {
  for (const key of ['lineWidth', 'indentWidth']) {
    const value = config[key];
    if (value !== undefined && !(Number.isInteger(value) && (value as number) > 0 && (value as number) <= (key === 'indentWidth' ? 255 : 1e6))) {
      return `${key}: expected a positive integer, got ${JSON.stringify(value)}`;
    }
  }
  if (config['useTabs'] !== undefined && typeof config['useTabs'] !== 'boolean') {
    return `useTabs: expected true or false, got ${JSON.stringify(config['useTabs'])}`;
  }
  return undefined;
}

/** `Line 1, column 5: expected a value\n\n  a = = 1\n      ~` → `1:5: expected a value`. */
export function locateDprintError(message: string): string {
  const first = message.trim().split('\n', 1)[0] ?? message;
  const match = /^Line (\d+), column (\d+): (.*)$/.exec(first);
  return match ? `${match[1]}:${match[2]}: ${match[3]}` : first;
}
