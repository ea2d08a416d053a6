/**
 * Cargo.toml (the edition) and rustfmt.toml (read as data, handed to rustfmt as its only config).
 * Toolchain files are listed as ignored: they never redirect which binary runs.
 */
import type { IgnoredItem } from '../../core/types.js';
import { isRecord, parseData, truncate } from '../../config/data.js';
import { baseOf, dirOf, isUnder } from '../../config/paths.js';
import { NOT_READ_REASON } from '../../config/config-error.js';

export interface CargoManifest {
  dir: string;
  file: string;
  edition?: string;
  /** `edition.workspace = true`: take `[workspace.package] edition` from the workspace root. */
  inheritsEdition: boolean;
  workspaceEdition?: string;
  isWorkspace: boolean;
}

export interface RustfmtConfig {
  dir: string;
  file: string;
  text: string;
}

const EDITIONS = new Set(['2015', '2018', '2021', '2024']);

export function loadRust(files: Record<string, string | null>, ignored: IgnoredItem[]): { cargo: CargoManifest[]; rustfmt: RustfmtConfig[] } {
  const cargo: CargoManifest[] = [];
  const rustfmt = new Map<string, RustfmtConfig>();
  for (const [file, text] of Object.entries(files)) {
    const base = baseOf(file);
    const dir = dirOf(file);
    if (base === 'rust-toolchain' || base === 'rust-toolchain.toml') {
      ignored.push({ file, item: base, reason: 'toolchain files never redirect which binary runs (rustfmt is called directly, inside the sandbox)' });
    } else if (base === 'Cargo.toml') {
      const manifest: CargoManifest = { dir, file, inheritsEdition: false, isWorkspace: false };
      const parsed = text === null || text === undefined ? undefined : parseData(text, 'toml');
      if (parsed && !parsed.ok) ignored.push({ file, item: base, reason: `${parsed.reason}; edition 2021 is assumed` });
      if (parsed?.ok && isRecord(parsed.value)) {
        const pkg = isRecord(parsed.value.package) ? parsed.value.package : undefined;
        const edition = pkg?.edition;
        if (typeof edition === 'string' && EDITIONS.has(edition)) manifest.edition = edition;
        else if (isRecord(edition) && edition.workspace === true) manifest.inheritsEdition = true;
        else if (edition !== undefined) ignored.push({ file, item: `package.edition: ${truncate(String(edition))}`, reason: 'unknown edition; 2021 is assumed' });
        const workspace = isRecord(parsed.value.workspace) ? parsed.value.workspace : undefined;
        if (workspace) {
          manifest.isWorkspace = true;
          const wsEdition = isRecord(workspace.package) ? workspace.package.edition : undefined;
          if (typeof wsEdition === 'string' && EDITIONS.has(wsEdition)) manifest.workspaceEdition = wsEdition;
        }
      }
      cargo.push(manifest);
    } else if (base === 'rustfmt.toml' || base === '.rustfmt.toml') {
      if (rustfmt.has(dir) && base === '.rustfmt.toml') continue; // rustfmt.toml wins in one directory.
      if (text === null || text === undefined) {
        ignored.push({ file, item: base, reason: NOT_READ_REASON });
        continue;
      }
      const parsed = parseData(text, 'toml');
      if (!parsed.ok) {
        ignored.push({ file, item: base, reason: parsed.reason });
        continue;
      }
      rustfmt.set(dir, { dir, file, text });
    }
  }
  return { cargo, rustfmt: [...rustfmt.values()] };
}

/** rustfmt settings for `path`: the nearest Cargo.toml's edition (default 2021) and the nearest rustfmt.toml text. */
export function rustfmtSettingsFor(cargo: readonly CargoManifest[], rustfmt: readonly RustfmtConfig[], path: string): { edition: string; configText?: string } {
  const manifests = cargo.filter((m) => isUnder(m.dir, path)).sort((a, b) => b.dir.length - a.dir.length);
  let edition = '2021';
  const own = manifests[0];
  if (own?.edition) edition = own.edition;
  else if (own) {
    const workspace = manifests.find((m) => m.workspaceEdition);
    if ((own.inheritsEdition || own.isWorkspace) && workspace?.workspaceEdition) edition = workspace.workspaceEdition;
  }
  const config = rustfmt.filter((r) => isUnder(r.dir, path)).sort((a, b) => b.dir.length - a.dir.length)[0];
  return config ? { edition, configText: config.text } : { edition };
}
