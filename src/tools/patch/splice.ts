/**
 * Writes sorted line replacements into a file's lines. Lines a replacement keeps (common to its old
 * and new lines) keep the file's own bytes, ending included, even when they matched only loosely;
 * lines it writes get the file's dominant ending. A missing final newline stays missing unless a
 * replacement rewrites the last line (or, for unified diffs, says so with `\ No newline`).
 */
import { shownPath } from '../../core/shown.js';
import { diffLineChanges } from '../../core/diff.js';
import { detectEol } from '../../core/text.js';
import { bad, type AppliedChunk } from './model.js';
import { hasEnding } from './lines.js';

export interface Replacement {
  /** First replaced line (0-based). */
  at: number;
  /** How many lines are replaced. */
  remove: number;
  /** The replaced lines' contents as the patch gives them (matched against the file). */
  old: string[];
  add: string[];
  /** The last added line has no newline when it ends the file. */
  noEol: boolean;
}

/** The ending new lines get: the file's most frequent one (LF, CRLF or CR), LF for a file without any. */
export function dominantEol(text: string): string {
  return detectEol(text).dominant;
}

export function spliceLines(lines: readonly string[], replacements: readonly Replacement[], eol: string, path: string): { text: string; applied: AppliedChunk[] } {
  const out: string[] = [];
  const applied: AppliedChunk[] = [];
  const push = (line: string): void => {
    const previous = out[out.length - 1];
    if (previous !== undefined && !hasEnding(previous)) out[out.length - 1] = previous + eol;
    out.push(line);
  };
  let i = 0;
  for (const r of replacements) {
    if (r.at < i) throw bad(`${shownPath(path)}: chunks overlap; order them by position in the file`);
    for (; i < r.at; i++) push(lines[i] as string);
    const start = out.length;
    const original = lines.slice(r.at, r.at + r.remove);
    const touchesEnd = r.at + r.remove >= lines.length;
    let a = 0;
    let b = 0;
    for (const change of diffLineChanges(r.old, r.add)) {
      for (; b < change.bStart; a++, b++) push(original[a] as string);
      a = change.aEnd;
      for (; b < change.bEnd; b++) push(b === r.add.length - 1 && touchesEnd && r.noEol ? (r.add[b] as string) : (r.add[b] as string) + eol);
    }
    for (; b < r.add.length; a++, b++) push(original[a] as string);
    applied.push({ priorStart: r.at, priorEnd: r.at + r.remove, writtenStart: start, writtenEnd: out.length });
    i = r.at + r.remove;
  }
  for (; i < lines.length; i++) push(lines[i] as string);
  return { text: out.join(''), applied };
}
