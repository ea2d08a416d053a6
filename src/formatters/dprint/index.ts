/**
 * dprint's wasm plugins for Markdown, JSON and Dockerfile: declared by a dprint config that lists the
 * plugin (the most specific declaration, checked first). Its TOML plugin is the `toml` formatter.
 */
import { clampDeep, clampEach, dedupeClamps } from '../../config/clamp.js';
import type { IgnoredItem } from '../../core/types.js';
import { nearest } from '../../config/paths.js';
import type { FormatterModule, ResolvedSettings } from '../module.js';
import { dprintPin } from './pin.js';
import { DPRINT_CONFIG_NAMES, DPRINT_PLUGIN_LANGUAGES, DPRINT_PLUGINS, loadDprintConfigs, type DprintConfigFile, type DprintPluginName } from './config.js';
import { EMBEDDED_SETTINGS_KEY, type EmbeddedPlugins } from './embedded.js';

export interface DprintPart {
  /** dprint configs that declare a plugin formatbox ships (toml, markdown, json, dockerfile). */
  dprint: DprintConfigFile[];
}

/** Languages a shipped dprint plugin (other than TOML's) formats, and the plugin (its dprint.json section name). */
const DPRINT_LANGUAGES: Readonly<Record<string, DprintPluginName>> = Object.fromEntries(
  DPRINT_PLUGINS.filter((plugin) => plugin !== 'toml').flatMap((plugin) => DPRINT_PLUGIN_LANGUAGES[plugin].map((language) => [language, plugin])),
);


/**
 * dprint.json settings for a plugin (global keys and the plugin's section). A nearer `taplo.toml`
 * (`tomlDeclarations`) takes TOML over: it is only a declaration, so the settings are empty.
 */
export function dprintSettings(configs: readonly DprintConfigFile[], plugin: DprintPluginName, path: string, ignoredItems: ResolvedSettings['ignored'], nearer?: { dir: string }): ResolvedSettings {
  const dprint = nearest(configs.filter((d) => d.plugins.has(plugin)), path);
  if (!dprint || (nearer && nearer.dir.length > dprint.dir.length)) return { settings: {}, ignored: [] };
  return { settings: dprint.settings[plugin], ignored: ignoredItems.filter((i) => i.file === dprint.file) };
}

export const dprint: FormatterModule<DprintPart, object, 'dprint-markdown' | 'dprint-json' | 'dprint-dockerfile'> = {
  id: 'dprint',
  displayName: 'dprint',
  adapterNames: ['dprint:markdown', 'dprint:json', 'dprint:dockerfile'],
  languages: ['markdown', 'json', 'jsonc', 'dockerfile'],
  configFiles: DPRINT_CONFIG_NAMES,
  defaults: { dockerfile: 'dprint:dockerfile' },
  pin: dprintPin,
  wasm: [
    // The dprint plugins are all `plugin.wasm` in their packages; published under distinct names.
    { name: 'dprint-markdown', package: '@dprint/markdown', source: 'plugin.wasm', file: 'dprint-markdown.wasm' },
    { name: 'dprint-json', package: '@dprint/json', source: 'plugin.wasm', file: 'dprint-json.wasm' },
    { name: 'dprint-dockerfile', package: '@dprint/dockerfile', source: 'plugin.wasm', file: 'dprint-dockerfile.wasm' },
  ],
  project: {
    empty: () => ({ dprint: [] }),
    load: (part, files, { ignored }) => part.dprint.push(...loadDprintConfigs(files, ignored)),
    clamp: (part, ignored) =>
      clampEach(part.dprint, ignored, (config, clamped) => {
        const all: IgnoredItem[] = [];
        for (const settings of Object.values(config.settings)) clampDeep(settings, ['indentWidth'], config.file, '', 'dprint', all);
        clamped.push(...dedupeClamps(all));
      }),
  },
  declares(project, path, language) {
    const plugin = DPRINT_LANGUAGES[language];
    if (!plugin) return undefined;
    const config = nearest(project.dprint.filter((d) => d.plugins.has(plugin)), path);
    return config ? { formatter: `dprint:${plugin}`, because: `${config.file} declares dprint's ${plugin} plugin` } : undefined;
  },
  settings(project, adapter, path) {
    const plugin = adapter.slice('dprint:'.length) as DprintPluginName;
    const resolved = dprintSettings(project.dprint, plugin, path, project.ignored);
    const config = plugin === 'markdown' ? nearest(project.dprint.filter((d) => d.plugins.has('markdown')), path) : undefined;
    if (!config) return resolved;
    // The dprint CLI formats Markdown's code blocks with the other plugins the config lists.
    const embedded: EmbeddedPlugins = { plugins: Object.fromEntries([...config.plugins].map((name) => [name, config.settings[name]])), unrun: [...config.unrunPlugins, ...config.localPlugins] };
    return { ...resolved, settings: { ...resolved.settings, [EMBEDDED_SETTINGS_KEY]: embedded } };
  },
};

