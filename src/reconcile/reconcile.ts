/**
 * Pure reconciliation of one file: given P (prior), the agent's input, W (written) and F (final),
 * rewrite the input so that `replay(P, input')` then `diff` equals F byte for byte.
 *
 * - Formatter hunks inside an edited region are absorbed into that edit's newText
 *   (any change: whitespace, quotes, semicolons, commas, parentheses, line breaks).
 * - An insertion exactly at a region's boundary belongs to that region, unless two regions touch there.
 * - A hunk that straddles a boundary widens the edit (oldText grows with P's text, newText with F's),
 *   when the widened oldText still finds exactly the same sites.
 * - Everything else goes into `diff`, a unified diff from `replay(P, input')` to F.
 * - Ambiguity (a widened anchor found twice, replaceAll sites formatted differently, one hunk over
 *   two edits, a region that cannot be located) leaves that edit as it was: `reconciled: false`, `reason`.
 * The result is always verified by replaying it; a failed check falls back to the original input.
 */
import { applyUnifiedDiff, unifiedDiff } from '../core/diff.js';
import { FormatboxError, messageOf } from '../core/errors.js';
import type { EditInput, SingleFileInput } from '../core/types.js';
import { applyTracked, occurrences, toolKind, type AppliedEdits, type EditSite } from '../tools/index.js';
import { formatterHunks } from './hunks.js';
import { anchoredPlans, planEdits, slideIntoRegions, type EditPlan } from './plan.js';

export interface ReconcileRequest {
  /** P. */
  prior: string;
  input: SingleFileInput;
  /** W as the caller has it; when given and not equal to `applyInput(prior, input)`, nothing is rewritten. */
  written?: string;
  /** F. */
  final: string;
  /** Path for the diff headers. */
  path?: string;
}

export interface ReconcileResult {
  input: SingleFileInput;
  /** False when some formatter change inside an edited region could not be put into the input. */
  reconciled: boolean;
  reason?: string;
  /** Unified diff from `replay(prior, input)` to F; absent when they are equal. */
  diff?: string;
}

export function reconcile(request: ReconcileRequest): ReconcileResult {
  return reconcileTracked(request).result;
}

/**
 * `reconcile` for a caller that already applied the input (`applied`, from `applyTracked(prior,
 * input)`; computed when absent), also giving `replayed`: `replay(prior, result.input)`, the text
 * the diff applies to. A receipt applies the edit once this way, instead of again for each step.
 */
export function reconcileTracked(request: ReconcileRequest, applied?: AppliedEdits): { result: ReconcileResult; replayed: string } {
  const { prior, input, final } = request;
  const kind = toolKind(input);
  if (kind === 'applyPatch') throw new FormatboxError('INVALID_REQUEST', 'reconcile takes one file; use afterEdit or reconcilePatchFile for a patch');
  if (kind === 'write') return { result: { input: { ...input, content: final }, reconciled: true }, replayed: final };
  const tracked = applied ?? applyTracked(prior, input);
  const rewritten = rewriteInput(request, tracked, kind);
  // Only a rewrite that replayed changes the replay; every other result keeps the input as given.
  return { result: rewritten.result, replayed: rewritten.replayed ?? tracked.text };
}

function rewriteInput(request: ReconcileRequest, applied: AppliedEdits, kind: 'edit' | 'multiEdit'): { result: ReconcileResult; replayed?: string } {
  const { prior, input, final } = request;
  const path = request.path ?? 'file';
  const written = applied.text;
  if (request.written !== undefined && request.written !== written) {
    return { result: unreconciled(input, written, final, path,
      'the written file is not the prior with the input applied (changed by someone else?); the edited region cannot be located') };
  }
  if (written === final) return { result: { input, reconciled: true } };
  if (endsEveryLineWithCrlf(written) && !final.includes('\r')) return reconcileInWrittenEndings(request, applied, kind);

  // Fast path: the text between the regions is untouched in F, so each region maps to what lies
  // between the same anchors in F (the stable-anchor idea of code-assistant, made exact).
  const anchored = anchoredPlans(written, final, applied.sites, applied.effective);
  if (anchored) {
    const attempt = tryRewrite(prior, input, written, final, anchored);
    if (!('error' in attempt) && attempt.replayed === final) return { result: { input: attempt.input, reconciled: true }, replayed: final };
  }

  // The formatter left every edited line as it was (each appears once in W and once in F, in order):
  // the input stands and the diff carries the rest. Without this, a diff that aligns a heavily
  // reformatted file badly could fold far-away changes into an edit the formatter never touched.
  if (untouchedLines(written, final, applied.sites)) {
    const diff = unifiedDiff(written, final, { path });
    if (applyUnifiedDiff(written, diff) === final) return { result: { input, reconciled: true, ...(diff !== '' ? { diff } : {}) } };
  }

  const multi = kind === 'multiEdit';
  const label = (edit: number): string => (multi ? `edit ${edit + 1}: ` : '');
  const hunks = slideIntoRegions(formatterHunks(written, final), applied.sites, written, final);
  const plans = planEdits(written, final, applied.sites, applied.effective, hunks, label);

  // Build input' from the plans; verify; on failure accept rewrites one by one.
  let accepted = plans.filter((plan) => plan.rewritten !== undefined);
  let result = tryRewrite(prior, input, written, final, accepted);
  if ('error' in result && accepted.length > 0) {
    const kept: EditPlan[] = [];
    for (const plan of accepted) {
      const attempt = tryRewrite(prior, input, written, final, [...kept, plan]);
      if (!('error' in attempt)) kept.push(plan);
      else {
        plan.failure = `${label(plan.edit)}${plan.widened ? 'the widened edit' : 'the rewritten edit'} would not replay (${attempt.error})`;
        delete plan.rewritten;
      }
    }
    accepted = kept;
    result = tryRewrite(prior, input, written, final, accepted);
  }
  if ('error' in result) {
    return { result: unreconciled(input, written, final, path, 'the rewritten input did not replay; kept the original') };
  }
  const failures = [...new Set(plans.filter((plan) => plan.failure !== undefined).map((plan) => plan.failure as string))];
  const diff = unifiedDiff(result.replayed, final, { path });
  if (applyUnifiedDiff(result.replayed, diff) !== final) {
    return { result: unreconciled(input, written, final, path, 'the diff did not apply; kept the original input') };
  }
  const out: ReconcileResult = { input: result.input, reconciled: failures.length === 0 };
  if (failures.length > 0) out.reason = failures.join('; ');
  if (diff !== '') out.diff = diff;
  return { result: out, replayed: result.replayed };
}

/** Every newline of `text` (at least one) is part of a CRLF. */
function endsEveryLineWithCrlf(text: string): boolean {
  return text.includes('\r\n') && !/(^|[^\r])\n/.test(text);
}

/**
 * The formatter turned a CRLF file into LF (Biome's, Prettier's and Ruff's default). Reconciled on F
 * in W's own endings, so the edits keep every change the formatter made in them (a `;` it added at
 * the end of a line is not taken for the CR it replaced) and stay in the file's endings; what is left
 * from `replay(P, input')` to F is the line endings alone, in the diff.
 */
function reconcileInWrittenEndings(request: ReconcileRequest, applied: AppliedEdits, kind: 'edit' | 'multiEdit'): { result: ReconcileResult; replayed?: string } {
  const inWrittenEndings = rewriteInput({ ...request, final: request.final.replace(/\n/g, '\r\n') }, applied, kind);
  const replayed = inWrittenEndings.replayed ?? applied.text;
  const { diff: _diffToCrlf, ...result } = inWrittenEndings.result;
  const diff = unifiedDiff(replayed, request.final, { path: request.path ?? 'file' });
  if (applyUnifiedDiff(replayed, diff) !== request.final) {
    return { result: unreconciled(request.input, applied.text, request.final, request.path ?? 'file', 'the diff did not apply; kept the original input') };
  }
  return { result: { ...result, ...(diff !== '' ? { diff } : {}) }, replayed };
}

/** True when the whole lines holding each edited region are unique in W and appear once, in the same order, in F. */
function untouchedLines(written: string, final: string, sites: readonly EditSite[]): boolean {
  if (sites.length === 0) return false;
  let after = 0;
  for (const site of sites) {
    const lineStart = written.lastIndexOf('\n', site.start - 1) + 1;
    const newline = written.indexOf('\n', Math.max(site.end, site.start + 1) - 1);
    const lineEnd = newline === -1 ? written.length : newline + 1;
    const block = written.slice(lineStart, lineEnd);
    if (block.trim() === '' || occurrences(written, block, 2).length !== 1) return false;
    const found = occurrences(final, block, 2);
    if (found.length !== 1 || (found[0] as number) < after) return false;
    after = (found[0] as number) + block.length;
  }
  return true;
}

/** The original input, a diff from W to F, and why. Throws INVARIANT_BROKEN if even that does not replay. */
function unreconciled(input: SingleFileInput, written: string, final: string, path: string, reason: string): ReconcileResult {
  const diff = unifiedDiff(written, final, { path });
  if (applyUnifiedDiff(written, diff) !== final) {
    throw new FormatboxError('INVARIANT_BROKEN', `the diff from W to F does not apply (${path})`);
  }
  const out: ReconcileResult = { input, reconciled: false, reason };
  if (diff !== '') out.diff = diff;
  return out;
}

function tryRewrite(
  prior: string, input: SingleFileInput, written: string, final: string, plans: readonly EditPlan[],
): { input: SingleFileInput; replayed: string } | { error: string } {
  const rewritten = rebuildInput(input, plans);
  let replayed: string;
  try {
    replayed = applyTracked(prior, rewritten).text;
  } catch (error) {
    return { error: messageOf(error) };
  }
  // What replaying input' must give: W with each accepted region replaced by its F text.
  const replacements = plans.flatMap((plan) => plan.replacements).sort((a, b) => a.ws - b.ws);
  const parts: string[] = [];
  let cursor = 0;
  for (const r of replacements) {
    parts.push(written.slice(cursor, r.ws), final.slice(r.fs, r.fe));
    cursor = r.we;
  }
  parts.push(written.slice(cursor));
  return replayed === parts.join('') ? { input: rewritten, replayed } : { error: 'it would replay to a different place' };
}

function rebuildInput(input: SingleFileInput, plans: readonly EditPlan[]): SingleFileInput {
  const byEdit = new Map(plans.map((plan) => [plan.edit, plan.rewritten as EditInput]));
  if ('edits' in input) {
    return { ...input, edits: input.edits.map((edit, i) => (byEdit.has(i) ? { ...edit, ...byEdit.get(i) } : edit)) };
  }
  const edit = byEdit.get(0);
  return edit ? { ...input, ...edit } : input;
}
