/**
 * Unit tests of the eval's own machinery (agent-side replay, diffs, region tracking, edit
 * generation, strategies). The strategy tests use a small stand-in formatter so they can say
 * exactly what must happen; the real engine and formatters are exercised in eval.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import type { Receipt, SingleFileInput } from '../../src/core/types.js';
import { drawIntents, materialise, segmentLine, DIALECTS, type Intent, type Language } from './edits.js';
import { Rng } from './prng.js';
import { applyUnifiedDiff, countOccurrences, mapRegion, replay, unifiedDiff } from './text-ops.js';
import { simulateFile, toolResult, type EvalEngine, type FileCase, type Strategy } from './simulate.js';
import { countTokens } from './tokens.js';
import { percentile } from './report.js';

test('replay applies edits like an edit tool and reports the lines it wrote', () => {
  const text = 'a = 1\nb = 2\nc = 3\n';
  const edited = replay(text, { oldText: 'b = 2', newText: 'x = 9\n\nb = 2' });
  assert.ok(edited.ok);
  assert.equal(edited.text, 'a = 1\nx = 9\n\nb = 2\nc = 3\n');
  // The anchor line copied from oldText is not part of what the agent wrote.
  assert.deepEqual(edited.region, { start: 1, end: 3 });
  assert.deepEqual(replay(text, { oldText: 'zzz', newText: 'y' }), { ok: false, problem: 'not found', editIndex: 0, occurrences: 0 });
  assert.equal((replay(text, { oldText: ' = ', newText: '=' }) as { problem: string }).problem, 'ambiguous');
  const all = replay(text, { oldText: ' = ', newText: '=', replaceAll: true });
  assert.ok(all.ok && all.text === 'a=1\nb=2\nc=3\n');
  const multi = replay(text, { edits: [{ oldText: 'a = 1', newText: 'a = 10' }, { oldText: 'a = 10\nb', newText: 'a = 11\nb' }] });
  assert.ok(multi.ok && multi.text.startsWith('a = 11\nb = 2'));
  const write = replay(text, { content: 'a = 1\nB\nc = 3\n' });
  assert.ok(write.ok && write.region.start === 1 && write.region.end === 2);
});

test('unified diffs made here apply back exactly, and regions follow a changed text', () => {
  const rng = new Rng('diff-roundtrip');
  const base = readFileSync('/usr/lib/python3.11/textwrap.py', 'utf8');
  for (let i = 0; i < 30; i++) {
    const lines = base.split('\n');
    for (let k = 0; k < 5; k++) {
      const at = rng.int(0, lines.length - 1);
      if (rng.chance(0.5)) lines.splice(at, rng.int(0, 3), `# inserted ${i}.${k}`);
      else lines[at] = `${lines[at]}  # changed`;
    }
    const after = lines.join('\n');
    const diff = unifiedDiff('textwrap.py', base, after);
    assert.equal(applyUnifiedDiff(base, diff), after);
  }
  assert.equal(unifiedDiff('x', 'same\n', 'same\n'), '');
  const before = 'l0\nl1\nl2\nl3\n';
  const after = 'new\nnew2\nl0\nl1\nl2 changed\nl3\n';
  assert.deepEqual(mapRegion(before, after, { start: 1, end: 2 }), { start: 3, end: 4 });
  assert.deepEqual(mapRegion(before, after, { start: 2, end: 3 }), { start: 4, end: 5 });
});

test('the line splitter keeps strings and comments apart from code', () => {
  const ts = segmentLine(`const a = "x // y"; // note`, DIALECTS.typescript);
  assert.deepEqual(ts.map((s) => s.kind), ['code', 'string', 'code', 'comment']);
  const py = segmentLine(`x = f'{a["k"]}'  # c`, DIALECTS.python);
  assert.deepEqual(py.map((s) => s.kind), ['code', 'string', 'code', 'comment']);
});

const realFiles: Record<Language, string> = {
  typescript: 'node_modules/rxjs/src/internal/Subscription.ts',
  python: '/usr/lib/python3.11/textwrap.py',
  go: '/usr/lib/go/src/strings/reader.go',
  toml: '/usr/lib/node_modules/npm/node_modules/node-gyp/gyp/pyproject.toml',
};

test('every generated edit takes a unique oldText from the view and changes something', () => {
  for (const [language, path] of Object.entries(realFiles) as [Language, string][]) {
    if (!existsSync(path)) {
      assert.ok(!process.env.CI, `${path} missing in CI`);
      console.log(`skipped ${language}: ${path} missing`);
      continue;
    }
    let view = readFileSync(path, 'utf8');
    let region;
    const intents = drawIntents(new Rng(`gen-${language}`), 60);
    for (const [n, intent] of intents.entries()) {
      const { input } = materialise(intent, language, view, region, n + 1);
      const edits = 'edits' in input ? input.edits : 'oldText' in input ? [input] : [];
      let running = view;
      for (const edit of edits) {
        assert.equal(countOccurrences(running, edit.oldText), 1, `${language} #${n}: oldText must be unique in the view`);
        assert.notEqual(edit.newText, edit.oldText);
        running = running.replace(edit.oldText, () => edit.newText);
      }
      const result = replay(view, input);
      assert.ok(result.ok);
      assert.notEqual(result.text, view);
      view = result.text;
      region = result.region;
    }
  }
});

// A stand-in formatter for a TOML-ish toy: `key = value` spacing and `, ` in arrays.
function toyFormat(text: string): string {
  return text
    .split('\n')
    .map((line) => (/^\s*[\w.-]+\s*=/.test(line) ? line.replace(/^(\s*[\w.-]+)\s*=\s*/, '$1 = ').replace(/,(?=\S)/g, ', ') : line))
    .join('\n');
}

function toyEngine(calls: { afterEdit: number }): EvalEngine {
  const format = async ({ path, text }: { path: string; text: string }) => {
    const content = toyFormat(text);
    const status = content === text ? 'unchanged' : 'formatted';
    return { status, content, line: `${status === 'formatted' ? 'formatted' : 'already formatted'} (toy): ${path}` };
  };
  return {
    format,
    async afterEdit({ path, prior, input }) {
      calls.afterEdit++;
      const written = replay(prior, input);
      if (!written.ok) throw new Error('not applicable');
      const outcome = await format({ path, text: written.text });
      const diff = unifiedDiff(path, written.text, outcome.content);
      const receipt: Receipt = {
        path, status: outcome.status as Receipt['status'], input, reconciled: false, content: outcome.content,
        line: outcome.line, note: diff ? `${outcome.line}\n${diff}` : outcome.line, record: { sha256: '', bytes: 0 }, ms: 0,
        ...(diff ? { diff } : {}),
      };
      return receipt;
    },
  };
}

const toyFile: FileCase = {
  path: 'config/settings.toml',
  language: 'toml',
  source: 'test fixture',
  text: Array.from({ length: 12 }, (_, t) =>
    [`[section_${t}]`, `name = "item-${t}"`, `size = ${t * 3}`, `tags = ["a${t}", "b${t}"]`, `enabled = true`, ''].join('\n'),
  ).join('\n'),
};

async function run(strategy: Strategy, intents: Intent[]) {
  const calls = { afterEdit: 0 };
  const records = await simulateFile(toyEngine(calls), strategy, toyFile, intents);
  return { records, calls };
}

test('strategies: who goes stale, who rereads, who drifts', async () => {
  // Sloppy edits only, many follow-ups: the formatter rewrites what the agent just wrote.
  const intents = drawIntents(new Rng('toy'), 40).map((intent) => ({ ...intent, sloppy: true }));
  const none = await run('none', intents);
  assert.equal(none.records.filter((r) => r.stale || r.drift).length, 0);
  for (const r of none.records) assert.equal(r.tokens, countTokens(toolResult(toyFile.path)));

  const naive = await run('line-naive', intents);
  const stale = naive.records.filter((r) => r.stale);
  assert.ok(stale.length > 0, 'a line-only agent that never rereads must hit stale oldText');
  for (const r of stale) {
    assert.equal(r.attempts, 2);
    assert.equal(r.rereads, 1);
  }
  assert.ok(naive.records.some((r) => r.drift));

  const reread = await run('line-reread', intents);
  assert.equal(reread.records.filter((r) => r.stale || r.drift).length, 0);
  assert.equal(reread.records.reduce((s, r) => s + r.rereads, 0), reread.records.filter((r) => r.status === 'formatted').length);

  const diff = await run('diff', intents);
  assert.equal(diff.records.filter((r) => r.stale || r.drift || r.rereads > 0).length, 0);

  const receipt = await run('receipt', intents);
  assert.equal(receipt.calls.afterEdit, intents.length);
  assert.equal(receipt.records.filter((r) => r.stale || r.drift).length, 0);
  assert.ok(receipt.records.every((r) => r.replays === true));
  // This stand-in never rewrites the input, so its receipt costs what the diff costs.
  assert.deepEqual(receipt.records.map((r) => r.tokens), diff.records.map((r) => r.tokens));

  const total = (rs: { tokens: number }[]) => rs.reduce((s, r) => s + r.tokens, 0);
  assert.ok(total(reread.records) > total(diff.records), 'rereading whole files costs more than diffs');
});

test('same seed, same records; another seed, other records', async () => {
  const a = await run('line-naive', drawIntents(new Rng('seed-a'), 20));
  const b = await run('line-naive', drawIntents(new Rng('seed-a'), 20));
  const c = await run('line-naive', drawIntents(new Rng('seed-b'), 20));
  assert.deepEqual(a.records, b.records);
  assert.notDeepEqual(a.records, c.records);
});

test('percentile is nearest-rank', () => {
  assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95), 10);
  assert.equal(percentile([5, 1, 3], 50), 3);
  assert.equal(percentile([], 95), 0);
});

// A rewritten input (as formatbox gives) is what the agent's view replays.
test('a receipt whose input carries the formatting keeps the agent exact without a diff', async () => {
  const engine: EvalEngine = {
    format: async ({ text }) => ({ status: 'unchanged', content: text, line: '' }),
    async afterEdit({ path, prior, input }) {
      const edit = input as { oldText: string; newText: string };
      const rewritten: SingleFileInput = { oldText: edit.oldText, newText: toyFormat(edit.newText) };
      const written = replay(prior, rewritten);
      if (!written.ok) throw new Error('not applicable');
      const content = toyFormat(written.text);
      const diff = unifiedDiff(path, written.text, content);
      return {
        path, status: 'formatted', input: rewritten, reconciled: true, content, line: `formatted (toy): ${path}`,
        note: diff ? `formatted (toy): ${path}\n${diff}` : `formatted (toy): ${path}`, record: { sha256: '', bytes: 0 }, ms: 0,
        ...(diff ? { diff } : {}),
      };
    },
  };
  const intents = drawIntents(new Rng('rewritten'), 20).map((i) => ({ ...i, sloppy: true, kind: i.kind === 'write' || i.kind === 'multi' ? ('modify' as const) : i.kind }));
  const records = await simulateFile(engine, 'receipt', toyFile, intents);
  assert.equal(records.filter((r) => r.stale || r.drift).length, 0);
  assert.ok(records.every((r) => r.replays));
  assert.ok(records.some((r) => (r.inputDelta ?? 0) > 0), 'formatted newText has more tokens here');
});
