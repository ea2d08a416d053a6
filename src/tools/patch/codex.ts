/**
 * The Codex apply_patch dialect (`*** Begin Patch` … `*** End Patch`), parsed and matched as the
 * public openai/codex `codex-rs/apply-patch` crate does (parser.rs, lib.rs, seek_sequence.rs):
 * - markers may carry surrounding whitespace; a heredoc wrapper (`<<EOF` … `EOF`) is taken off;
 * - in an Update, blank lines before a chunk (after the header, between chunks, after
 *   `*** End of File`) are skipped; the first chunk may omit its `@@`; inside a chunk an empty
 *   line is an empty context line;
 * - each chunk's old lines are sought from the end of the previous chunk: exactly, then ignoring
 *   trailing whitespace, then surrounding whitespace, then with Unicode dashes, quotes and spaces
 *   folded to ASCII; `@@ text` seeks that line first; `*** End of File` seeks only at the end;
 *   a trailing empty old line may stand for the end of the file;
 * - a chunk without old lines (a pure addition) goes at the end of the file (before a final blank
 *   line) and leaves the search position where it was; replacements are then sorted.
 * Where formatbox differs, and why, is in docs/receipts.md ("apply_patch and unified diffs").
 */
import { shownPath } from '../../core/shown.js';
import { bad, type AppliedChunk, type FilePatch, type PatchChunk } from './model.js';
import { lineContent, linesWithEndings } from './lines.js';
import { dominantEol, spliceLines, type Replacement } from './splice.js';

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const END_OF_FILE = '*** End of File';

/** Is this patch text in the Codex dialect? (Its first non-blank line, heredoc aside, is `*** Begin Patch`.) */
export function isCodexPatch(lines: readonly string[]): boolean {
  const body = unwrapHeredoc(lines);
  return (body[0] ?? '').trim() === BEGIN;
}

/** Codex's lenient mode: `<<EOF`, `<<'EOF'` or `<<"EOF"` first, a line ending in `EOF` last. */
function unwrapHeredoc(lines: readonly string[]): readonly string[] {
  const first = lines[0];
  const last = lines[lines.length - 1];
  if ((first === '<<EOF' || first === "<<'EOF'" || first === '<<"EOF"') && last !== undefined && last.endsWith('EOF') && lines.length >= 4) {
    return lines.slice(1, -1);
  }
  return lines;
}

/** Parses a Codex patch. `lines`: the patch text, trimmed, split at `\n` with a CR before it dropped. */
export function parseCodexPatch(lines: readonly string[]): FilePatch[] {
  const all = unwrapHeredoc(lines);
  if ((all[0] ?? '').trim() !== BEGIN) throw bad(`the first line of the patch must be '${BEGIN}'`);
  if (all.length < 2 || (all[all.length - 1] as string).trim() !== END) throw bad(`the last line of the patch must be '${END}'`);
  const body = all.slice(1, -1);
  const files: FilePatch[] = [];
  let i = 0;
  while (i < body.length) {
    const begin = i;
    const { file, next } = parseFileOp(body, i);
    file.source = body.slice(begin, next).join('\n') + '\n';
    files.push(file);
    i = next;
  }
  if (files.length === 0) throw bad('the patch changes no file (Codex: "No files were modified.")');
  return files;
}

function parseFileOp(body: readonly string[], at: number): { file: FilePatch; next: number } {
  const header = (body[at] as string).trim();
  let i = at + 1;
  if (header.startsWith(ADD)) {
    const content: string[] = [];
    while (i < body.length && (body[i] as string).startsWith('+')) content.push((body[i++] as string).slice(1));
    return { file: { kind: 'add', path: header.slice(ADD.length), lines: content }, next: i };
  }
  if (header.startsWith(DELETE)) return { file: { kind: 'delete', path: header.slice(DELETE.length) }, next: i };
  if (!header.startsWith(UPDATE)) {
    throw bad(`'${header.slice(0, 60)}' is not a valid hunk header; valid ones: '${ADD}{path}', '${DELETE}{path}', '${UPDATE}{path}'`);
  }
  const path = header.slice(UPDATE.length);
  let moveTo: string | undefined;
  if (i < body.length && (body[i] as string).startsWith(MOVE)) moveTo = (body[i++] as string).slice(MOVE.length);
  const chunks: PatchChunk[] = [];
  while (i < body.length) {
    const line = body[i] as string;
    if (line.trim() === '') {
      i++;
      continue;
    }
    if (line.startsWith('*')) break;
    const parsed = parseChunk(body, i, chunks.length === 0, path);
    chunks.push(parsed.chunk);
    i = parsed.next;
  }
  // Codex refuses an Update without chunks, even with a Move; formatbox takes it as a pure rename.
  if (chunks.length === 0 && moveTo === undefined) throw bad(`Update File ${shownPath(path)} has no chunks (Codex: "Update file hunk for path '${shownPath(path)}' is empty")`);
  return { file: moveTo === undefined ? { kind: 'update', path, chunks } : { kind: 'update', path, moveTo, chunks }, next: i };
}

function parseChunk(body: readonly string[], at: number, first: boolean, path: string): { chunk: PatchChunk; next: number } {
  const chunk: PatchChunk = { oldLines: [], newLines: [], endOfFile: false };
  let i = at;
  const head = body[i] as string;
  if (head === '@@') i++;
  else if (head.startsWith('@@ ')) {
    chunk.context = head.slice(3);
    i++;
  } else if (!first) {
    throw bad(`${shownPath(path)}: expected a chunk to start with '@@', got: '${head.slice(0, 60)}'`);
  }
  let count = 0;
  for (; i < body.length; i++) {
    const row = body[i] as string;
    if (row === END_OF_FILE) {
      if (count === 0) break;
      chunk.endOfFile = true;
      i++;
      break;
    }
    const tag = row[0];
    if (tag === undefined) {
      chunk.oldLines.push('');
      chunk.newLines.push('');
    } else if (tag === ' ') {
      chunk.oldLines.push(row.slice(1));
      chunk.newLines.push(row.slice(1));
    } else if (tag === '-') chunk.oldLines.push(row.slice(1));
    else if (tag === '+') chunk.newLines.push(row.slice(1));
    else if (count === 0) {
      throw bad(`${shownPath(path)}: unexpected line in a chunk: '${row.slice(0, 60)}'; every line starts with ' ' (context), '+' (added) or '-' (removed)`);
    } else break;
    count++;
  }
  if (count === 0) throw bad(`${shownPath(path)}: a chunk does not contain any lines`);
  return { chunk, next: i };
}

// ---------------------------------------------------------------------------
// Matching (seek_sequence.rs)

const FOLD: Record<string, string> = {
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
  '\u2018': "'", '\u2019': "'", '\u201A': "'", '\u201B': "'",
  '\u201C': '"', '\u201D': '"', '\u201E': '"', '\u201F': '"',
  '\u00A0': ' ', '\u2002': ' ', '\u2003': ' ', '\u2004': ' ', '\u2005': ' ', '\u2006': ' ',
  '\u2007': ' ', '\u2008': ' ', '\u2009': ' ', '\u200A': ' ', '\u202F': ' ', '\u205F': ' ', '\u3000': ' ',
};
const fold = (s: string): string => s.trim().replace(/[\u2010-\u2015\u2212\u2018-\u201F\u00A0\u2002-\u200A\u202F\u205F\u3000]/g, (c) => FOLD[c] ?? c);

/** Codex's four levels: exact, trailing whitespace ignored, surrounding whitespace ignored, Unicode punctuation folded. */
const LEVELS: Array<(s: string) => string> = [(s) => s, (s) => s.trimEnd(), (s) => s.trim(), fold];

/**
 * Codex's seek_sequence: the first index at or after `start` where `pattern` matches `lines`, trying
 * each level over the whole range before the next. With `endOfFile`, only the last possible index is
 * tried. -1 when none.
 */
export function seekSequence(lines: readonly string[], pattern: readonly string[], start: number, endOfFile: boolean): number {
  if (pattern.length === 0) return start;
  if (pattern.length > lines.length) return -1;
  const last = lines.length - pattern.length;
  const from = endOfFile ? last : start;
  for (const norm of LEVELS) {
    const target = pattern.map(norm);
    for (let at = from; at <= last; at++) {
      let ok = true;
      for (let j = 0; j < target.length && ok; j++) ok = norm(lines[at + j] as string) === target[j];
      if (ok) return at;
    }
  }
  return -1;
}

/**
 * Applies one file's Codex chunks to its prior text (compute_replacements in lib.rs). Returns W and
 * where each chunk landed; throws EDIT_NOT_APPLICABLE naming the chunk that does not match.
 */
export function applyCodexChunks(prior: string, chunks: readonly PatchChunk[], path: string): { text: string; applied: AppliedChunk[] } {
  const lines = linesWithEndings(prior);
  const contents = lines.map(lineContent);
  const replacements: Replacement[] = [];
  let cursor = 0;
  for (const [index, chunk] of chunks.entries()) {
    if (chunk.context !== undefined) {
      const at = seekSequence(contents, [chunk.context], cursor, false);
      if (at < 0) throw bad(`${shownPath(path)}: chunk ${index + 1}: context line not found: ${chunk.context.slice(0, 60)}`);
      cursor = at + 1;
    }
    if (chunk.oldLines.length === 0) {
      // A pure addition goes at the end (before a final blank line) and does not move the cursor.
      const at = contents.length > 0 && contents[contents.length - 1] === '' ? contents.length - 1 : contents.length;
      replacements.push({ at, remove: 0, old: [], add: chunk.newLines, noEol: false });
      continue;
    }
    let old = chunk.oldLines;
    let add = chunk.newLines;
    let at = seekSequence(contents, old, cursor, chunk.endOfFile);
    if (at < 0 && old[old.length - 1] === '') {
      // A trailing empty line may stand for the file's final newline.
      old = old.slice(0, -1);
      if (add[add.length - 1] === '') add = add.slice(0, -1);
      at = seekSequence(contents, old, cursor, chunk.endOfFile);
    }
    if (at < 0) {
      throw bad(`${shownPath(path)}: chunk ${index + 1} not found; the lines to replace must match the file (reread it): ${(chunk.oldLines[0] ?? '').slice(0, 60)}`);
    }
    replacements.push({ at, remove: old.length, old, add, noEol: false });
    cursor = at + old.length;
  }
  const order = replacements.map((r, k) => ({ r, k })).sort((x, y) => x.r.at - y.r.at || x.k - y.k);
  const { text, applied } = spliceLines(lines, order.map((o) => o.r), dominantEol(prior), path);
  // `applied` in chunk order, as the chunks were given.
  const byChunk: AppliedChunk[] = new Array(applied.length);
  order.forEach((o, sorted) => (byChunk[o.k] = applied[sorted] as AppliedChunk));
  return { text, applied: byChunk };
}
