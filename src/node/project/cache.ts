/**
 * The project-wide cache as a decorator around the per-file judge (as treefmt's cache wraps its
 * walker's reader): `openTreeCache` reads and hashes every listed file once (precheck.ts, the `tree`
 * basis of the one key in format-cache.ts) and says which files it cannot answer; `wrap(judge)`
 * answers a file whose verdict suffices (formatted always, failed always, would change for a check:
 * a write needs the bytes), hands the rest to the judge, and records the verdict that comes back
 * when the judge's evidence ties it to the very bytes hashed here.
 */
import { shownPath } from '../../core/shown.js';
import type { Precheck, PrecheckEntry } from './precheck.js';
import type { TreeOutcome } from './format-tree.js';

/** What ties a verdict to the bytes the cache hashed. */
export type Evidence =
  /** The runtime formatted the file: the sha256 of the bytes it read, and of what it produced. */
  | { by: 'runtime'; readSha256?: string; via?: string; record?: { sha256: string } }
  /** Another judge read the file itself (native Biome), no earlier than this wall clock time (ms). */
  | { by: 'judge'; startedAtMs: number };

export interface Judged {
  outcome: TreeOutcome;
  evidence?: Evidence;
}

/** Formats (or checks) one project-relative path. Never rejects: a failure is an outcome. */
export type Judge = (path: string) => Promise<Judged>;

export interface TreeCache {
  /** The listed files the cache does not answer, in their order. */
  readonly left: readonly string[];
  /** The judge, with the cache in front of it and its verdicts recorded behind it. */
  wrap(judge: Judge): (path: string) => Promise<TreeOutcome>;
}

/** Reads and hashes `files` (keeping no bytes) and decides which of them the cache answers. */
export function openTreeCache(precheck: Precheck | undefined, files: readonly string[], check: boolean): TreeCache {
  const entries = new Map<string, PrecheckEntry>();
  if (precheck) {
    for (const path of files) {
      const entry = precheck.entryOf(path);
      if (entry) entries.set(path, entry);
    }
  }
  const left = files.filter((path) => answerOf(entries.get(path), path, check) === undefined);
  return {
    left,
    wrap(judge) {
      return async (path) => {
        const entry = entries.get(path);
        const answer = answerOf(entry, path, check);
        if (answer) return answer;
        const judged = await judge(path);
        if (entry && precheck && judged.evidence) record(precheck, entry, path, judged, check);
        return judged.outcome;
      };
    },
  };
}

/** The cache's answer for a file, when its verdict suffices. */
function answerOf(entry: PrecheckEntry | undefined, path: string, check: boolean): TreeOutcome | undefined {
  if (!entry) return undefined;
  if (entry.hit) return { kind: 'unchanged', path, receipt: { status: 'unchanged', line: `already formatted (cached): ${shownPath(path)}` }, cached: true };
  const verdict = entry.verdict;
  if (verdict?.kind === 'failed') return { kind: 'failed', path, receipt: { status: 'failed', line: verdict.line }, cached: true };
  if (check && verdict?.kind === 'would-change') return { kind: 'formatted', path, receipt: { status: 'formatted', line: `would reformat (cached): ${shownPath(path)}` }, cached: true };
  return undefined;
}

/** Records what the judge found, when its evidence says it judged the bytes hashed for `entry`. */
function record(precheck: Precheck, entry: PrecheckEntry, path: string, { outcome, evidence }: Judged, check: boolean): void {
  if (outcome.kind === 'error' || !evidence) return;
  const status = outcome.receipt.status;
  if (evidence.by === 'judge') {
    // Native Biome may have read the file before it was hashed here (it starts before the walk).
    if (status === 'unchanged') precheck.confirmUnchangedSince(entry, path, evidence.startedAtMs);
    else if (check && status === 'formatted') precheck.confirmUnchangedSince(entry, path, evidence.startedAtMs, { kind: 'would-change' });
    return;
  }
  if (status === 'unchanged') precheck.confirm(entry, evidence.record, evidence.via);
  // A check's "would change" and a formatter's own failure (not a timeout or a refusal) hold for these bytes.
  else if (check && status === 'formatted') precheck.confirmVerdict(entry, evidence.readSha256, evidence.via, { kind: 'would-change', ...(evidence.record ? { outputSha256: evidence.record.sha256 } : {}) });
  else if (status === 'failed') precheck.confirmVerdict(entry, evidence.readSha256, evidence.via, { kind: 'failed', line: outcome.receipt.line });
}
