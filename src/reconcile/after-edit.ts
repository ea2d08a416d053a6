/**
 * `afterEdit`: format W, reconcile, and build the receipt. The formatter comes in through
 * `deps.format` (the engine's format, or any function with its shape), so this stays pure.
 *
 * Report modes:
 * - 'receipt' (default): rewritten input, diff for what is outside it, note = line + diff (or reread hint).
 * - 'line': input unchanged, note = the line only, `reconciled: false`, `diff` = W→F (the invariant holds).
 * - 'none': like 'line' with an empty note (the Rust harness's `diff_back = false`). Never the default.
 *   In both, `reconciled: false` tells a harness that the agent's view may be stale.
 */
import { unifiedDiff } from '../core/diff.js';
import { shownPath } from '../core/shown.js';
import { FormatboxError } from '../core/errors.js';
import { fileRecord, type Sha256Port } from '../core/text.js';
import type {
  ApplyPatchInput, FormatOutcome, Limits, Receipt, SingleFileInput, ToolInput, Utf16Range,
} from '../core/types.js';
import { applyParsedPatch, applyTracked, parsePatch, toolKind, wrapPatch } from '../tools/index.js';
import { renderNote } from './note.js';
import { reconcilePatchFile } from './patch.js';
import { reconcileTracked } from './reconcile.js';

export type Report = 'receipt' | 'line' | 'none';

export interface AfterEditDeps {
  /** Formats `text` as the file at `path` (F = outcome.content when status is 'formatted'). `range`: UTF-16 offsets into `text`. */
  format(path: string, text: string, range?: Utf16Range): Promise<FormatOutcome>;
  limits?: Partial<Limits>;
  report?: Report;
  scope?: 'file' | 'edit';
  /** The host's SHA-256 for the receipt's `record` (default: WebCrypto). */
  sha256?: Sha256Port;
}

export interface AfterEditRequest {
  /** The file's path (for a patch: unused, each file has its own). */
  path: string;
  /** P. null/'' for a new file. For applyPatch: path → content (null or missing: absent). */
  prior: string | null | Record<string, string | null>;
  input: ToolInput;
  /** W, when the caller already applied the input (for applyPatch: path → content, null for deleted). */
  written?: string | Record<string, string | null>;
  report?: Report;
  scope?: 'file' | 'edit';
}

/** The answer to an applyPatch: the rewritten patch, one receipt per file, one note. */
export interface PatchReceipt {
  /** The rewritten patch: applied to the prior files, then each receipt's diff, it gives the final files. */
  input: ApplyPatchInput;
  /** One per file, in patch order. Each carries its own one-file patch as `input`. */
  receipts: Receipt[];
  reconciled: boolean;
  reason?: string;
  note: string;
  ms: number;
}

const now = (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now());

export function afterEdit(deps: AfterEditDeps, request: AfterEditRequest & { input: SingleFileInput }): Promise<Receipt>;
export function afterEdit(deps: AfterEditDeps, request: AfterEditRequest & { input: ApplyPatchInput }): Promise<PatchReceipt>;
export function afterEdit(deps: AfterEditDeps, request: AfterEditRequest): Promise<Receipt | PatchReceipt>;
export async function afterEdit(deps: AfterEditDeps, request: AfterEditRequest): Promise<Receipt | PatchReceipt> {
  if (toolKind(request.input) === 'applyPatch') return afterPatch(deps, request as AfterEditRequest & { input: ApplyPatchInput });
  return afterSingle(deps, request as AfterEditRequest & { input: SingleFileInput });
}

function options(deps: AfterEditDeps, request: AfterEditRequest): { report: Report; scope: 'file' | 'edit'; maxDiffChars: number } {
  return {
    report: request.report ?? deps.report ?? 'receipt',
    scope: request.scope ?? deps.scope ?? 'file',
    maxDiffChars: deps.limits?.maxDiffChars ?? 2000,
  };
}

async function afterSingle(deps: AfterEditDeps, request: AfterEditRequest & { input: SingleFileInput }): Promise<Receipt> {
  const started = now();
  const { report, scope, maxDiffChars } = options(deps, request);
  if (request.prior !== null && typeof request.prior === 'object') {
    throw new FormatboxError('INVALID_REQUEST', 'prior must be the file text for a one-file input');
  }
  if (request.written !== undefined && typeof request.written !== 'string') {
    throw new FormatboxError('INVALID_REQUEST', 'written must be the file text for a one-file input');
  }
  const prior = request.prior ?? '';
  const kind = toolKind(request.input);
  const applied = applyTracked(prior, request.input);
  const written = request.written ?? applied.text;
  let range: Utf16Range | undefined;
  if (scope === 'edit' && kind !== 'write' && written === applied.text && applied.sites.length > 0) {
    const first = applied.sites[0] as { start: number };
    const last = applied.sites[applied.sites.length - 1] as { end: number };
    range = { utf16Start: first.start, utf16End: last.end };
  }
  const outcome = await deps.format(request.path, written, range);
  const final = outcome.status === 'formatted' ? outcome.content : written;

  let input: SingleFileInput = request.input;
  let reconciled: boolean;
  let reason: string | undefined;
  let diff: string | undefined;
  let replayed: string;
  if (report === 'receipt') {
    // The edit as applied above is reused, and the replay reconcile verified is the receipt's.
    const tracked = reconcileTracked({ prior, input: request.input, written, final, path: request.path }, applied);
    const { result } = tracked;
    input = result.input;
    reconciled = result.reconciled;
    reason = result.reason;
    diff = result.diff;
    replayed = tracked.replayed;
  } else {
    // The annotation is withheld; the receipt still carries the truth.
    replayed = applied.text;
    diff = unifiedDiff(replayed, final, { path: request.path }) || undefined;
    reconciled = false;
    reason = report === 'none' ? "report 'none': the formatter's changes were not shown to the agent" : "report 'line': only the result line was shown to the agent";
  }
  // A receipt that was not formatted says why (skipped/failed/timeout/refused), unless reconcile has its own reason.
  if (reason === undefined && outcome.status !== 'formatted' && outcome.reason !== undefined) reason = outcome.reason;
  const note = renderNote({
    line: outcome.line, report, path: request.path, maxDiffChars, replayed, final, reconciled,
    ...(diff !== undefined ? { diff } : {}),
    ...(reason !== undefined ? { reason } : {}),
    ...(outcome.scopeFallback ? { scopeFallback: outcome.scopeFallback } : {}),
  });
  const receipt: Receipt = {
    path: request.path,
    status: outcome.status,
    ...(outcome.formatter ? { formatter: outcome.formatter } : {}),
    input,
    reconciled,
    ...(reason !== undefined ? { reason } : {}),
    ...(diff !== undefined ? { diff } : {}),
    content: final,
    line: outcome.line,
    note,
    record: await fileRecord(final, deps.sha256),
    ...(outcome.ignored && outcome.ignored.length > 0 ? { ignored: outcome.ignored } : {}),
    ...(outcome.scopeFallback ? { scopeFallback: outcome.scopeFallback } : {}),
    ...(outcome.languageFrom ? { languageFrom: outcome.languageFrom } : {}),
    ms: Math.round((now() - started) * 10) / 10,
  };
  return receipt;
}

async function afterPatch(deps: AfterEditDeps, request: AfterEditRequest & { input: ApplyPatchInput }): Promise<PatchReceipt> {
  const started = now();
  const { report, maxDiffChars } = options(deps, request);
  const priors = request.prior;
  const read = (path: string): string | undefined => {
    if (priors === null || typeof priors !== 'object') return undefined;
    const value = priors[path];
    return typeof value === 'string' ? value : undefined;
  };
  const writtenGiven = request.written !== undefined && typeof request.written === 'object' ? request.written : undefined;
  const parsed = parsePatch(request.input.patch);
  const files = applyParsedPatch(parsed, read);
  const receipts: Receipt[] = [];
  const parts: string[] = [];
  const reasons: string[] = [];
  for (const file of files) {
    const fileStarted = now();
    if (file.kind === 'delete' || file.superseded) {
      // A deleted file, or a result a later operation of the same patch changes again: its part stays as given.
      const part = file.patch.source ?? `*** Delete File: ${file.path}\n`;
      const line = file.kind === 'delete' ? `deleted: ${shownPath(file.path)}` : `${shownPath(file.finalPath)}: changed again later in this patch`;
      const content = file.written ?? '';
      parts.push(part);
      receipts.push({
        path: file.finalPath, status: 'skipped', input: { patch: wrapPatch(parsed.format, [part]) }, reconciled: true,
        content, line, note: report === 'none' ? '' : line,
        record: await fileRecord(content, deps.sha256), ms: Math.round((now() - fileStarted) * 10) / 10,
      });
      continue;
    }
    const written = file.written ?? '';
    const outcome = await deps.format(file.finalPath, written);
    const final = outcome.status === 'formatted' ? outcome.content : written;
    const given = writtenGiven?.[file.finalPath];
    let result;
    if (report === 'receipt') {
      result = reconcilePatchFile(parsed.format, file, final, typeof given === 'string' ? given : undefined);
    } else {
      result = reconcilePatchFile(parsed.format, file, written);
      const diff = unifiedDiff(written, final, { path: file.finalPath });
      result = { ...result, reconciled: false, reason: `report '${report}': the formatter's changes were not shown to the agent`, ...(diff ? { diff } : {}) };
    }
    parts.push(result.part);
    if (!result.reconciled && result.reason && report === 'receipt') reasons.push(`${file.finalPath}: ${result.reason}`);
    const rendered = renderNote({
      line: outcome.line, report, path: file.finalPath, maxDiffChars, replayed: result.replayed, final,
      reconciled: result.reconciled,
      ...(result.diff !== undefined ? { diff: result.diff } : {}),
      ...(result.reason !== undefined ? { reason: result.reason } : {}),
    });
    const note = file.replaced && report !== 'none' ? `${replacedNote(file.replaced)}\n${rendered}`.trimEnd() : rendered;
    receipts.push({
      path: file.finalPath,
      status: outcome.status,
      ...(outcome.formatter ? { formatter: outcome.formatter } : {}),
      input: { patch: wrapPatch(parsed.format, [result.part]) },
      reconciled: result.reconciled,
      ...(result.reason !== undefined ? { reason: result.reason } : {}),
      ...(result.diff !== undefined ? { diff: result.diff } : {}),
      content: final,
      line: outcome.line,
      note,
      record: await fileRecord(final, deps.sha256),
      ...(outcome.ignored && outcome.ignored.length > 0 ? { ignored: outcome.ignored } : {}),
      ...(outcome.languageFrom ? { languageFrom: outcome.languageFrom } : {}),
      ms: Math.round((now() - fileStarted) * 10) / 10,
    });
  }
  const reconciled = receipts.every((r) => r.reconciled);
  const out: PatchReceipt = {
    input: { patch: wrapPatch(parsed.format, parts) },
    receipts,
    reconciled,
    note: report === 'none' ? '' : receipts.map((r) => r.note).filter((n) => n !== '').join('\n'),
    ms: Math.round((now() - started) * 10) / 10,
  };
  if (reasons.length > 0) out.reason = reasons.join('; ');
  return out;
}

/** Said when an operation overwrote an existing file (Add File over it, Move to it), as Codex does. */
function replacedNote(replaced: { path: string; bytes: number }): string {
  return `replaced: ${replaced.path} already existed (${replaced.bytes} bytes) and was overwritten`;
}
