/**
 * The `note`: the exact text appended to the tool result. The line, then the diff when it fits in
 * `maxDiffChars`, else a short hint naming the line ranges of F to reread.
 */
import { diffLineChanges, splitLines } from '../core/diff.js';
import { shownPath } from '../core/shown.js';

/** At most this many line ranges are named in a reread hint. */
const MAX_RANGES = 8;

/** 1-based inclusive line ranges of `after` that differ from `before`, merged when 3 lines apart or closer. */
export function changedLineRanges(before: string, after: string): Array<[number, number]> {
  const a = splitLines(before);
  const b = splitLines(after);
  const ranges: Array<[number, number]> = [];
  for (const change of diffLineChanges(a, b)) {
    // A pure deletion names the line where the text was.
    const start = change.bStart + 1;
    const end = Math.max(start, change.bEnd);
    const last = ranges[ranges.length - 1];
    if (last && start - last[1] <= 3) last[1] = Math.max(last[1], end);
    else ranges.push([Math.min(start, Math.max(1, b.length)), Math.min(end, Math.max(1, b.length))]);
  }
  return ranges;
}

export function rereadHint(path: string, before: string, after: string): string {
  const ranges = changedLineRanges(before, after);
  if (ranges.length === 0) return '';
  if (ranges.length > MAX_RANGES) {
    return `the formatter changed more than fits here (${ranges.length} places); reread ${shownPath(path)}`;
  }
  const named = ranges.map(([s, e]) => (s === e ? `${s}` : `${s}-${e}`)).join(', ');
  return `the formatter changed more than fits here; reread ${ranges.length === 1 && !named.includes('-') ? 'line' : 'lines'} ${named} of ${shownPath(path)}`;
}

interface NoteParts {
  line: string;
  report: 'receipt' | 'line' | 'none';
  path: string;
  maxDiffChars: number;
  /** Text the diff applies to (`replay(P, input')`) and F, for the reread hint. */
  replayed: string;
  final: string;
  diff?: string;
  reason?: string;
  reconciled: boolean;
  scopeFallback?: string;
}

export function renderNote(parts: NoteParts): string {
  if (parts.report === 'none') return '';
  const out = [parts.line];
  if (parts.scopeFallback) out.push(`(scope 'edit': ${parts.scopeFallback})`);
  if (parts.report === 'line') return out.join('\n');
  if (!parts.reconciled && parts.reason) out.push(`your edit was kept as sent (${parts.reason}); the formatter's changes follow`);
  if (parts.diff) {
    if (parts.diff.length <= parts.maxDiffChars) out.push(parts.diff.replace(/\n$/, ''));
    else out.push(rereadHint(parts.path, parts.replayed, parts.final));
  }
  return out.join('\n');
}
