/**
 * The smaller declarations: go.mod (gofmt), Cargo.toml + rustfmt.toml (rustfmt), .clang-format,
 * and TOML formatting declared by taplo.toml (dprint.json: see dprint.ts). Toolchain files are listed as ignored: they never redirect
 * which binary runs and never trigger a download.
 */
import type { IgnoredItem } from '../core/types.js';
import { isRecord, parseData } from './data.js';
import { baseOf, dirOf, isUnder } from './paths.js';
import { NOT_READ_REASON } from './config-error.js';
import { truncate } from '../formatters/prettier/config.js';

export interface GoModule {
  dir: string;
  file: string;
}

export function loadGoModules(files: Record<string, string | null>, ignored: IgnoredItem[]): GoModule[] {
  const out: GoModule[] = [];
  for (const [file, text] of Object.entries(files)) {
    if (baseOf(file) !== 'go.mod') continue;
    out.push({ dir: dirOf(file), file });
    const toolchain = /^\s*toolchain\s+(\S+)/m.exec(text ?? '');
    if (toolchain) ignored.push({ file, item: `toolchain ${truncate(toolchain[1] ?? '')}`, reason: 'toolchain lines never redirect which binary runs or trigger a download (gofmt runs as wasm)' });
  }
  return out;
}

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

export interface ClangFormatFile {
  dir: string;
  file: string;
  /** YAML documents; each may carry a `Language` key. */
  documents: Array<Record<string, unknown>>;
}

export const CLANG_FORMAT_NAMES = ['.clang-format', '_clang-format'];

export function loadClangFormat(files: Record<string, string | null>, ignored: IgnoredItem[]): ClangFormatFile[] {
  const out = new Map<string, ClangFormatFile>();
  for (const [file, text] of Object.entries(files)) {
    const base = baseOf(file);
    if (!CLANG_FORMAT_NAMES.includes(base)) continue;
    const dir = dirOf(file);
    if (out.has(dir) && base === '_clang-format') continue;
    if (text === null || text === undefined) {
      ignored.push({ file, item: base, reason: `${NOT_READ_REASON}; LLVM style is used` });
      out.set(dir, { dir, file, documents: [] });
      continue;
    }
    const documents: Array<Record<string, unknown>> = [];
    // clang-format files may hold several YAML documents, one per language.
    for (const chunk of text.split(/^---\s*$/m)) {
      const body = chunk.replace(/^\.\.\.\s*$/gm, '');
      if (body.replace(/^\s*(#.*)?$/gm, '').trim() === '') continue;
      const parsed = parseData(body, 'yaml');
      if (parsed.ok && isRecord(parsed.value)) documents.push(parsed.value);
      else ignored.push({ file, item: base, reason: parsed.ok ? 'a document is not a mapping' : parsed.reason });
    }
    out.set(dir, { dir, file, documents });
  }
  return [...out.values()];
}

const CLANG_LANGUAGE: Record<string, string> = { c: 'Cpp', cpp: 'Cpp', java: 'Java', proto: 'Proto', csharp: 'CSharp', javascript: 'JavaScript', 'objective-c': 'ObjC', verilog: 'Verilog', textproto: 'TextProto' };

/** `{ style }` for clang-format's `--style`: the nearest file's document for the language, as a JSON (YAML flow) string. */
export function clangFormatSettingsFor(files: readonly ClangFormatFile[], path: string, language: string): { style: string } {
  const chain = files.filter((f) => isUnder(f.dir, path)).sort((a, b) => b.dir.length - a.dir.length);
  const merged: Record<string, unknown> = {};
  for (const file of chain) {
    const wanted = CLANG_LANGUAGE[language];
    const document = file.documents.find((d) => d.Language === wanted) ?? file.documents.find((d) => d.Language === undefined) ?? {};
    const { Language: _language, ...rest } = document;
    for (const [key, value] of Object.entries(rest)) if (!(key in merged)) merged[key] = value;
    if (merged.BasedOnStyle === 'InheritParentConfig') delete merged.BasedOnStyle;
    else break;
  }
  if (Object.keys(merged).length === 0) return { style: '{BasedOnStyle: LLVM}' };
  return { style: JSON.stringify(merged) };
}

/** TOML formatting is declared by taplo's config or a dprint config with a TOML plugin. */
export function loadTomlDeclarations(files: Record<string, string | null>): Array<{ dir: string; file: string }> {
  const out: Array<{ dir: string; file: string }> = [];
  for (const file of Object.keys(files)) {
    const base = baseOf(file);
    if (base === 'taplo.toml' || base === '.taplo.toml') out.push({ dir: dirOf(file), file });
  }
  return out;
}
