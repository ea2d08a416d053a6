/**
 * dprint.json / dprint.jsonc (and the dotted names) read as data: which of the plugins formatbox
 * ships the project declares (`toml`, `markdown`, `json`, by the plugin URL or path naming them, or by
 * a section of that name), and the settings they get: dprint's global keys (`lineWidth`,
 * `indentWidth`, `useTabs`) plus the plugin's section. Plugins are never downloaded or loaded from
 * the project: formatbox runs its own copy of the same plugin. `extends` is never followed.
 */
import type { IgnoredItem } from '../../core/types.js';
import { isRecord, parseData, truncate } from '../../config/data.js';
import { baseOf, dirOf } from '../../config/paths.js';

export const DPRINT_CONFIG_NAMES = ['dprint.json', 'dprint.jsonc', '.dprint.json', '.dprint.jsonc'];

/** The dprint plugins formatbox ships, by the section name dprint.json gives them. */
export const DPRINT_PLUGINS = ['toml', 'markdown', 'json', 'dockerfile'] as const;
export type DprintPluginName = (typeof DPRINT_PLUGINS)[number];
/** The languages each shipped plugin formats (TOML's is the `toml` formatter's). */
export const DPRINT_PLUGIN_LANGUAGES: Readonly<Record<DprintPluginName, readonly string[]>> = { toml: ['toml'], markdown: ['markdown'], json: ['json', 'jsonc'], dockerfile: ['dockerfile'] };

const GLOBAL_KEYS = ['lineWidth', 'indentWidth', 'useTabs'];

export interface DprintConfigFile {
  dir: string;
  file: string;
  plugins: Set<DprintPluginName>;
  /**
   * `.wasm` plugins inside the repository that are none of the shipped ones, as project-relative
   * paths: run through the dprint plugin ABI (capped, hashed, in the formatter worker) by the Node runtime.
   */
  localPlugins: string[];
  /** dprint's global keys and every plugin section (objects), for a local plugin's configuration. */
  raw: Record<string, unknown>;
  /** Listed plugins formatbox runs for no file here (a URL it never downloads), as written: they may claim Markdown's code blocks. */
  unrunPlugins: string[];
  /** Per plugin: the global keys and that plugin's section, as the adapter takes them. */
  settings: Record<DprintPluginName, Record<string, unknown>>;
}

export function loadDprintConfigs(files: Record<string, string | null>, ignored: IgnoredItem[]): DprintConfigFile[] {
  const out: DprintConfigFile[] = [];
  for (const [file, text] of Object.entries(files)) {
    if (!DPRINT_CONFIG_NAMES.includes(baseOf(file)) || !text) continue;
    const parsed = parseData(text, 'jsonc');
    if (!parsed.ok || !isRecord(parsed.value)) {
      ignored.push({ file, item: baseOf(file), reason: parsed.ok ? 'not a JSON object' : parsed.reason });
      continue;
    }
    const config = parsed.value;
    if (config.extends !== undefined) {
      ignored.push({ file, item: `extends: ${truncate(JSON.stringify(config.extends) ?? '')}`, reason: 'extends (URLs and paths) is never followed in untrusted mode' });
    }
    const plugins = new Set<DprintPluginName>();
    const listed = Array.isArray(config.plugins) ? config.plugins.filter((p): p is string => typeof p === 'string') : [];
    const shippedName = (p: string) => DPRINT_PLUGINS.find((name) => new RegExp(`(^|[/@])(dprint-plugin-)?${name}([-/.@]|$)`, 'i').test(p));
    for (const name of DPRINT_PLUGINS) {
      // `https://plugins.dprint.dev/markdown-0.17.8.wasm`, `./node_modules/@dprint/json/plugin.wasm`, …
      if (listed.some((p) => shippedName(p) === name) || isRecord(config[name])) plugins.add(name);
    }
    const localPlugins: string[] = [];
    const unrunPlugins: string[] = [];
    for (const entry of listed.filter((p) => !shippedName(p))) {
      const local = localPluginPath(dirOf(file), entry);
      if (local) localPlugins.push(local);
      else {
        unrunPlugins.push(entry);
        ignored.push({ file, item: `plugins: ${truncate(entry)}`, reason: /^[a-z][a-z0-9+.-]*:/i.test(entry) ? 'a plugin URL is never downloaded; formatbox runs only the plugins it ships and .wasm files inside the repository' : 'not a .wasm file inside the project' });
      }
    }
    if (plugins.size === 0 && localPlugins.length === 0) continue;
    const global: Record<string, unknown> = {};
    for (const key of GLOBAL_KEYS) if (config[key] !== undefined) global[key] = config[key];
    const settings = {} as Record<DprintPluginName, Record<string, unknown>>;
    for (const name of DPRINT_PLUGINS) settings[name] = { ...global, ...(isRecord(config[name]) ? { [name]: config[name] } : {}) };
    const raw: Record<string, unknown> = { ...global };
    for (const [key, value] of Object.entries(config)) if (isRecord(value)) raw[key] = value;
    out.push({ dir: dirOf(file), file, plugins, localPlugins, unrunPlugins, raw, settings });
  }
  return out;
}

/**
 * A plugin entry that names a `.wasm` file inside the project (`./plugins/fmt.wasm`, `tools/x.wasm`,
 * dprint's `@checksum` suffix allowed), as a project-relative path; undefined for URLs, absolute
 * paths and paths that leave the project.
 */
function localPluginPath(dir: string, entry: string): string | undefined {
  const path = entry.replace(/@[0-9a-f]{64}$/i, '');
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('/') || path.includes('\\') || !path.toLowerCase().endsWith('.wasm')) return undefined;
  const parts: string[] = dir === '' ? [] : dir.split('/');
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(segment);
  }
  return parts.length > 0 ? parts.join('/') : undefined;
}
