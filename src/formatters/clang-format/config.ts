/** `.clang-format` / `_clang-format` (YAML, one document per language), read as data. */
import type { IgnoredItem } from '../../core/types.js';
import { isRecord, parseData } from '../../config/data.js';
import { baseOf, dirOf, isUnder } from '../../config/paths.js';
import { NOT_READ_REASON } from '../../config/config-error.js';

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
