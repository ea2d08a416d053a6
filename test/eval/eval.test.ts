/**
 * The eval on the real engine and real formatters, small: 3 files (TypeScript/Prettier,
 * Python/Ruff wasm, Go/gofmt wasm) × 5 edits under every strategy. The receipt strategy must
 * have no stale follow-up, every receipt must replay to the bytes written, and it must add
 * fewer tokens than the full-diff strategy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEvalEngine } from './engine.js';
import { runEval } from './eval.js';
import { rows } from './report.js';

test('eval on real code: (d) receipts are never stale, always replay, and cost less than (c) diffs', async () => {
  const engine = createEvalEngine();
  try {
    const { files, records } = await runEval(engine, {
      seed: 'eval-test',
      filesPerLanguage: 1,
      editsPerFile: 5,
      languages: ['typescript', 'python', 'go'],
    });
    assert.deepEqual(files.map((f) => f.language), ['typescript', 'python', 'go']);
    const receipts = records.filter((r) => r.strategy === 'receipt');
    assert.equal(receipts.length, 15);
    assert.ok(receipts.some((r) => r.status === 'formatted'), 'some edits must have been reformatted');

    const bad = receipts.filter((r) => r.replays !== true).map((r) => `${r.path} #${r.index}`);
    assert.deepEqual(bad, [], 'replay(P, receipt.input) + receipt.diff must equal the file written');
    const disagree = receipts.filter((r) => r.formatterAgrees !== true).map((r) => `${r.path} #${r.index}`);
    assert.deepEqual(disagree, [], 'receipt.content must be the formatter output for W');

    const byStrategy = new Map(rows(records).map((row) => [row.strategy, row]));
    const d = byStrategy.get('receipt');
    const c = byStrategy.get('diff');
    assert.ok(d && c);
    assert.equal(d.stale, 0, 'no stale follow-up with receipts');
    assert.equal(d.drift, 0, "the agent's view equals the disk after every receipt");
    assert.ok(d.totalTokens < c.totalTokens, `receipts (${d.totalTokens} tokens) must cost less than full diffs (${c.totalTokens})`);
    // The full-diff agent is exact too, at a higher price; the rereading agent pays the most.
    assert.equal(c.stale, 0);
    const reread = byStrategy.get('line-reread');
    assert.ok(reread && reread.stale === 0 && reread.totalTokens > c.totalTokens);
  } finally {
    await engine.dispose();
  }
});

test('eval on files as found (the first edit reformats the whole file): receipts still replay and never go stale', async () => {
  const engine = createEvalEngine();
  try {
    const { records } = await runEval(engine, {
      seed: 'eval-test-as-found',
      filesPerLanguage: 1,
      editsPerFile: 4,
      languages: ['python'],
      start: 'as-found',
      strategies: ['diff', 'receipt'],
    });
    const receipts = records.filter((r) => r.strategy === 'receipt');
    assert.equal(receipts.length, 4);
    // The Python stdlib is not Ruff-formatted: the first edit changes text far outside itself.
    assert.notEqual(receipts[0]?.receiptDiff, 'none', 'the first receipt must carry changes outside the edit');
    assert.deepEqual(receipts.filter((r) => r.replays !== true || r.formatterAgrees !== true).map((r) => r.index), []);
    assert.deepEqual(receipts.filter((r) => r.stale || r.drift).map((r) => r.index), []);
  } finally {
    await engine.dispose();
  }
});
