/**
 * rustfmt (Rust): declared by Cargo.toml or rustfmt.toml. No in-process build exists: the universal
 * built-in answers `skipped` with the reason (unavailable.ts); the Node runtime registers the
 * sandboxed subprocess adapter of the same name (command.ts, src/node) after it.
 */
import { clampEach, clampItem, MAX_UNTRUSTED_INDENT } from '../../config/clamp.js';
import { truncate } from '../../config/data.js';
import { dirOf, isUnder, nearest } from '../../config/paths.js';
import type { FormatterModule } from '../module.js';
import { loadRust, rustfmtSettingsFor, type CargoManifest, type RustfmtConfig } from './config.js';

export interface RustfmtPart {
  cargo: CargoManifest[];
  rustfmt: RustfmtConfig[];
}

export const rustfmt: FormatterModule<RustfmtPart> = {
  id: 'rustfmt',
  displayName: 'rustfmt',
  adapterNames: ['rustfmt'],
  languages: ['rust'],
  // Toolchain files are read to be listed as ignored: they never redirect which binary runs.
  configFiles: ['Cargo.toml', 'rustfmt.toml', '.rustfmt.toml', 'rust-toolchain', 'rust-toolchain.toml'],
  defaults: { rust: 'rustfmt' },
  wasm: [],
  project: {
    empty: () => ({ cargo: [], rustfmt: [] }),
    load(part, files, { ignored }) {
      const { cargo, rustfmt } = loadRust(files, ignored);
      part.cargo.push(...cargo);
      part.rustfmt.push(...rustfmt);
    },
    clamp: (part, ignored) =>
      clampEach(part.rustfmt, ignored, (config, clamped) => {
        config.text = config.text.replace(/^(\s*tab_spaces\s*=\s*)(\d+)/m, (whole, key: string, value: string) => {
          if (Number(value) <= MAX_UNTRUSTED_INDENT) return whole;
          clamped.push(clampItem(config.file, `tab_spaces = ${truncate(value, 40)}`, value, 'rustfmt'));
          return `${key}${MAX_UNTRUSTED_INDENT}`;
        });
      }),
  },
  declares(project, path, language) {
    if (language !== 'rust') return undefined;
    const manifest = nearest(project.cargo, path) ?? nearest(project.rustfmt, path);
    return manifest ? { formatter: 'rustfmt', because: `${manifest.file} declares Rust (rustfmt, edition ${rustfmtSettingsFor(project.cargo, project.rustfmt, path).edition})` } : undefined;
  },
  settings: (project, _adapter, path) => ({
    settings: rustfmtSettingsFor(project.cargo, project.rustfmt, path),
    ignored: project.ignored.filter((i) => /(^|\/)(rust-toolchain(\.toml)?|\.?rustfmt\.toml)$/.test(i.file) && isUnder(dirOf(i.file), path)),
  }),
};
