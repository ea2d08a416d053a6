/**
 * The applyPatch tool: the `*** Begin Patch` format coding agents use (Codex apply_patch grammar)
 * and plain unified diffs (`--- a/x` / `+++ b/x` / `@@ -l,n +l,n @@`), over several files.
 *
 * Matching follows Codex: each chunk's old lines (context and removed lines) are sought from the end
 * of the previous chunk, exactly first, then ignoring trailing whitespace, then ignoring surrounding
 * whitespace, then with Unicode dashes/quotes/spaces folded to ASCII. `@@ text` seeks that line first;
 * `*** End of File` anchors the chunk at the end. Unified hunks are sought at their stated line first.
 *
 * Byte-exactness: patch lines carry no line ending. Lines the patch keeps keep their bytes; lines it
 * writes get the file's dominant ending (CRLF stays CRLF). A file's missing final newline is kept
 * unless a chunk rewrites its last line.
 */
import { FormatboxError } from '../core/errors.js';
import { shownPath } from '../core/shown.js';
import { assertWellFormedInput } from './well-formed.js';
import { detectEol } from '../core/text.js';
import { diffLineChanges } from '../core/diff.js';

export interface PatchChunk {
  /** `@@ <context>`: a line to seek before the chunk (Codex). */
  context?: string;
  /** Context and removed lines, in order, without line endings. */
  oldLines: string[];
  /** Context and added lines, in order, without line endings. */
  newLines: string[];
  /** `*** End of File`: the chunk ends at the end of the file. */
  endOfFile: boolean;
  /** Unified diffs: 0-based line where the old lines start (for an insertion, the line before which it goes). */
  hintLine?: number;
  /** Unified diffs: the new side's last line has no newline. */
  newNoEol?: boolean;
}

export type FilePatch = (
  | { kind: 'add'; path: string; lines: string[]; noEol?: boolean }
  | { kind: 'delete'; path: string }
  | { kind: 'update'; path: string; moveTo?: string; chunks: PatchChunk[] }
) & {
  /** This file's part of the patch text, as given (lines joined with `\n`, ending with one). */
  source?: string;
};

export interface ParsedPatch {
  format: 'codex' | 'unified';
  files: FilePatch[];
}

function bad(message: string): FormatboxError {
  return new FormatboxError('EDIT_NOT_APPLICABLE', message);
}

// ---------------------------------------------------------------------------
// Parsing

/** Parses either patch format. Throws EDIT_NOT_APPLICABLE with the offending line. */
export function parsePatch(patch: string): ParsedPatch {
  if (typeof patch !== 'string') throw new FormatboxError('INVALID_REQUEST', 'patch must be a string');
  assertWellFormedInput({ patch });
  const lines = patch.split(/\r?\n/);
  // Only empty lines: a line holding one space is an empty context line.
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  while (lines.length > 0 && (lines[0] as string).trim() === '') lines.shift();
  // Codex's lenient mode: a heredoc wrapper (<<'EOF' … EOF) around the patch.
  if (lines.length >= 2 && /^<<['"]?\w+['"]?$/.test((lines[0] as string).trim()) && /^\w+$/.test((lines[lines.length - 1] as string).trim())) {
    lines.shift();
    lines.pop();
  }
  if ((lines[0] ?? '').trim() === '*** Begin Patch') return { format: 'codex', files: parseCodex(lines) };
  if (lines.some((line) => line.startsWith('@@')) || lines.some((line) => line.startsWith('--- '))) {
    return { format: 'unified', files: parseUnified(lines) };
  }
  throw bad("patch must start with '*** Begin Patch' or be a unified diff ('--- a/path', '+++ b/path', '@@ … @@')");
}

function parseCodex(lines: string[]): FilePatch[] {
  if ((lines[lines.length - 1] ?? '').trim() !== '*** End Patch') throw bad("patch must end with '*** End Patch'");
  const body = lines.slice(1, -1);
  const files: FilePatch[] = [];
  let i = 0;
  const header = (line: string, prefix: string): string | undefined =>
    line.trim().startsWith(prefix) ? line.trim().slice(prefix.length).trim() : undefined;
  while (i < body.length) {
    const begin = i;
    const count = files.length;
    parseOne();
    if (files.length > count) (files[files.length - 1] as FilePatch).source = body.slice(begin, i).join('\n') + '\n';
  }
  if (files.length === 0) throw bad('the patch changes no file');
  return files;

  function parseOne(): void {
    const line = body[i] as string;
    let path: string | undefined;
    if ((path = header(line, '*** Add File: ')) !== undefined) {
      i++;
      const content: string[] = [];
      while (i < body.length && (body[i] as string).startsWith('+')) content.push((body[i++] as string).slice(1));
      files.push({ kind: 'add', path, lines: content });
    } else if ((path = header(line, '*** Delete File: ')) !== undefined) {
      i++;
      files.push({ kind: 'delete', path });
    } else if ((path = header(line, '*** Update File: ')) !== undefined) {
      i++;
      let moveTo: string | undefined;
      if (i < body.length && (moveTo = header(body[i] as string, '*** Move to: ')) !== undefined) i++;
      const chunks: PatchChunk[] = [];
      while (i < body.length && !(body[i] as string).startsWith('*** ')) {
        const chunk: PatchChunk = { oldLines: [], newLines: [], endOfFile: false };
        const first = body[i] as string;
        if (first.trim() === '@@') i++;
        else if (first.startsWith('@@ ')) {
          chunk.context = first.slice(3);
          i++;
        } else if (chunks.length > 0) {
          throw bad(`expected '@@' to start a chunk in ${shownPath(path)}, got: ${first.slice(0, 60)}`);
        }
        let count = 0;
        while (i < body.length) {
          const row = body[i] as string;
          if (row.trim() === '*** End of File') {
            chunk.endOfFile = true;
            i++;
            break;
          }
          if (row === '') {
            chunk.oldLines.push('');
            chunk.newLines.push('');
          } else if (row[0] === ' ') {
            chunk.oldLines.push(row.slice(1));
            chunk.newLines.push(row.slice(1));
          } else if (row[0] === '-') chunk.oldLines.push(row.slice(1));
          else if (row[0] === '+') chunk.newLines.push(row.slice(1));
          else if (count === 0) throw bad(`unexpected line in ${shownPath(path)}: ${row.slice(0, 60)}`);
          else break;
          count++;
          i++;
        }
        if (count === 0) throw bad(`empty chunk in ${shownPath(path)}`);
        chunks.push(chunk);
      }
      if (chunks.length === 0 && moveTo === undefined) throw bad(`Update File ${shownPath(path)} has no chunks`);
      files.push(moveTo === undefined ? { kind: 'update', path, chunks } : { kind: 'update', path, moveTo, chunks });
    } else {
      throw bad(`expected '*** Add File:', '*** Delete File:' or '*** Update File:', got: ${line.slice(0, 60)}`);
    }
  }
}

function stripPrefix(path: string): string | null {
  const name = path.split('\t')[0]?.trim() ?? '';
  if (name === '/dev/null') return null;
  return name.replace(/^[ab]\//, '');
}

function parseUnified(lines: string[]): FilePatch[] {
  const files: FilePatch[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (!line.startsWith('--- ')) {
      i++;
      continue;
    }
    const begin = i;
    const from = stripPrefix(line.slice(4));
    const plus = lines[i + 1] ?? '';
    if (!plus.startsWith('+++ ')) throw bad(`expected '+++ ' after: ${line.slice(0, 60)}`);
    const to = stripPrefix(plus.slice(4));
    i += 2;
    const chunks: PatchChunk[] = [];
    while (i < lines.length && (lines[i] as string).startsWith('@@')) {
      const match = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(lines[i] as string);
      if (!match) throw bad(`bad hunk header: ${(lines[i] as string).slice(0, 60)}`);
      i++;
      let oldLeft = match[2] === undefined ? 1 : Number(match[2]);
      let newLeft = match[4] === undefined ? 1 : Number(match[4]);
      const oldStart = Number(match[1]);
      const chunk: PatchChunk = {
        oldLines: [], newLines: [], endOfFile: false,
        hintLine: oldLeft === 0 ? oldStart : Math.max(0, oldStart - 1),
      };
      let last: 'old' | 'new' | 'both' | undefined;
      while (i < lines.length && (oldLeft > 0 || newLeft > 0 || (lines[i] as string).startsWith('\\'))) {
        const row = lines[i++] as string;
        const tag = row === '' ? ' ' : row[0];
        const text = row.slice(1);
        if (tag === ' ') {
          chunk.oldLines.push(text);
          chunk.newLines.push(text);
          oldLeft--;
          newLeft--;
          last = 'both';
        } else if (tag === '-') {
          chunk.oldLines.push(text);
          oldLeft--;
          last = 'old';
        } else if (tag === '+') {
          chunk.newLines.push(text);
          newLeft--;
          last = 'new';
        } else if (tag === '\\') {
          if (last === 'new' || last === 'both') chunk.newNoEol = true;
        } else throw bad(`unexpected diff line: ${row.slice(0, 60)}`);
      }
      if (oldLeft > 0 || newLeft > 0) throw bad(`hunk at line ${oldStart} of ${shownPath(to ?? from ?? '')} is shorter than its header says`);
      chunks.push(chunk);
    }
    if (from === null && to !== null) {
      const chunk = chunks[0];
      files.push({ kind: 'add', path: to, lines: chunk ? chunk.newLines : [], ...(chunk?.newNoEol ? { noEol: true } : {}) });
    } else if (to === null && from !== null) files.push({ kind: 'delete', path: from });
    else if (from !== null && to !== null) {
      files.push(from === to ? { kind: 'update', path: from, chunks } : { kind: 'update', path: from, moveTo: to, chunks });
    } else throw bad('a diff from /dev/null to /dev/null');
    (files[files.length - 1] as FilePatch).source = lines.slice(begin, i).join('\n') + '\n';
  }
  if (files.length === 0) throw bad('the diff changes no file');
  return files;
}

// ---------------------------------------------------------------------------
// Applying

/** A chunk as applied: prior lines [priorStart, priorEnd) became written lines [writtenStart, writtenEnd). */
export interface AppliedChunk {
  priorStart: number;
  priorEnd: number;
  writtenStart: number;
  writtenEnd: number;
}

/** Lines with their endings (`\n` or `\r\n`); the last may have none. */
export function linesWithEndings(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl === -1) break;
    out.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

export function lineContent(line: string): string {
  return line.endsWith('\r\n') ? line.slice(0, -2) : line.endsWith('\n') ? line.slice(0, -1) : line;
}

const FOLD: Record<string, string> = {
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
  '\u2018': "'", '\u2019': "'", '\u201A': "'", '\u201B': "'",
  '\u201C': '"', '\u201D': '"', '\u201E': '"', '\u201F': '"',
  '\u00A0': ' ', '\u2002': ' ', '\u2003': ' ', '\u2004': ' ', '\u2005': ' ', '\u2006': ' ',
  '\u2007': ' ', '\u2008': ' ', '\u2009': ' ', '\u200A': ' ', '\u202F': ' ', '\u205F': ' ', '\u3000': ' ',
};
const fold = (s: string): string => s.trim().replace(/[\u2010-\u2015\u2212\u2018-\u201F\u00A0\u2002-\u200A\u202F\u205F\u3000]/g, (c) => FOLD[c] ?? c);

const PASSES: Array<(s: string) => string> = [(s) => s, (s) => s.trimEnd(), (s) => s.trim(), fold];

/** Codex's seek_sequence: first match of `pattern` in `lines` at or after `start`. -1 when none. */
export function seekSequence(lines: readonly string[], pattern: readonly string[], start: number, endOfFile: boolean): number {
  if (pattern.length === 0) return start;
  if (pattern.length > lines.length) return -1;
  const last = lines.length - pattern.length;
  const from = endOfFile ? last : start;
  for (const norm of PASSES) {
    const target = pattern.map(norm);
    for (let at = from; at <= last; at++) {
      let ok = true;
      for (let j = 0; j < target.length && ok; j++) ok = norm(lines[at + j] as string) === target[j];
      if (ok) return at;
    }
    if (endOfFile && from !== start) {
      for (let at = start; at <= last; at++) {
        let ok = true;
        for (let j = 0; j < target.length && ok; j++) ok = norm(lines[at + j] as string) === target[j];
        if (ok) return at;
      }
    }
  }
  return -1;
}

/**
 * Applies one file's chunks to its prior text. Returns W and where each chunk landed (line indices).
 * Throws EDIT_NOT_APPLICABLE naming the chunk that does not match.
 */
export function applyChunks(prior: string, chunks: readonly PatchChunk[], path: string): { text: string; applied: AppliedChunk[] } {
  const lines = linesWithEndings(prior);
  const contents = lines.map(lineContent);
  const eol = detectEol(prior).dominant === '\r\n' ? '\r\n' : '\n';
  const replacements: Array<{ at: number; remove: number; old: string[]; add: string[]; noEol: boolean }> = [];
  let cursor = 0;
  for (const [index, chunk] of chunks.entries()) {
    if (chunk.context !== undefined) {
      const at = seekSequence(contents, [chunk.context], cursor, false);
      if (at < 0) throw bad(`${shownPath(path)}: chunk ${index + 1}: context line not found: ${chunk.context.slice(0, 60)}`);
      cursor = at + 1;
    }
    let old = chunk.oldLines;
    let add = chunk.newLines;
    let at: number;
    if (old.length === 0) {
      at = chunk.hintLine !== undefined ? Math.min(Math.max(chunk.hintLine, cursor), lines.length) : lines.length;
    } else {
      at = -1;
      if (chunk.hintLine !== undefined && chunk.hintLine >= cursor) at = seekSequence(contents, old, chunk.hintLine, chunk.endOfFile);
      if (at < 0) at = seekSequence(contents, old, cursor, chunk.endOfFile);
      if (at < 0 && old[old.length - 1] === '') {
        // Codex: a trailing empty context line may stand for the end of the file.
        old = old.slice(0, -1);
        if (add[add.length - 1] === '') add = add.slice(0, -1);
        at = seekSequence(contents, old, cursor, chunk.endOfFile);
      }
      if (at < 0) {
        throw bad(`${shownPath(path)}: chunk ${index + 1} not found; the lines to replace must match the file (reread it): ${(old[0] ?? '').slice(0, 60)}`);
      }
    }
    replacements.push({ at, remove: old.length, old, add, noEol: chunk.newNoEol === true });
    cursor = at + old.length;
  }
  const out: string[] = [];
  const applied: AppliedChunk[] = [];
  let i = 0;
  for (const r of replacements) {
    if (r.at < i) throw bad(`${shownPath(path)}: chunks overlap; order them by position in the file`);
    for (; i < r.at; i++) out.push(lines[i] as string);
    const start = out.length;
    // Context lines (in both the chunk's old and new lines) keep the file's bytes, even when they
    // matched only loosely; written lines get the dominant ending.
    const original = lines.slice(r.at, r.at + r.remove);
    const touchesEnd = r.at + r.remove >= lines.length;
    const write = (text: string, j: number): void => {
      const previous = out[out.length - 1];
      if (previous !== undefined && !previous.endsWith('\n')) out[out.length - 1] = previous + eol;
      out.push(j === r.add.length - 1 && touchesEnd && r.noEol ? text : text + eol);
    };
    let a = 0;
    let b = 0;
    for (const change of diffLineChanges(r.old, r.add)) {
      for (; b < change.bStart; a++, b++) out.push(original[a] as string);
      a = change.aEnd;
      for (; b < change.bEnd; b++) write(r.add[b] as string, b);
    }
    for (; b < r.add.length; a++, b++) out.push(original[a] as string);
    applied.push({ priorStart: r.at, priorEnd: r.at + r.remove, writtenStart: start, writtenEnd: out.length });
    i = r.at + r.remove;
  }
  for (; i < lines.length; i++) {
    const previous = out[out.length - 1];
    if (previous !== undefined && !previous.endsWith('\n')) out[out.length - 1] = previous + eol;
    out.push(lines[i] as string);
  }
  return { text: out.join(''), applied };
}

/** One file's result of a patch. `prior` null: added; `written` null: deleted. */
export interface PatchedFile {
  path: string;
  /** Where the file ends up (Move to), or `path`. */
  finalPath: string;
  kind: FilePatch['kind'];
  prior: string | null;
  written: string | null;
  /** Update only: where each chunk landed. */
  applied: AppliedChunk[];
  patch: FilePatch;
}

/**
 * Applies a parsed patch to files given by `read` (undefined: the file does not exist).
 * All or nothing: throws before anything is returned when a file op cannot apply.
 */
export function applyParsedPatch(parsed: ParsedPatch, read: (path: string) => string | undefined): PatchedFile[] {
  const out: PatchedFile[] = [];
  const seen = new Set<string>();
  for (const file of parsed.files) {
    if (seen.has(file.path)) throw bad(`${shownPath(file.path)} appears twice in the patch; merge its changes`);
    seen.add(file.path);
    const prior = read(file.path);
    if (file.kind === 'add') {
      if (prior !== undefined) throw new FormatboxError('FILE_EXISTS', `${file.path} already exists; use '*** Update File:'`);
      const text = file.lines.length === 0 ? '' : file.lines.join('\n') + (file.noEol ? '' : '\n');
      out.push({ path: file.path, finalPath: file.path, kind: 'add', prior: null, written: text, applied: [], patch: file });
      continue;
    }
    if (prior === undefined) throw new FormatboxError('FILE_NOT_FOUND', `${file.path} does not exist`);
    if (file.kind === 'delete') {
      out.push({ path: file.path, finalPath: file.path, kind: 'delete', prior, written: null, applied: [], patch: file });
      continue;
    }
    const { text, applied } = applyChunks(prior, file.chunks, file.path);
    out.push({ path: file.path, finalPath: file.moveTo ?? file.path, kind: 'update', prior, written: text, applied, patch: file });
  }
  return out;
}

/** Applies a patch text: a map from final path to W (null for a deleted file). */
export function applyPatchText(patch: string, read: (path: string) => string | undefined): Map<string, string | null> {
  const result = new Map<string, string | null>();
  for (const file of applyParsedPatch(parsePatch(patch), read)) {
    if (file.finalPath !== file.path) result.set(file.path, null);
    result.set(file.finalPath, file.written);
  }
  return result;
}

// ---------------------------------------------------------------------------
// Rendering

/** One file of a patch to render. For `update`, `regions` are prior line ranges and their new lines (without endings). */
export type RenderFile =
  | { kind: 'add'; path: string; text: string }
  | { kind: 'delete'; path: string; prior: string }
  | { kind: 'update'; path: string; moveTo?: string; prior: string; regions: RenderRegion[] };

export interface RenderRegion {
  priorStart: number;
  priorEnd: number;
  newLines: string[];
  /** The new side's last line has no newline (only meaningful at the end of the file). */
  newNoEol?: boolean;
}

/** Renders one file's part of a patch (without the Begin/End lines for Codex). */
export function renderFilePatch(format: 'codex' | 'unified', file: RenderFile, context = 3): string {
  if (file.kind === 'add') {
    const lines = linesWithEndings(file.text);
    if (format === 'codex') return `*** Add File: ${file.path}\n` + lines.map((l) => `+${lineContent(l)}\n`).join('');
    const noEol = lines.length > 0 && !(lines[lines.length - 1] as string).endsWith('\n');
    return `--- /dev/null\n+++ b/${file.path}\n@@ -0,0 +${lines.length === 0 ? '0,0' : `1,${lines.length}`} @@\n` +
      lines.map((l) => `+${lineContent(l)}\n`).join('') + (noEol ? '\\ No newline at end of file\n' : '');
  }
  if (file.kind === 'delete') {
    if (format === 'codex') return `*** Delete File: ${file.path}\n`;
    const lines = linesWithEndings(file.prior);
    return `--- a/${file.path}\n+++ /dev/null\n@@ -${lines.length === 0 ? '0,0' : `1,${lines.length}`} +0,0 @@\n` +
      lines.map((l) => `-${lineContent(l)}\n`).join('');
  }
  const lines = linesWithEndings(file.prior).map(lineContent);
  const regions = [...file.regions].sort((x, y) => x.priorStart - y.priorStart);
  const header = format === 'codex'
    ? `*** Update File: ${file.path}\n${file.moveTo !== undefined ? `*** Move to: ${file.moveTo}\n` : ''}`
    : `--- a/${file.path}\n+++ b/${file.moveTo ?? file.path}\n`;
  const out: string[] = [header];
  let shift = 0;
  let r = 0;
  while (r < regions.length) {
    let s = r;
    while (s + 1 < regions.length && (regions[s + 1] as RenderRegion).priorStart - (regions[s] as RenderRegion).priorEnd <= 2 * context) s++;
    const first = regions[r] as RenderRegion;
    const last = regions[s] as RenderRegion;
    const from = Math.max(0, first.priorStart - context);
    const to = Math.min(lines.length, last.priorEnd + context);
    const body: string[] = [];
    let oldCount = 0;
    let newCount = 0;
    let cursor = from;
    let lastNoEol = false;
    for (let k = r; k <= s; k++) {
      const region = regions[k] as RenderRegion;
      for (; cursor < region.priorStart; cursor++) {
        body.push(` ${lines[cursor]}\n`);
        oldCount++;
        newCount++;
      }
      const old = lines.slice(region.priorStart, region.priorEnd);
      let a = 0;
      let b = 0;
      const changes = diffLineChanges(old, region.newLines);
      const emitSame = (until: number): void => {
        for (; b < until; a++, b++) {
          body.push(` ${region.newLines[b]}\n`);
          oldCount++;
          newCount++;
        }
      };
      for (const change of changes) {
        emitSame(change.bStart);
        for (; a < change.aEnd; a++) {
          body.push(`-${old[a]}\n`);
          oldCount++;
        }
        for (; b < change.bEnd; b++) {
          body.push(`+${region.newLines[b]}\n`);
          newCount++;
        }
      }
      emitSame(region.newLines.length);
      cursor = region.priorEnd;
      lastNoEol = region.newNoEol === true;
    }
    for (; cursor < to; cursor++) {
      body.push(` ${lines[cursor]}\n`);
      oldCount++;
      newCount++;
    }
    const atEnd = to >= lines.length;
    if (format === 'codex') {
      out.push('@@\n', ...body);
      if (atEnd && last.priorEnd >= lines.length) out.push('*** End of File\n');
    } else {
      const oldStart = oldCount === 0 ? from : from + 1;
      const newStart = newCount === 0 ? from + shift : from + shift + 1;
      out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@\n`, ...body);
      if (atEnd && lastNoEol && last.priorEnd >= lines.length) out.push('\\ No newline at end of file\n');
    }
    shift += newCount - oldCount;
    r = s + 1;
  }
  return out.join('');
}

/** Wraps rendered file parts into one patch text. */
export function wrapPatch(format: 'codex' | 'unified', parts: readonly string[]): string {
  return format === 'codex' ? `*** Begin Patch\n${parts.join('')}*** End Patch\n` : parts.join('');
}
