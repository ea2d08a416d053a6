/** Receipts the runtime makes itself (the engine makes the others), and the time a call took. */
import type { Receipt, ToolInput } from '../../core/types.js';
import { shownPath } from '../../core/shown.js';
import { nodeSha256 } from '../hash.js';

const encoder = new TextEncoder();

export function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}

function recordOf(text: string): { sha256: string; bytes: number } {
  const bytes = encoder.encode(text);
  return { sha256: nodeSha256(bytes), bytes: bytes.byteLength };
}

/** The file changed on disk while it was formatted: W stays, the formatted bytes were not written. */
export function concurrentReceipt(path: string, formatted: Receipt, written: string, input: ToolInput): Receipt {
  const line = `not formatted (concurrent modification): ${shownPath(path)}`;
  return {
    path,
    status: 'skipped',
    ...(formatted.formatter ? { formatter: formatted.formatter } : {}),
    input,
    reconciled: true,
    reason: 'concurrent modification',
    content: written,
    line,
    note: `${line}\nThe file changed on disk while it was being formatted; the formatted bytes were not written. Read the file again before the next edit.`,
    record: recordOf(written),
    ms: formatted.ms,
  };
}

export function skippedReceipt(path: string, content: string, reason: string, line: string): Receipt {
  return { path, status: 'skipped', input: { content }, reconciled: true, reason, content, line, note: line, record: recordOf(content), ms: 0 };
}
