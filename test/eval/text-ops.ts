/**
 * Agent-side text operations, written independently of src/ so that the eval checks the
 * product rather than itself: replaying a tool input onto a text, making and applying
 * unified diffs (jsdiff), and following a line region through a change of the text.
 */
import { applyPatch, diffArrays, formatPatch, structuredPatch, FILE_HEADERS_ONLY } from 'diff';
import type { EditInput, SingleFileInput } from '../../src/core/types.js';

/** Lines [start, end) of a text split on '\n'. */
export interface LineRegion {
  start: number;
  end: number;
}

export type ReplayResult =
  | { ok: true; text: string; region: LineRegion }
  | { ok: false; problem: 'not found' | 'ambiguous'; editIndex: number; occurrences: number };

export function countOccurrences(haystack: string, needle: string): number {
  if (needle === '') return 0;
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count++;
  return count;
}

export function lineOfOffset(text: string, offset: number): number {
  let line = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Char range [from, to) in `text` → the lines it touches (at least one line). */
export function regionOfRange(text: string, from: number, to: number): LineRegion {
  const start = lineOfOffset(text, from);
  const end = lineOfOffset(text, Math.max(from, to - 1)) + 1;
  return { start, end: Math.max(end, start + 1) };
}

function isEdit(input: SingleFileInput): input is EditInput {
  return 'oldText' in input;
}

/**
 * Applies a tool input the way an edit tool does (exact match, unique unless replaceAll;
 * a multiEdit applies its edits in order to the running text). The region is the lines the
 * last edit wrote (for `write`, the lines that differ from the old text).
 */
export function replay(text: string, input: SingleFileInput): ReplayResult {
  if ('content' in input) {
    return { ok: true, text: input.content, region: changedRegion(text, input.content) };
  }
  const edits = isEdit(input) ? [input] : input.edits;
  let current = text;
  let region: LineRegion = { start: 0, end: 1 };
  for (const [editIndex, edit] of edits.entries()) {
    const occurrences = countOccurrences(current, edit.oldText);
    if (occurrences === 0) return { ok: false, problem: 'not found', editIndex, occurrences };
    if (occurrences > 1 && !edit.replaceAll) return { ok: false, problem: 'ambiguous', editIndex, occurrences };
    const at = current.indexOf(edit.oldText);
    current = edit.replaceAll
      ? current.split(edit.oldText).join(edit.newText)
      : current.slice(0, at) + edit.newText + current.slice(at + edit.oldText.length);
    region = writtenRegion(current, at, edit);
  }
  return { ok: true, text: current, region };
}

/**
 * The lines an edit wrote: the lines of newText (placed at `at` in `text`) without the leading
 * and trailing lines it copied unchanged from oldText (the anchor an insert hangs on).
 */
function writtenRegion(text: string, at: number, edit: EditInput): LineRegion {
  const first = lineOfOffset(text, at);
  const oldLines = edit.oldText.split('\n');
  const newLines = edit.newText.split('\n');
  let prefix = 0;
  while (prefix < oldLines.length && prefix < newLines.length - 1 && oldLines[prefix] === newLines[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < oldLines.length - prefix && suffix < newLines.length - prefix - 1 &&
    oldLines[oldLines.length - 1 - suffix] === newLines[newLines.length - 1 - suffix]
  ) suffix++;
  const start = first + prefix;
  return { start, end: Math.max(start + 1, first + newLines.length - suffix) };
}

/** The lines of `after` that differ from `before` (after trimming the common prefix and suffix). */
export function changedRegion(before: string, after: string): LineRegion {
  const a = before.split('\n');
  const b = after.split('\n');
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  return { start: prefix, end: Math.max(prefix + 1, b.length - suffix) };
}

/** A plain unified diff (`--- a/path`, `+++ b/path`, hunks with 3 lines of context); '' when equal. */
export function unifiedDiff(path: string, before: string, after: string): string {
  if (before === after) return '';
  const patch = structuredPatch(`a/${path}`, `b/${path}`, before, after, undefined, undefined, { context: 3 });
  return formatPatch(patch, FILE_HEADERS_ONLY);
}

/** Applies a unified diff; undefined when it does not apply exactly. */
export function applyUnifiedDiff(text: string, diff: string): string | undefined {
  if (diff.trim() === '') return text;
  const result = applyPatch(text, diff, { fuzzFactor: 0 });
  return result === false ? undefined : result;
}

interface Segment {
  oldStart: number;
  oldLength: number;
  newStart: number;
  newLength: number;
  equal: boolean;
}

function segments(before: string, after: string): Segment[] {
  const a = before.split('\n');
  const b = after.split('\n');
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const result: Segment[] = [];
  const push = (segment: Segment) => {
    const last = result[result.length - 1];
    if (last && !last.equal && !segment.equal) {
      last.oldLength += segment.oldLength;
      last.newLength += segment.newLength;
    } else if (segment.oldLength > 0 || segment.newLength > 0) {
      result.push(segment);
    }
  };
  push({ oldStart: 0, oldLength: prefix, newStart: 0, newLength: prefix, equal: true });
  let oldAt = prefix;
  let newAt = prefix;
  const changes = diffArrays(a.slice(prefix, a.length - suffix), b.slice(prefix, b.length - suffix));
  for (const change of changes) {
    const n = change.count ?? change.value.length;
    if (change.added) {
      push({ oldStart: oldAt, oldLength: 0, newStart: newAt, newLength: n, equal: false });
      newAt += n;
    } else if (change.removed) {
      push({ oldStart: oldAt, oldLength: n, newStart: newAt, newLength: 0, equal: false });
      oldAt += n;
    } else {
      push({ oldStart: oldAt, oldLength: n, newStart: newAt, newLength: n, equal: true });
      oldAt += n;
      newAt += n;
    }
  }
  push({ oldStart: oldAt, oldLength: suffix, newStart: newAt, newLength: suffix, equal: true });
  return result;
}

/**
 * Follows a line region through a change of the whole text (a diff applied to the view, a
 * reread): kept lines keep their place, a changed block maps to its replacement.
 */
export function mapRegion(before: string, after: string, region: LineRegion): LineRegion {
  if (before === after) return region;
  const segs = segments(before, after);
  const find = (line: number) =>
    segs.find((s) => line >= s.oldStart && line < s.oldStart + s.oldLength) ?? segs[segs.length - 1];
  const first = find(region.start);
  const last = find(region.end - 1);
  if (!first || !last) return { start: 0, end: 1 };
  const start = first.equal ? first.newStart + (region.start - first.oldStart) : first.newStart;
  let end = last.equal ? last.newStart + (region.end - 1 - last.oldStart) + 1 : last.newStart + last.newLength;
  // A block inserted right after the region (e.g. blank lines the formatter added) belongs to it.
  const lineCount = after.split('\n').length;
  end = Math.min(Math.max(end, start + 1), lineCount);
  return { start: Math.min(start, lineCount - 1), end };
}
