/**
 * Fast line diffs and exact unified diffs. Pure and universal.
 *
 * jsdiff is O(N·D) on whole files (a minute on a 10k-line reformat), so this module:
 * checks equality first, trims the common prefix and suffix, interns lines to numbers,
 * splits the rest on lines that occur once on each side (patience anchors), and runs a
 * work-bounded Myers diff only between anchors. When the bound is hit, the window becomes
 * one replace hunk: still a correct diff, just a coarser one.
 *
 * Diffs are byte-exact: a line keeps its `\r`, the last line may lack `\n`
 * ("\ No newline at end of file"), and a BOM is part of the first line.
 */
import { FormatboxError } from './errors.js';
import { shownPath } from './shown.js';

/** Lines of a text, each with its `\n` (the last one may have none). `\r` stays in the line. */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl === -1) break;
    lines.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** A changed window: `a[aStart, aEnd)` became `b[bStart, bEnd)`. Windows are sorted and separated by equal elements. */
export interface LineChange {
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

/** Upper bound on Myers work ((N+M)·D cells) for one window before it becomes a single replace hunk. */
const MYERS_WORK_LIMIT = 4_000_000;

/** Differences between two sequences of strings (lines, or tokens), as sorted change windows. */
export function diffLineChanges(a: readonly string[], b: readonly string[]): LineChange[] {
  const ids = new Map<string, number>();
  const intern = (s: string): number => {
    let id = ids.get(s);
    if (id === undefined) {
      id = ids.size;
      ids.set(s, id);
    }
    return id;
  };
  const ai = Int32Array.from(a, intern);
  const bi = Int32Array.from(b, intern);
  const out: LineChange[] = [];
  diffWindow(ai, 0, ai.length, bi, 0, bi.length, out);
  return mergeAdjacent(out);
}

function mergeAdjacent(changes: LineChange[]): LineChange[] {
  const merged: LineChange[] = [];
  for (const change of changes) {
    if (change.aStart === change.aEnd && change.bStart === change.bEnd) continue;
    const last = merged[merged.length - 1];
    if (last && last.aEnd === change.aStart && last.bEnd === change.bStart) {
      last.aEnd = change.aEnd;
      last.bEnd = change.bEnd;
    } else merged.push({ ...change });
  }
  return merged;
}

function diffWindow(
  a: Int32Array, aLo: number, aHi: number,
  b: Int32Array, bLo: number, bHi: number,
  out: LineChange[],
): void {
  while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) {
    aLo++;
    bLo++;
  }
  while (aLo < aHi && bLo < bHi && a[aHi - 1] === b[bHi - 1]) {
    aHi--;
    bHi--;
  }
  if (aLo === aHi || bLo === bHi) {
    if (aLo !== aHi || bLo !== bHi) out.push({ aStart: aLo, aEnd: aHi, bStart: bLo, bEnd: bHi });
    return;
  }
  const anchors = uniqueAnchors(a, aLo, aHi, b, bLo, bHi);
  if (anchors.length === 0) {
    myers(a, aLo, aHi, b, bLo, bHi, out);
    return;
  }
  let pa = aLo;
  let pb = bLo;
  for (const [ia, ib] of anchors) {
    diffWindow(a, pa, ia, b, pb, ib, out);
    pa = ia + 1;
    pb = ib + 1;
  }
  diffWindow(a, pa, aHi, b, pb, bHi, out);
}

/** Lines occurring exactly once in each window, as (aIndex, bIndex) pairs forming the longest increasing run. */
function uniqueAnchors(
  a: Int32Array, aLo: number, aHi: number,
  b: Int32Array, bLo: number, bHi: number,
): Array<[number, number]> {
  // count: 1 = once in a, 2 = more than once in a; position kept for the once case.
  const inA = new Map<number, number>();
  for (let i = aLo; i < aHi; i++) {
    const v = a[i] as number;
    inA.set(v, inA.has(v) ? -1 : i);
  }
  const inB = new Map<number, number>();
  for (let i = bLo; i < bHi; i++) {
    const v = b[i] as number;
    if ((inA.get(v) ?? -1) < 0) continue;
    inB.set(v, inB.has(v) ? -1 : i);
  }
  const pairs: Array<[number, number]> = [];
  for (let i = bLo; i < bHi; i++) {
    const v = b[i] as number;
    if (inB.get(v) === i) pairs.push([inA.get(v) as number, i]);
  }
  if (pairs.length === 0) return pairs;
  // Longest increasing subsequence by a-index (pairs are already in b order).
  const tails: number[] = [];
  const previous = new Int32Array(pairs.length).fill(-1);
  for (let k = 0; k < pairs.length; k++) {
    const x = (pairs[k] as [number, number])[0];
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((pairs[tails[mid] as number] as [number, number])[0] < x) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[k] = tails[lo - 1] as number;
    tails[lo] = k;
  }
  const result: Array<[number, number]> = [];
  for (let k = tails[tails.length - 1] as number; k >= 0; k = previous[k] as number) result.push(pairs[k] as [number, number]);
  return result.reverse();
}

/** Myers' O((N+M)·D) diff on a window, with a work bound; over the bound the window is one change. */
function myers(
  a: Int32Array, aLo: number, aHi: number,
  b: Int32Array, bLo: number, bHi: number,
  out: LineChange[],
): void {
  const n = aHi - aLo;
  const m = bHi - bLo;
  const max = n + m;
  const maxD = Math.min(max, Math.max(1, Math.floor(MYERS_WORK_LIMIT / Math.max(1, max))));
  const offset = maxD + 1;
  const v = new Int32Array(2 * offset + 1);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= maxD; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number))) x = v[offset + k + 1] as number;
      else x = (v[offset + k - 1] as number) + 1;
      let y = x - k;
      while (x < n && y < m && a[aLo + x] === b[bLo + y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    if (found >= 0) break;
  }
  if (found < 0) {
    out.push({ aStart: aLo, aEnd: aHi, bStart: bLo, bEnd: bHi });
    return;
  }
  // Backtrack: trace[d] holds v before step d, for k in [-d-1, d+1] (index k + d + 1).
  const edits: LineChange[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const vd = trace[d] as Int32Array;
    const at = (k: number): number => vd[k + d + 1] as number;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    const xStart = down ? prevX : prevX + 1;
    while (x > xStart && y > xStart - k) {
      x--;
      y--;
    }
    // Now (x, y) is just after the single insertion/deletion of step d.
    if (down) edits.push({ aStart: aLo + prevX, aEnd: aLo + prevX, bStart: bLo + prevY, bEnd: bLo + prevY + 1 });
    else edits.push({ aStart: aLo + prevX, aEnd: aLo + prevX + 1, bStart: bLo + prevY, bEnd: bLo + prevY });
    x = prevX;
    y = prevY;
  }
  edits.reverse();
  for (const e of edits) out.push(e);
}

// ---------------------------------------------------------------------------
// Unified diffs

interface UnifiedDiffOptions {
  /** Path shown as `--- a/<path>` / `+++ b/<path>` (an absolute one as it is). Default `file`. */
  path?: string;
  /** Lines of context around each hunk. Default 3. */
  context?: number;
}

/**
 * A unified diff from `before` to `after`, or '' when they are equal. Byte-exact: `\r` stays in the
 * line text and a missing final newline is marked with `\ No newline at end of file`.
 */
export function unifiedDiff(before: string, after: string, options: UnifiedDiffOptions = {}): string {
  if (before === after) return '';
  const path = shownPath(options.path ?? 'file');
  const context = options.context ?? 3;
  const a = splitLines(before);
  const b = splitLines(after);
  const changes = diffLineChanges(a, b);
  if (changes.length === 0) return '';
  // An absolute path is shown as it is (diff -u's form): `a//tmp/x` names no file.
  const absolute = path.startsWith('/');
  const out: string[] = [`--- ${absolute ? '' : 'a/'}${path}\n`, `+++ ${absolute ? '' : 'b/'}${path}\n`];
  for (const group of hunkGroups(changes, (c) => c.aStart, (c) => c.aEnd, context)) {
    const first = group[0] as LineChange;
    const last = group[group.length - 1] as LineChange;
    const aFrom = Math.max(0, first.aStart - context);
    const aTo = Math.min(a.length, last.aEnd + context);
    const bFrom = first.bStart - (first.aStart - aFrom);
    const bTo = last.bEnd + (aTo - last.aEnd);
    out.push(`@@ -${range(aFrom, aTo - aFrom)} +${range(bFrom, bTo - bFrom)} @@\n`);
    let ai = aFrom;
    for (const change of group) {
      for (; ai < change.aStart; ai++) out.push(diffLine(' ', a[ai] as string));
      for (let x = change.aStart; x < change.aEnd; x++) out.push(diffLine('-', a[x] as string));
      for (let x = change.bStart; x < change.bEnd; x++) out.push(diffLine('+', b[x] as string));
      ai = change.aEnd;
    }
    for (; ai < aTo; ai++) out.push(diffLine(' ', a[ai] as string));
  }
  return out.join('');
}

/**
 * The hunks of a unified diff: runs of changes (sorted, not overlapping) whose unchanged gap is at
 * most 2 × `context` lines, so their context lines would touch. Line numbers come from `start`/`end`.
 */
export function hunkGroups<T>(changes: readonly T[], start: (change: T) => number, end: (change: T) => number, context: number): T[][] {
  const groups: T[][] = [];
  for (const change of changes) {
    const group = groups[groups.length - 1];
    if (group && start(change) - end(group[group.length - 1] as T) <= 2 * context) group.push(change);
    else groups.push([change]);
  }
  return groups;
}

function range(start: number, length: number): string {
  if (length === 1) return `${start + 1}`;
  return `${length === 0 ? start : start + 1},${length}`;
}

function diffLine(prefix: string, line: string): string {
  return line.endsWith('\n') ? prefix + line : `${prefix}${line}\n\\ No newline at end of file\n`;
}

interface DiffHunk {
  /** 1-based start line in the old text as written in the header (0 for an empty range at the top). */
  oldStart: number;
  oldLines: string[];
  newLines: string[];
}

/** Parses the hunks of a single-file unified diff (file headers are skipped). Lines keep their `\n`. */
export function parseUnifiedDiff(diff: string): DiffHunk[] {
  const hunks: DiffHunk[] = [];
  const lines = diff.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let files = 0;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    i++;
    if (!line.startsWith('@@')) {
      if (line.startsWith('--- ') && ++files > 1) throw notApplicable('the diff names more than one file');
      continue;
    }
    const match = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (!match) throw notApplicable(`bad hunk header: ${line.slice(0, 60)}`);
    const hunk: DiffHunk = { oldStart: Number(match[1]), oldLines: [], newLines: [] };
    hunks.push(hunk);
    let oldLeft = match[2] === undefined ? 1 : Number(match[2]);
    let newLeft = match[4] === undefined ? 1 : Number(match[4]);
    let lastSide: 'old' | 'new' | 'both' | undefined;
    while (i < lines.length && (oldLeft > 0 || newLeft > 0 || (lines[i] as string).startsWith('\\'))) {
      const body = lines[i] as string;
      i++;
      const tag = body === '' ? ' ' : body[0];
      const text = body.slice(1) + '\n';
      if (tag === ' ') {
        hunk.oldLines.push(text);
        hunk.newLines.push(text);
        oldLeft--;
        newLeft--;
        lastSide = 'both';
      } else if (tag === '-') {
        hunk.oldLines.push(text);
        oldLeft--;
        lastSide = 'old';
      } else if (tag === '+') {
        hunk.newLines.push(text);
        newLeft--;
        lastSide = 'new';
      } else if (tag === '\\') {
        if (lastSide === 'old' || lastSide === 'both') stripNewline(hunk.oldLines);
        if (lastSide === 'new' || lastSide === 'both') stripNewline(hunk.newLines);
      } else {
        throw notApplicable(`unexpected diff line: ${body.slice(0, 60)}`);
      }
    }
    if (oldLeft !== 0 || newLeft !== 0) throw notApplicable(`hunk at line ${hunk.oldStart} is shorter than its header says`);
  }
  return hunks;
}

function stripNewline(list: string[]): void {
  const i = list.length - 1;
  if (i >= 0) list[i] = (list[i] as string).replace(/\n$/, '');
}

function notApplicable(message: string): FormatboxError {
  return new FormatboxError('EDIT_NOT_APPLICABLE', message);
}

/**
 * Applies a unified diff exactly (byte for byte). Each hunk's old lines must match; a hunk is
 * looked for at its stated line first, then at the nearest place after the previous hunk.
 * Throws FormatboxError('EDIT_NOT_APPLICABLE') when a hunk does not match.
 */
export function applyUnifiedDiff(text: string, diff: string): string {
  if (diff === '') return text;
  const hunks = parseUnifiedDiff(diff);
  const lines = splitLines(text);
  const out: string[] = [];
  let cursor = 0;
  for (const [index, hunk] of hunks.entries()) {
    const stated = Math.max(0, hunk.oldLines.length === 0 ? hunk.oldStart : hunk.oldStart - 1);
    const at = findBlock(lines, hunk.oldLines, stated, cursor);
    if (at < 0) throw notApplicable(`hunk ${index + 1} (line ${hunk.oldStart}) does not match the text`);
    for (let i = cursor; i < at; i++) out.push(lines[i] as string);
    for (const line of hunk.newLines) out.push(line);
    cursor = at + hunk.oldLines.length;
  }
  for (let i = cursor; i < lines.length; i++) out.push(lines[i] as string);
  return out.join('');
}

function blockAt(lines: readonly string[], block: readonly string[], at: number): boolean {
  if (at < 0 || at + block.length > lines.length) return false;
  for (let i = 0; i < block.length; i++) if (lines[at + i] !== block[i]) return false;
  return true;
}

function findBlock(lines: readonly string[], block: readonly string[], stated: number, from: number): number {
  if (stated >= from && blockAt(lines, block, stated)) return stated;
  for (let delta = 1; stated - delta >= from || stated + delta <= lines.length; delta++) {
    if (stated - delta >= from && blockAt(lines, block, stated - delta)) return stated - delta;
    if (stated + delta >= from && blockAt(lines, block, stated + delta)) return stated + delta;
  }
  return -1;
}
