/**
 * Unified diffs (`--- a/x` / `+++ b/x` / `@@ -l,n +l,n @@`, with or without `diff --git` headers),
 * parsed and applied as `git apply` does (git's apply.c, default options):
 * - hunks apply in order to the file as patched so far; each is sought from its new-side line,
 *   alternately forwards and backwards, and must match byte for byte (newline at end of file
 *   included); lines an earlier hunk wrote are never matched again;
 * - a hunk starting at line 0 or 1 must match at the beginning, one without trailing context at
 *   the end; a patch without any context line (`git diff -U0`) is applied as
 *   `git apply --unidiff-zero` would (neither rule; the hunk goes where its header says);
 * - a hunk line followed by `\ No newline at end of file` has no newline, and git compares the hunk's
 *   bytes as a prefix of the file's, so such a line also matches a file line that goes on with
 *   whitespace only (`x` matches `x\n`); git then writes the hunk's bytes in its place;
 * - an added file must not exist, a deleted file must be exactly what the hunks remove, a rename
 *   must not overwrite; `diff --git` headers give pure renames and empty added or deleted files.
 * One leniency, documented in docs/receipts.md: when a patch with no CR at all does not apply to a CRLF file,
 *   it is tried again as if its lines had the file's CRs (git refuses it); lines it writes then take CRLF.
 */
import { shownPath } from '../../core/shown.js';
import { diffLineChanges } from '../../core/diff.js';
import { bad, type AppliedChunk, type FilePatch, type HunkRow, type PatchChunk, type UnifiedHunk } from './model.js';
import { linesAtLf } from './lines.js';
import { dominantEol } from './splice.js';

/** Does this text look like a unified diff? */
export function isUnifiedDiff(lines: readonly string[]): boolean {
  return lines.some((line) => line.startsWith('@@') || line.startsWith('--- ') || line.startsWith('diff --git '));
}

interface Header {
  from: string | null | undefined;
  to: string | null | undefined;
  renameFrom?: string;
  renameTo?: string;
  newFile: boolean;
  deletedFile: boolean;
  gitFrom?: string;
  gitTo?: string;
}

function stripPrefix(name: string): string | null {
  const path = name.split('\t')[0] ?? '';
  if (path === '/dev/null') return null;
  return path.replace(/^[ab]\//, '');
}

/** Parses a unified diff. `lines`: the text split at `\n` (CRs kept). */
export function parseUnifiedDiff(lines: readonly string[]): FilePatch[] {
  const files: FilePatch[] = [];
  const pending: Array<{ header: Header; chunks: PatchChunk[]; begin: number; end: number }> = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (!line.startsWith('diff --git ') && !line.startsWith('--- ')) {
      i++;
      continue;
    }
    const begin = i;
    const header: Header = { from: undefined, to: undefined, newFile: false, deletedFile: false };
    if (line.startsWith('diff --git ')) {
      const names = /^diff --git a\/(.*) b\/(.*)$/.exec(line);
      if (names) {
        header.gitFrom = names[1] as string;
        header.gitTo = names[2] as string;
      }
      i++;
      for (; i < lines.length; i++) {
        const row = lines[i] as string;
        if (row.startsWith('diff --git ') || row.startsWith('--- ') || row.startsWith('@@')) break;
        if (row.startsWith('new file mode')) header.newFile = true;
        else if (row.startsWith('deleted file mode')) header.deletedFile = true;
        else if (row.startsWith('rename from ')) header.renameFrom = row.slice('rename from '.length);
        else if (row.startsWith('rename to ')) header.renameTo = row.slice('rename to '.length);
        else if (row.startsWith('Binary files ') || row === 'GIT binary patch') throw bad(`${header.gitTo ?? 'a file'}: binary patches are not supported`);
        else if (row.startsWith('copy from ') || row.startsWith('copy to ')) throw bad(`${header.gitTo ?? 'a file'}: copies (git diff -C) are not supported; send the new file as an added file`);
      }
    }
    if ((lines[i] ?? '').startsWith('--- ')) {
      header.from = stripPrefix((lines[i] as string).slice(4));
      const plus = lines[i + 1] ?? '';
      if (!plus.startsWith('+++ ')) throw bad(`expected '+++ ' after: ${(lines[i] as string).slice(0, 60)}`);
      header.to = stripPrefix(plus.slice(4));
      i += 2;
    }
    const chunks: PatchChunk[] = [];
    while (i < lines.length && (lines[i] as string).startsWith('@@')) {
      const parsed = parseHunk(lines, i, header.to ?? header.from ?? header.gitTo ?? '');
      chunks.push(parsed.chunk);
      i = parsed.next;
    }
    pending.push({ header, chunks, begin, end: i });
  }
  const zero = pending.some((p) => p.chunks.length > 0) && pending.every((p) => p.chunks.every((c) => c.unified!.rows.every((r) => r.tag !== ' ')));
  for (const { header, chunks, begin, end } of pending) {
    for (const chunk of chunks) chunk.unified!.zero = zero;
    const file = fileOp(header, chunks);
    file.source = lines.slice(begin, end).join('\n') + '\n';
    files.push(file);
  }
  if (files.length === 0) throw bad('the diff changes no file');
  return files;
}

function fileOp(header: Header, chunks: PatchChunk[]): FilePatch {
  const from = header.from !== undefined ? header.from : header.newFile ? null : (header.renameFrom ?? header.gitFrom ?? null);
  const to = header.to !== undefined ? header.to : header.deletedFile ? null : (header.renameTo ?? header.gitTo ?? null);
  if (from === null && to !== null) {
    if (chunks.some((c) => c.oldLines.length > 0)) throw bad(`new file ${to} depends on old contents`);
    const rows = chunks.flatMap((c) => c.unified!.rows);
    const last = rows[rows.length - 1];
    return { kind: 'add', path: to, lines: rows.map((r) => r.text), ...(last?.noEol ? { noEol: true } : {}) };
  }
  if (to === null && from !== null) return { kind: 'delete', path: from, chunks };
  if (from === null || to === null) throw bad('a diff from /dev/null to /dev/null');
  return from === to ? { kind: 'update', path: from, chunks } : { kind: 'update', path: from, moveTo: to, chunks };
}

function parseHunk(lines: readonly string[], at: number, path: string): { chunk: PatchChunk; next: number } {
  const match = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(lines[at] as string);
  if (!match) throw bad(`bad hunk header: ${(lines[at] as string).slice(0, 60)}`);
  let i = at + 1;
  let oldLeft = match[2] === undefined ? 1 : Number(match[2]);
  let newLeft = match[4] === undefined ? 1 : Number(match[4]);
  const oldStart = Number(match[1]);
  const newStart = Number(match[3]);
  const rows: HunkRow[] = [];
  while (i < lines.length && (oldLeft > 0 || newLeft > 0 || (lines[i] as string).startsWith('\\'))) {
    const row = lines[i++] as string;
    const tag = row === '' ? ' ' : row[0];
    if (tag === '\\') {
      const last = rows[rows.length - 1];
      if (last) last.noEol = true;
      continue;
    }
    if (tag !== ' ' && tag !== '-' && tag !== '+') throw bad(`unexpected diff line: ${row.slice(0, 60)}`);
    if (tag !== '+') oldLeft--;
    if (tag !== '-') newLeft--;
    if (oldLeft < 0 || newLeft < 0) throw bad(`hunk at line ${oldStart} of ${shownPath(path)} is longer than its header says`);
    rows.push({ tag, text: row.slice(1), noEol: false });
  }
  if (oldLeft > 0 || newLeft > 0) throw bad(`hunk at line ${oldStart} of ${shownPath(path)} is shorter than its header says`);
  const firstChange = rows.findIndex((r) => r.tag !== ' ');
  let trailing = 0;
  while (trailing < rows.length && (rows[rows.length - 1 - trailing] as HunkRow).tag === ' ') trailing++;
  const leading = firstChange === -1 ? rows.length : firstChange;
  const unified: UnifiedHunk = { rows, oldStart, newStart, leading, trailing, zero: false };
  const chunk: PatchChunk = {
    oldLines: rows.filter((r) => r.tag !== '+').map((r) => r.text),
    newLines: rows.filter((r) => r.tag !== '-').map((r) => r.text),
    endOfFile: false,
    unified,
  };
  return { chunk, next: i };
}

// ---------------------------------------------------------------------------
// Applying (apply.c: apply_one_fragment, find_pos, match_fragment, update_image)

interface ImageLine {
  /** The line with its `\n` (the last may have none). */
  text: string;
  /** Index of this line in the prior, or -1 for a line the patch wrote. */
  prior: number;
  /** Written or kept by a hunk: later hunks may not match it (git's LINE_PATCHED). */
  patched: boolean;
  /** gitLineHash(text), once needed. */
  hash?: number;
}

/**
 * Applies one file's unified hunks to its prior text, as `git apply` does. Only when that fails, a
 * patch without any CR is tried again on a CRLF file as if its lines had the file's CRs.
 */
export function applyUnifiedHunks(prior: string, chunks: readonly PatchChunk[], path: string): { text: string; applied: AppliedChunk[] } {
  try {
    return applyHunks(prior, chunks, path, false);
  } catch (error) {
    const patchHasCr = chunks.some((c) => c.unified!.rows.some((r) => r.text.includes('\r')));
    if (patchHasCr || !prior.includes('\r\n')) throw error;
    return applyHunks(prior, chunks, path, true);
  }
}

function applyHunks(prior: string, chunks: readonly PatchChunk[], path: string, loose: boolean): { text: string; applied: AppliedChunk[] } {
  const priorLines = linesAtLf(prior);
  let image: ImageLine[] = priorLines.map((text, index) => ({ text, prior: index, patched: false }));
  const eol = loose ? dominantEol(prior) : '\n';
  const comparable = loose ? (text: string) => (text.endsWith('\r\n') ? text.slice(0, -2) + '\n' : text) : (text: string) => text;
  for (const [index, chunk] of chunks.entries()) {
    const hunk = chunk.unified!;
    const ending = (row: HunkRow): string => (row.noEol ? '' : '\n');
    const pre = hunk.rows.filter((r) => r.tag !== '+').map((r) => r.text + ending(r));
    const matchBeginning = hunk.oldStart === 0 || (hunk.oldStart === 1 && !hunk.zero);
    const matchEnd = !hunk.zero && hunk.trailing === 0;
    const at = findPos(image, pre, hunk.newStart > 0 ? hunk.newStart - 1 : 0, matchBeginning, matchEnd, comparable);
    if (at < 0) {
      throw bad(`${shownPath(path)}: hunk ${index + 1} (${hunkHeader(hunk)}) does not apply; its context and removed lines must match the file exactly (reread it)`);
    }
    const post: ImageLine[] = [];
    let k = at;
    for (const row of hunk.rows) {
      if (row.tag === '-') k++;
      else if (row.tag === ' ' && comparable((image[k] as ImageLine).text) === row.text + ending(row)) post.push({ ...(image[k++] as ImageLine), patched: true });
      else {
        // An added line, or a context line that matched only as git's byte prefix (see matchesAt):
        // git writes the hunk's bytes (update_image copies the postimage).
        if (row.tag === ' ') k++;
        post.push({ text: row.text + (row.noEol ? '' : eol), prior: -1, patched: true });
      }
    }
    image = [...image.slice(0, at), ...post, ...image.slice(at + pre.length)];
  }
  return { text: image.map((l) => l.text).join(''), applied: appliedRegions(priorLines.length, image) };
}

function findPos(image: readonly ImageLine[], pre: readonly string[], line: number, matchBeginning: boolean, matchEnd: boolean, comparable: (text: string) => string): number {
  const nr = image.length;
  if (matchBeginning) line = 0;
  else if (matchEnd) line = nr - pre.length;
  if (line > nr || line < 0) line = nr;
  const preHashes = pre.map(gitLineHash);
  const matches = (at: number): boolean => matchesAt(image, pre, preHashes, at, matchBeginning, matchEnd, comparable);
  let backwards = line;
  let forwards = line;
  let current = line;
  for (let i = 0; ; i++) {
    if (matches(current)) return current;
    for (;;) {
      if (backwards === 0 && forwards === nr) return -1;
      if (i & 1) {
        if (backwards === 0) {
          i++;
          continue;
        }
        current = --backwards;
      } else {
        if (forwards === nr) {
          i++;
          continue;
        }
        current = ++forwards;
      }
      break;
    }
  }
}

/**
 * apply.c match_fragment with default options: no line written by an earlier hunk, each line's
 * whitespace-blind hash equal, then the hunk's bytes a prefix of the file's from `at` (exactly the
 * rest of the file when it must match at the end). Lines ending in `\n` thus match exactly; only a
 * line without one (`\ No newline at end of file`) can match a longer file line.
 */
function matchesAt(image: readonly ImageLine[], pre: readonly string[], preHashes: readonly number[], at: number, matchBeginning: boolean, matchEnd: boolean, comparable: (text: string) => string): boolean {
  const nr = image.length;
  if (pre.length + at > nr) return false;
  if (matchEnd && pre.length + at !== nr) return false;
  if (matchBeginning && at !== 0) return false;
  let exact = true;
  for (let i = 0; i < pre.length; i++) {
    const target = image[at + i] as ImageLine;
    if (target.patched) return false;
    const text = comparable(target.text);
    if (text === pre[i]) continue;
    // comparable() only drops a CR, which the hash skips: the file line's own hash serves.
    target.hash ??= gitLineHash(target.text);
    if (target.hash !== preHashes[i]) return false;
    exact = false;
  }
  if (exact) return true;
  const imageText = image.slice(at, at + pre.length).map((l) => comparable(l.text)).join('');
  const preText = pre.join('');
  return matchEnd ? imageText === preText : imageText.startsWith(preText);
}

/**
 * apply.c hash_line: over the line's UTF-8 bytes, skipping git's whitespace (space, \t, \n, \r),
 * kept to 24 bits (`unsigned hash : 24`). A lone surrogate counts as U+FFFD, as TextEncoder writes it.
 */
function gitLineHash(line: string): number {
  let hash = 0;
  const add = (byte: number): void => {
    hash = (hash * 3 + byte) & 0xffffff;
  };
  for (let i = 0; i < line.length; i++) {
    let code = line.charCodeAt(i);
    if (code < 0x80) {
      if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) add(code);
      continue;
    }
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < line.length) {
      const low = line.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
    }
    if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    if (code < 0x800) {
      add(0xc0 | (code >> 6));
    } else if (code < 0x10000) {
      add(0xe0 | (code >> 12));
      add(0x80 | ((code >> 6) & 0x3f));
    } else {
      add(0xf0 | (code >> 18));
      add(0x80 | ((code >> 12) & 0x3f));
      add(0x80 | ((code >> 6) & 0x3f));
    }
    add(0x80 | (code & 0x3f));
  }
  return hash;
}

/** A hunk's header as the patch gave it (`@@ -1,7 +1,3 @@`), for messages. */
function hunkHeader(hunk: UnifiedHunk): string {
  const oldCount = hunk.rows.filter((r) => r.tag !== '+').length;
  const newCount = hunk.rows.filter((r) => r.tag !== '-').length;
  const range = (start: number, count: number): string => (count === 1 ? `${start}` : `${start},${count}`);
  return `@@ -${range(hunk.oldStart, oldCount)} +${range(hunk.newStart, newCount)} @@`;
}

/** Where the patch changed the file: runs of prior lines replaced by written lines. */
function appliedRegions(priorCount: number, image: readonly ImageLine[]): AppliedChunk[] {
  const before = Array.from({ length: priorCount }, (_, i) => `p${i}`);
  const after = image.map((l, k) => (l.prior >= 0 ? `p${l.prior}` : `n${k}`));
  return diffLineChanges(before, after).map((c) => ({ priorStart: c.aStart, priorEnd: c.aEnd, writtenStart: c.bStart, writtenEnd: c.bEnd }));
}
