/** StyLua (Lua): declared by `stylua.toml` / `.stylua.toml`, formatted by StyLua's own wasm build. */
import { clampEach, clampKeys } from '../../config/clamp.js';
import { nearest } from '../../config/paths.js';
import type { FormatterModule } from '../module.js';
import { loadStyluaConfigs, STYLUA_CONFIG_NAMES, type StyluaConfigFile } from './config.js';

export interface StyluaPart {
  /** stylua.toml / .stylua.toml (Lua). */
  stylua: StyluaConfigFile[];
}

export const stylua: FormatterModule<StyluaPart, object, 'stylua'> = {
  id: 'stylua',
  displayName: 'StyLua',
  adapterNames: ['stylua'],
  languages: ['lua'],
  configFiles: STYLUA_CONFIG_NAMES,
  defaults: { lua: 'stylua' },
  wasm: [{ name: 'stylua', package: '@johnnymorganz/stylua', source: 'stylua_lib_bg.wasm', file: 'stylua_lib_bg.wasm' }],
  project: {
    empty: () => ({ stylua: [] }),
    load: (part, files, { ignored }) => part.stylua.push(...loadStyluaConfigs(files, ignored)),
    clamp: (part, ignored) => clampEach(part.stylua, ignored, (config, clamped) => clampKeys(config.settings, ['indent_width'], config.file, '', 'StyLua', clamped)),
  },
  declares(project, path, language) {
    if (language !== 'lua') return undefined;
    const config = nearest(project.stylua, path);
    return config ? { formatter: 'stylua', because: `${config.file} declares StyLua` } : undefined;
  },
  settings(project, _adapter, path) {
    const config = nearest(project.stylua, path);
    const ignored = config ? project.ignored.filter((i) => i.file === config.file) : [];
    if (config?.error) return { settings: {}, ignored, error: config.error };
    return { settings: config ? config.settings : {}, ignored };
  },
};
