/**
 * Where each edit's rewrite comes from, for reconcile.ts: one EditPlan per edit (its new oldText and
 * newText and the W ranges it takes from F, or why it has none). Two ways: anchoredPlans when the
 * text between the edited regions is untouched in F, else planEdits over the formatter's hunks
 * (widened over hunks that straddle a region's boundary, after slideIntoRegions moved ambiguous
 * insertions and deletions into a region). reconcile.ts accepts a plan only when its replay checks.
 */
import type { EditInput } from '../core/types.js';
import type { EditSite } from '../tools/index.js';
import { formatterHunks, type Hunk } from './hunks.js';

/** At most this many characters of context are added to an oldText when a hunk straddles its edge. */
const MAX_WIDEN = 2000;

/** One edit's rewrite, or why it has none. */
export interface EditPlan {
  edit: number;
  rewritten?: EditInput;
  /** W ranges replaced by F ranges when the rewrite is accepted. */
  replacements: Array<{ ws: number; we: number; fs: number; fe: number }>;
  failure?: string;
  /** The oldText grew with context (its uniqueness is checked by the replay). */
  widened?: boolean;
}

/**
 * When every gap between regions (and the text before the first and after the last) appears in F
 * unchanged and in exactly one place, the regions' new texts are what lies between them in F.
 * Undefined when any gap moved, changed or could sit in two places, or replaceAll sites differ.
 */
export function anchoredPlans(written: string, final: string, sites: readonly EditSite[], effective: readonly EditInput[]): EditPlan[] | undefined {
  if (sites.length === 0) return undefined;
  const gaps: string[] = [];
  let cursor = 0;
  for (const site of sites) {
    gaps.push(written.slice(cursor, site.start));
    cursor = site.end;
  }
  gaps.push(written.slice(cursor));
  const head = gaps[0] as string;
  const tail = gaps[gaps.length - 1] as string;
  if (head.length + tail.length > final.length || !startsWithText(final, head) || !endsWithText(final, tail)) return undefined;
  const spans: Array<{ fs: number; fe: number }> = [];
  let hunks: Hunk[] | undefined;
  let pos = head.length;
  const limit = final.length - tail.length;
  for (let g = 1; g < gaps.length - 1; g++) {
    const gap = gaps[g] as string;
    if (gap === '') return undefined; // Touching regions: where one ends in F is a guess.
    let at = final.indexOf(gap, pos);
    if (at === -1 || at + gap.length > limit) return undefined;
    const again = final.indexOf(gap, at + 1);
    if (again !== -1 && again + gap.length <= limit) {
      // A short gap (': ', ' ') found twice: take the place the character diff puts it, when one
      // place is nearest. Any choice replays to F exactly; this one matches what the formatter did.
      hunks ??= formatterHunks(written, final);
      const chosen = nearestOccurrence(final, gap, pos, limit, mapToFinal(hunks, (sites[g - 1] as EditSite).end));
      if (chosen === undefined) return undefined;
      at = chosen;
    }
    spans.push({ fs: pos, fe: at });
    pos = at + gap.length;
  }
  spans.push({ fs: pos, fe: limit });
  const plans: EditPlan[] = [];
  for (let edit = 0; edit < effective.length; edit++) {
    const original = effective[edit] as EditInput;
    const mine = sites.map((site, i) => ({ site, span: spans[i] as { fs: number; fe: number } })).filter((x) => x.site.edit === edit);
    const plan: EditPlan = { edit, replacements: [] };
    plans.push(plan);
    if (mine.length === 0) continue;
    const texts = new Set(mine.map((x) => final.slice(x.span.fs, x.span.fe)));
    if (texts.size !== 1) return undefined;
    const newText = [...texts][0] as string;
    if (newText === original.newText) continue;
    plan.rewritten = { oldText: original.oldText, newText, ...(original.replaceAll !== undefined ? { replaceAll: original.replaceAll } : {}) };
    plan.replacements = mine.map((x) => ({ ws: x.site.start, we: x.site.end, fs: x.span.fs, fe: x.span.fe }));
  }
  return plans.filter((plan) => plan.rewritten !== undefined);
}

/**
 * `text.startsWith(prefix)` / `text.endsWith(suffix)` as a comparison of two strings, which V8 does
 * as one block compare; its startsWith/endsWith compare character by character (15 µs against
 * 0.5 µs on a 40 KB file, and every edit receipt does both).
 */
function startsWithText(text: string, prefix: string): boolean {
  return prefix.length <= text.length && text.slice(0, prefix.length) === prefix;
}

function endsWithText(text: string, suffix: string): boolean {
  return suffix.length <= text.length && text.slice(text.length - suffix.length) === suffix;
}

/** Where W offset `at` lands in F by the hunks (the start of the F side when `at` is inside a hunk). */
function mapToFinal(hunks: readonly Hunk[], at: number): number {
  let delta = 0;
  for (const h of hunks) {
    if (h.ws > at) break;
    if (at < h.we) return h.fs;
    delta = h.fe - h.we;
  }
  return at + delta;
}

/** The occurrence of `needle` in final[from, limit) nearest to `target`; undefined on a tie. */
function nearestOccurrence(final: string, needle: string, from: number, limit: number, target: number): number | undefined {
  const MAX_CANDIDATES = 10_000;
  let best: number | undefined;
  let bestDistance = Infinity;
  let tie = false;
  for (let at = final.indexOf(needle, from), n = 0; at !== -1 && at + needle.length <= limit; at = final.indexOf(needle, at + 1)) {
    if (++n > MAX_CANDIDATES) return undefined;
    const distance = Math.abs(at - target);
    if (distance < bestDistance) {
      best = at;
      bestDistance = distance;
      tie = false;
    } else if (distance === bestDistance) tie = true;
    if (at > target) break; // Later ones are only farther.
  }
  return tie ? undefined : best;
}

/**
 * A pure insertion or deletion inside a run of repeats can sit at several places ('  ' → ' ' deletes
 * either space). When one of those places is inside an edited region, move it there (the nearest one),
 * so the edit absorbs it instead of leaving it to the diff.
 */
export function slideIntoRegions(hunks: Hunk[], sites: readonly EditSite[], written: string, final: string): Hunk[] {
  const MAX_SLIDE = 256;
  const out = hunks.map((h) => ({ ...h }));
  let first = 0;
  for (let i = 0; i < out.length; i++) {
    const h = out[i] as Hunk;
    if (h.ws !== h.we && h.fs !== h.fe) continue;
    // Sites are sorted by start and disjoint: only those within reach matter.
    while (first < sites.length && (sites[first] as EditSite).end + MAX_SLIDE < h.ws) first++;
    const near: EditSite[] = [];
    for (let k = first; k < sites.length && (sites[k] as EditSite).start - MAX_SLIDE <= h.we; k++) near.push(sites[k] as EditSite);
    if (near.length === 0) continue;
    const inside = (shift: number): boolean =>
      near.some((site) => h.ws + shift >= site.start && h.we + shift <= site.end && (h.ws !== h.we || (site.start < h.ws + shift && h.ws + shift < site.end)));
    if (inside(0)) continue;
    const previous = out[i - 1];
    const next = out[i + 1];
    let left = 0;
    while (left < MAX_SLIDE && h.ws - left - 1 >= 0 && h.fs - left - 1 >= 0 &&
      written[h.ws - left - 1] === written[h.we - left - 1] && final[h.fs - left - 1] === final[h.fe - left - 1] &&
      (!previous || (h.ws - left - 1 >= previous.we && h.fs - left - 1 >= previous.fe))) left++;
    let right = 0;
    while (right < MAX_SLIDE && h.we + right < written.length && h.fe + right < final.length &&
      written[h.ws + right] === written[h.we + right] && final[h.fs + right] === final[h.fe + right] &&
      (!next || (h.we + right + 1 <= next.ws && h.fe + right + 1 <= next.fs))) right++;
    for (let k = 1; k <= Math.max(left, right); k++) {
      const shift = k <= left && inside(-k) ? -k : k <= right && inside(k) ? k : 0;
      if (shift !== 0) {
        Object.assign(h, { ws: h.ws + shift, we: h.we + shift, fs: h.fs + shift, fe: h.fe + shift });
        break;
      }
    }
  }
  return out;
}

export function planEdits(
  written: string, final: string, sites: readonly EditSite[], effective: readonly EditInput[],
  hunks: readonly Hunk[], label: (edit: number) => string,
): EditPlan[] {
  // 1. Widen each site over hunks that straddle its boundaries.
  const regions = sites.map((site) => {
    let rs = site.start;
    let re = site.end;
    if (rs === re) {
      // A deletion: a formatter change right next to it (the blank line the removed code leaves) joins it.
      for (const h of hunks) {
        if (h.ws === h.we) continue;
        if (h.we === site.start) rs = h.ws;
        if (h.ws === site.end) re = h.we;
      }
    }
    for (let changed = true; changed;) {
      changed = false;
      for (const h of hunks) {
        if (h.we < rs) continue;
        if (h.ws > re) break;
        if (h.ws === h.we) continue;
        if (h.ws < rs && h.we > rs) {
          rs = h.ws;
          changed = true;
        }
        if (h.ws < re && h.we > re) {
          re = h.we;
          changed = true;
        }
      }
    }
    return { site, rs, re };
  });
  const failures = new Map<number, string>();
  const fail = (edit: number, why: string): void => {
    if (!failures.has(edit)) failures.set(edit, why);
  };
  // A formatter that rewrote a large area around the edit: the edit stays small and the diff (or a
  // reread hint) carries the rest, rather than an oldText holding half the file.
  for (const region of regions) {
    const grown = region.site.start - region.rs + (region.re - region.site.end);
    if (grown > MAX_WIDEN) fail(region.site.edit, `${label(region.site.edit)}the formatter rewrote a large area around the edit`);
  }
  // 2. Widened regions may not overlap another region.
  for (let i = 0; i + 1 < regions.length; i++) {
    const a = regions[i] as (typeof regions)[number];
    const b = regions[i + 1] as (typeof regions)[number];
    if (b.rs < a.re || (a.rs === a.re && b.rs === b.re && a.rs === b.rs)) {
      if (a.site.edit === b.site.edit) fail(a.site.edit, `${label(a.site.edit)}a formatter change spans two of its replaceAll sites`);
      else {
        const why = `edits ${Math.min(a.site.edit, b.site.edit) + 1} and ${Math.max(a.site.edit, b.site.edit) + 1}: one formatter change spans both`;
        fail(a.site.edit, why);
        fail(b.site.edit, why);
      }
    }
  }
  // 3. Per site: which hunks it absorbs, and its F range.
  const touching = (x: number): number => regions.filter((r) => r.rs === x || r.re === x).length;
  const perSite = regions.map((region) => {
    const { rs, re } = region;
    let fs = rs;
    let fe = re;
    let absorbed = 0;
    for (const h of hunks) {
      if (h.ws > re) break;
      const delta = h.fe - h.fs - (h.we - h.ws);
      const insertion = h.ws === h.we;
      const claimed = insertion && (h.ws === rs || h.ws === re) && touching(h.ws) === 1;
      const beforeStart = h.we < rs || (h.we === rs && (!insertion || !claimed));
      const beforeEnd = h.we < re || (h.we === re && (h.ws < re || claimed));
      if (beforeStart) fs += delta;
      if (beforeEnd) fe += delta;
      if (beforeEnd && !beforeStart) absorbed++;
    }
    return { ...region, fs, fe, absorbed };
  });
  // 4. Per edit: one consistent rewrite over all its sites.
  const plans: EditPlan[] = [];
  for (let edit = 0; edit < effective.length; edit++) {
    const mine = perSite.filter((s) => s.site.edit === edit);
    const original = effective[edit] as EditInput;
    const plan: EditPlan = { edit, replacements: [] };
    plans.push(plan);
    if (mine.length === 0) continue;
    const touched = mine.some((s) => s.absorbed > 0 || s.rs !== s.site.start || s.re !== s.site.end);
    if (!touched) continue;
    if (failures.has(edit)) {
      plan.failure = failures.get(edit) as string;
      continue;
    }
    const shapes = mine.map((s) => ({
      left: written.slice(s.rs, s.site.start),
      right: written.slice(s.site.end, s.re),
      newText: final.slice(s.fs, s.fe),
    }));
    const first = shapes[0] as (typeof shapes)[number];
    if (shapes.some((s) => s.left !== first.left || s.right !== first.right || s.newText !== first.newText)) {
      plan.failure = `${label(edit)}the replaceAll sites were formatted differently`;
      continue;
    }
    if (original.oldText === '' && (first.left !== '' || first.right !== '')) {
      plan.failure = `${label(edit)}a formatter change crosses the edit's boundary`;
      continue;
    }
    const rewritten: EditInput = { oldText: first.left + original.oldText + first.right, newText: first.newText };
    if (original.replaceAll !== undefined) rewritten.replaceAll = original.replaceAll;
    plan.rewritten = rewritten;
    plan.replacements = mine.map((s) => ({ ws: s.rs, we: s.re, fs: s.fs, fe: s.fe }));
    plan.widened = first.left !== '' || first.right !== '';
  }
  return plans;
}
