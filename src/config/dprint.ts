/**
 * dprint.json / dprint.jsonc (and the dotted names) read as data: which of the plugins formatbox
 * ships the project declares (`toml`, `markdown`, `json`, by the plugin URL or path naming them, or by
 * a section of that name), and the settings they get: dprint's global keys (`lineWidth`,
 * `indentWidth`, `useTabs`) plus the plugin's section. Plugins are never downloaded or loaded from
 * the project: formatbox runs its own copy of the same plugin. `extends` is never followed.
 */
import type { IgnoredItem } from '../core/types.js';
import { isRecord, parseData } from './data.js';
import { baseOf, dirOf } from './paths.js';
import { truncate } from './prettier.js';

export const DPRINT_CONFIG_NAMES = ['dprint.json', 'dprint.jsonc', '.dprint.json', '.dprint.jsonc'];

/** The dprint plugins formatbox ships, by the section name dprint.json gives them. */
export const DPRINT_PLUGINS = ['toml', 'markdown', 'json', 'dockerfile'] as const;
export type DprintPluginName = (typeof DPRINT_PLUGINS)[number];

const GLOBAL_KEYS = ['lineWidth', 'indentWidth', 'useTabs'];

export interface DprintConfigFile {
  dir: string;
  file: string;
  plugins: Set<DprintPluginName>;
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
    for (const name of DPRINT_PLUGINS) {
      // `https://plugins.dprint.dev/markdown-0.17.8.wasm`, `./node_modules/@dprint/json/plugin.wasm`, …
      const named = new RegExp(`(^|[/@])(dprint-plugin-)?${name}([-/.@]|$)`, 'i');
      if (listed.some((p) => named.test(p)) || isRecord(config[name])) plugins.add(name);
    }
    if (plugins.size === 0) continue;
    const global: Record<string, unknown> = {};
    for (const key of GLOBAL_KEYS) if (config[key] !== undefined) global[key] = config[key];
    const settings = {} as Record<DprintPluginName, Record<string, unknown>>;
    for (const name of DPRINT_PLUGINS) settings[name] = { ...global, ...(isRecord(config[name]) ? { [name]: config[name] } : {}) };
    out.push({ dir: dirOf(file), file, plugins, settings });
  }
  return out;
}
