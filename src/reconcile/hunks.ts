/**
 * Formatter hunks: where F differs from W, as character ranges. Lines are diffed first (fast,
 * see core/diff.ts), then each changed window is refined to tokens (words, single punctuation,
 * whitespace runs split at newlines), so `const y=42;` → `const y = 42;` is two small insertions.
 */
import { diffLineChanges, splitLines, type LineChange } from '../core/diff.js';

/** W[ws, we) became F[fs, fe). Sorted, disjoint; never empty on both sides. */
export interface Hunk {
  ws: number;
  we: number;
  fs: number;
  fe: number;
}

/** Windows with more tokens than this are not refined (they stay one hunk). */
const MAX_REFINE_TOKENS = 20_000;

/** Token-level replacements up to this many UTF-16 units per side are refined to characters. */
const MAX_CHAR_REFINE = 64;

const TOKEN = /\n|[^\S\n]+|[\p{L}\p{N}_$]+|[^]/gu;

function tokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

function offsets(parts: readonly string[]): number[] {
  const out = new Array<number>(parts.length + 1);
  out[0] = 0;
  for (let i = 0; i < parts.length; i++) out[i + 1] = (out[i] as number) + (parts[i] as string).length;
  return out;
}

export function formatterHunks(written: string, final: string, refine = true): Hunk[] {
  if (written === final) return [];
  const wl = splitLines(written);
  const fl = splitLines(final);
  const wo = offsets(wl);
  const fo = offsets(fl);
  const hunks: Hunk[] = [];
  for (const change of joinAcrossBlankLines(diffLineChanges(wl, fl), wl)) {
    const ws = wo[change.aStart] as number;
    const we = wo[change.aEnd] as number;
    const fs = fo[change.bStart] as number;
    const fe = fo[change.bEnd] as number;
    if (!refine) {
      hunks.push({ ws, we, fs, fe });
      continue;
    }
    const wt = tokens(written.slice(ws, we));
    const ft = tokens(final.slice(fs, fe));
    if (wt.length + ft.length > MAX_REFINE_TOKENS) {
      hunks.push({ ws, we, fs, fe });
      continue;
    }
    refineWindow(written, final, ws, fs, wt, ft, hunks);
  }
  return hunks;
}

const WHITESPACE = /^\s+$/;

/**
 * Blank lines are weak anchors: a formatter that adds or removes one shifts the line alignment, and
 * the line diff happily pairs the wrong blank lines. Changes separated only by blank lines are
 * refined as one window, where the words decide the alignment.
 */
function joinAcrossBlankLines(changes: LineChange[], wl: readonly string[]): LineChange[] {
  const out: LineChange[] = [];
  for (const change of changes) {
    const last = out[out.length - 1];
    let blankGap = last !== undefined && change.aStart - last.aEnd === change.bStart - last.bEnd;
    for (let i = last?.aEnd ?? 0; blankGap && i < change.aStart; i++) blankGap = (wl[i] as string).trim() === '';
    if (last && blankGap) {
      last.aEnd = change.aEnd;
      last.bEnd = change.bEnd;
    } else out.push({ ...change });
  }
  return out;
}

/**
 * Align the words and punctuation of a changed window first, ignoring whitespace, then diff what lies
 * between the aligned tokens. A plain token diff lets whitespace tokens ('\n', '    ') drive the
 * alignment, so a re-indented line can come out as "deleted here, inserted two lines down", a change
 * that spans text the formatter never touched.
 */
function refineWindow(written: string, final: string, ws: number, fs: number, wt: string[], ft: string[], hunks: Hunk[]): void {
  const wto = offsets(wt);
  const fto = offsets(ft);
  const wSig = significant(wt);
  const fSig = significant(ft);
  // Pairs of aligned significant tokens (indices into wt / ft), in order.
  const anchors: Array<[number, number]> = [];
  let ai = 0;
  let bi = 0;
  const takeEqual = (aEnd: number, bEnd: number): void => {
    for (; ai < aEnd && bi < bEnd; ai++, bi++) anchors.push([wSig[ai] as number, fSig[bi] as number]);
  };
  for (const change of diffLineChanges(wSig.map((i) => wt[i] as string), fSig.map((i) => ft[i] as string))) {
    takeEqual(change.aStart, change.bStart);
    ai = change.aEnd;
    bi = change.bEnd;
  }
  takeEqual(wSig.length, fSig.length);
  // Between anchors (and around them) the tokens are diffed as before.
  let wCursor = 0;
  let fCursor = 0;
  for (const [wa, fa] of [...anchors, [wt.length, ft.length] as [number, number]]) {
    if (wa > wCursor || fa > fCursor) {
      refineTokens(written, final, ws + (wto[wCursor] as number), fs + (fto[fCursor] as number), wt.slice(wCursor, wa), ft.slice(fCursor, fa), hunks);
    }
    wCursor = wa + 1;
    fCursor = fa + 1;
  }
}

function significant(parts: readonly string[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < parts.length; i++) if (!WHITESPACE.test(parts[i] as string)) out.push(i);
  return out;
}

/** Token diff of one stretch, with small replacements refined to characters ('ABCD' → 'AB CD' is one insertion). */
function refineTokens(written: string, final: string, ws: number, fs: number, wt: string[], ft: string[], hunks: Hunk[]): void {
  const wto = offsets(wt);
  const fto = offsets(ft);
  for (const inner of diffLineChanges(wt, ft)) {
    const tws = ws + (wto[inner.aStart] as number);
    const twe = ws + (wto[inner.aEnd] as number);
    const tfs = fs + (fto[inner.bStart] as number);
    const tfe = fs + (fto[inner.bEnd] as number);
    if (twe - tws > MAX_CHAR_REFINE || tfe - tfs > MAX_CHAR_REFINE || twe === tws || tfe === tfs) {
      pushHunk(hunks, { ws: tws, we: twe, fs: tfs, fe: tfe });
      continue;
    }
    for (const c of diffLineChanges(written.slice(tws, twe).split(''), final.slice(tfs, tfe).split(''))) {
      pushHunk(hunks, { ws: tws + c.aStart, we: tws + c.aEnd, fs: tfs + c.bStart, fe: tfs + c.bEnd });
    }
  }
}

/** Hunks stay disjoint and non-empty; two that touch on both sides become one. */
function pushHunk(hunks: Hunk[], hunk: Hunk): void {
  const last = hunks[hunks.length - 1];
  if (last && last.we === hunk.ws && last.fe === hunk.fs) {
    last.we = hunk.we;
    last.fe = hunk.fe;
  } else hunks.push(hunk);
}

/** Hunks as whole lines (for line-based tools: patches). Indices are line numbers in W and F. */
export function lineHunks(written: string, final: string): Array<{ aStart: number; aEnd: number; bStart: number; bEnd: number }> {
  if (written === final) return [];
  return diffLineChanges(splitLines(written), splitLines(final));
}
