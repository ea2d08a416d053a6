/**
 * Formatter hunks: where F differs from W, as character ranges. Lines are diffed first (fast,
 * see core/diff.ts), then each changed window is refined to tokens (words, single punctuation,
 * whitespace runs split at newlines), so `const y=42;` → `const y = 42;` is two small insertions.
 */
import { diffLineChanges, splitLines } from '../core/diff.js';

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
  for (const change of diffLineChanges(wl, fl)) {
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
    const wto = offsets(wt);
    const fto = offsets(ft);
    for (const inner of diffLineChanges(wt, ft)) {
      const tws = ws + (wto[inner.aStart] as number);
      const twe = ws + (wto[inner.aEnd] as number);
      const tfs = fs + (fto[inner.bStart] as number);
      const tfe = fs + (fto[inner.bEnd] as number);
      if (twe - tws > MAX_CHAR_REFINE || tfe - tfs > MAX_CHAR_REFINE || twe === tws || tfe === tfs) {
        hunks.push({ ws: tws, we: twe, fs: tfs, fe: tfe });
        continue;
      }
      // Small replacements are refined to characters ('ABCD' → 'AB CD' is one insertion).
      for (const c of diffLineChanges(written.slice(tws, twe).split(''), final.slice(tfs, tfe).split(''))) {
        hunks.push({ ws: tws + c.aStart, we: tws + c.aEnd, fs: tfs + c.bStart, fe: tfs + c.bEnd });
      }
    }
  }
  return hunks;
}

/** Hunks as whole lines (for line-based tools: patches). Indices are line numbers in W and F. */
export function lineHunks(written: string, final: string): Array<{ aStart: number; aEnd: number; bStart: number; bEnd: number }> {
  if (written === final) return [];
  return diffLineChanges(splitLines(written), splitLines(final));
}
