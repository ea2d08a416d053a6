/** Aggregates edit records into the markdown tables `npm run eval` prints. */
import { STRATEGIES, STRATEGY_LABELS, type EditRecord, type Strategy } from './simulate.js';

export interface Row {
  strategy: Strategy;
  edits: number;
  /** Edits after the first on their file (the ones whose oldText comes from the agent's view). */
  followUps: number;
  stale: number;
  rereads: number;
  meanTokens: number;
  p95Tokens: number;
  totalTokens: number;
  /** Edits after which the agent's view was not the file on disk. */
  drift: number;
  /** Edits the formatter could not format (syntax error in the agent's text), any strategy. */
  failed: number;
  /** Receipts that did not replay to the bytes on disk (must be 0). */
  broken: number;
}

/** Nearest-rank percentile. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = values.slice().sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

export function summarise(records: EditRecord[], strategy: Strategy): Row {
  const mine = records.filter((r) => r.strategy === strategy);
  const tokens = mine.map((r) => r.tokens);
  const total = tokens.reduce((sum, t) => sum + t, 0);
  return {
    strategy,
    edits: mine.length,
    followUps: mine.filter((r) => r.index > 0).length,
    stale: mine.filter((r) => r.stale).length,
    rereads: mine.reduce((sum, r) => sum + r.rereads, 0),
    meanTokens: mine.length ? total / mine.length : 0,
    p95Tokens: percentile(tokens, 95),
    totalTokens: total,
    drift: mine.filter((r) => r.drift).length,
    failed: mine.filter((r) => r.status === 'failed').length,
    broken: mine.filter((r) => r.replays === false).length,
  };
}

export function rows(records: EditRecord[]): Row[] {
  const present = new Set(records.map((r) => r.strategy));
  return STRATEGIES.filter((s) => present.has(s)).map((s) => summarise(records, s));
}

export function table(records: EditRecord[]): string {
  const lines = [
    '| strategy | edits | stale follow-ups | rereads | tokens/edit mean | p95 | total tokens | view ≠ disk after edit |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows(records)) {
    lines.push(
      `| ${STRATEGY_LABELS[row.strategy]} | ${row.edits} | ${row.stale} / ${row.followUps} | ${row.rereads} | ` +
        `${row.meanTokens.toFixed(1)} | ${row.p95Tokens} | ${row.totalTokens.toLocaleString('en-US')} | ${row.drift} |`,
    );
  }
  return lines.join('\n');
}

export function report(records: EditRecord[], header: string[]): string {
  const out = [...header, '', '### All languages', '', table(records), ''];
  const languages = [...new Set(records.map((r) => r.language))];
  const receipts = records.filter((r) => r.strategy === 'receipt');
  if (receipts.length > 0) {
    const statuses = new Map<string, number>();
    for (const r of receipts) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    const deltas = receipts.map((r) => r.inputDelta ?? 0);
    const count = (keep: (r: EditRecord) => boolean) => receipts.filter(keep).length;
    out.push(
      `- Receipt statuses: ${[...statuses].map(([s, n]) => `${s} ${n}`).join(', ')}.` +
        (count((r) => r.status === 'failed') ? " (failed: the agent's text did not parse; the edit stands unformatted.)" : ''),
      `- Receipts that did not replay to the bytes on disk: ${count((r) => r.replays === false)} of ${receipts.length}; ` +
        `whose content differs from formatting W directly: ${count((r) => r.formatterAgrees === false)}.`,
      `- Receipts with formatter changes outside the edited text: ${count((r) => r.receiptDiff === 'in note')} with the diff in the note, ` +
        `${count((r) => r.receiptDiff === 'reread hint')} with a reread hint (diff over maxDiffChars); ` +
        `not reconciled (input kept as sent): ${count((r) => r.reconciled === false)}.`,
      `- Rewritten input minus original input, tokens: mean ${mean(deltas).toFixed(1)}, min ${Math.min(...deltas)}, ` +
        `max ${Math.max(...deltas)} (increases are charged to (d), decreases are not credited).`,
    );
  }
  const examples = records.filter((r) => r.strategy === 'line-naive' && r.staleLine !== undefined);
  for (const language of languages) {
    const example = examples.find((r) => r.language === language);
    if (example) {
      out.push(`- A stale follow-up of (b) without reread: ${example.path} edit ${example.index} (${example.kind}) copied \`${example.staleLine?.trim()}\` from its view; it is not on disk.`);
    }
  }
  for (const language of languages) {
    const mine = records.filter((r) => r.language === language);
    const files = new Set(mine.map((r) => r.path)).size;
    out.push('', `### ${language} (${files} files)`, '', table(mine));
  }
  return out.join('\n');
}

function mean(values: number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}
