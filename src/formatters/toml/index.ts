/**
 * TOML through dprint-plugin-toml: declared by taplo's config (`taplo.toml`, `.taplo.toml`: a
 * declaration only) or a dprint config with the TOML plugin (its settings).
 */
import { baseOf, dirOf, nearest } from '../../config/paths.js';
import type { FormatterModule } from '../module.js';
import { dprintSettings, type DprintPart } from '../dprint/index.js';

export interface TomlPart {
  /** taplo.toml / .taplo.toml: TOML formatting declared. */
  toml: Array<{ dir: string; file: string }>;
}

/** TOML formatting is declared by taplo's config or a dprint config with a TOML plugin. */
export function loadTomlDeclarations(files: Readonly<Record<string, string | null>>): Array<{ dir: string; file: string }> {
  const out: Array<{ dir: string; file: string }> = [];
  for (const file of Object.keys(files)) {
    const base = baseOf(file);
    if (base === 'taplo.toml' || base === '.taplo.toml') out.push({ dir: dirOf(file), file });
  }
  return out;
}

export const toml: FormatterModule<TomlPart, DprintPart, 'toml'> = {
  id: 'toml',
  displayName: 'the TOML formatter',
  adapterNames: ['toml'],
  languages: ['toml'],
  configFiles: ['taplo.toml', '.taplo.toml'],
  defaults: { toml: 'toml' },
  wasm: [{ name: 'toml', package: '@dprint/toml', source: 'plugin.wasm', file: 'dprint-toml.wasm' }],
  project: {
    empty: () => ({ toml: [] }),
    load: (part, files) => part.toml.push(...loadTomlDeclarations(files)),
  },
  declares(project, path, language) {
    if (language !== 'toml') return undefined;
    const declaration = nearest([...project.toml, ...project.dprint.filter((d) => d.plugins.has('toml'))], path);
    return declaration ? { formatter: 'toml', because: `${declaration.file} declares TOML formatting` } : undefined;
  },
  settings: (project, _adapter, path) => dprintSettings(project.dprint, 'toml', path, project.ignored, nearest(project.toml, path)),
};
