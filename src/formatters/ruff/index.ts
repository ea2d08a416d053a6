/**
 * Ruff's formatter (Python): declared by `[tool.ruff]`, `ruff.toml` or `.ruff.toml`, or black-style by
 * `[tool.black]` (Ruff comes before black). The official `@astral-sh/ruff-wasm-web` formats; given
 * alone, `@wasm-fmt/ruff_fmt` (the edge profile's) is the Python formatter.
 */
import { clampEach, clampKeys } from '../../config/clamp.js';
import { nearest } from '../../config/paths.js';
import type { FormatterModule } from '../module.js';
import { ruffPin } from './pin.js';
import { loadRuffConfigs, RUFF_CONFIG_NAMES, ruffSettingsFor, type RuffConfigFile } from './config.js';
import { ruffExcludes } from './exclude.js';

export interface RuffPart {
  ruff: RuffConfigFile[];
  /** `[tool.black]` tables: black-style formatting, done by Ruff's formatter. */
  black: RuffConfigFile[];
}

export const ruff: FormatterModule<RuffPart, object, 'ruff' | 'ruff_fmt'> = {
  id: 'ruff',
  displayName: 'Ruff',
  adapterNames: ['ruff'],
  languages: ['python'],
  configFiles: RUFF_CONFIG_NAMES,
  defaults: { python: 'ruff' },
  pin: ruffPin,
  wasm: [
    { name: 'ruff', package: '@astral-sh/ruff-wasm-web', source: 'ruff_wasm_bg.wasm', file: 'ruff_wasm_bg.wasm' },
    { name: 'ruff_fmt', package: '@wasm-fmt/ruff_fmt', source: 'ruff_fmt_bg.wasm', file: 'ruff_fmt_bg.wasm' },
  ],
  project: {
    empty: () => ({ ruff: [], black: [] }),
    load(part, files, { ignored, all }) {
      const { ruff, black } = loadRuffConfigs(files, ignored, all);
      part.ruff.push(...ruff);
      part.black.push(...black);
    },
    clamp: (part, ignored) => clampEach([...part.ruff, ...part.black], ignored, (config, clamped) => clampKeys(config.settings, ['indent-width'], config.file, '', 'Ruff', clamped), (config) => config.ignored),
  },
  declares(project, path, language) {
    if (language !== 'python') return undefined;
    const config = nearest(project.ruff, path);
    if (config) {
      // As `ruff format --force-exclude` (what editors run on save) treats a file named on its command line.
      const excluded = config.error ? undefined : ruffExcludes(config, path);
      if (excluded) return { skip: `${excluded}; Ruff leaves it alone` };
      return { formatter: 'ruff', because: `${config.file}${config.file.endsWith('pyproject.toml') ? ' [tool.ruff]' : ''} declares Ruff` };
    }
    const black = nearest(project.black, path);
    return black ? { formatter: 'ruff', because: `${black.file} [tool.black] declares black-style formatting, done by Ruff's formatter` } : undefined;
  },
  settings(project, _adapter, path) {
    const config = nearest(project.ruff, path) ?? nearest(project.black, path);
    const ignored = config ? [...config.ignored] : [];
    if (config?.error) return { settings: {}, ignored, error: config.error };
    // Ruff's loader judges the whole table (unknown keys, wrong types) in the adapter.
    const configSources = config?.source ? [{ file: config.file, text: config.source.text, options: config.source.options }] : undefined;
    const forPath = config ? ruffSettingsFor(config, path) : { settings: {} };
    if (forPath.error) return { settings: {}, ignored, error: forPath.error };
    return { settings: forPath.settings, ignored, ...(configSources ? { configSources } : {}) };
  },
};
