// src/core/diff.ts: the line diff and exact unified diffs, checked against real files and GNU patch semantics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { applyUnifiedDiff, diffLineChanges, parseUnifiedDiff, splitLines, unifiedDiff } from '../../src/core/diff.js';

const libs = readdirSync('node_modules/typescript/lib').filter((n) => /^lib\.es20\d\d\.\w+\.d\.ts$/.test(n)).sort().slice(0, 12)
  .map((n) => readFileSync(`node_modules/typescript/lib/${n}`, 'utf8'));
const python = ['json/decoder.py', 'textwrap.py', 'shlex.py', 'colorsys.py'].map((p) => readFileSync(`/usr/lib/python3.11/${p}`, 'utf8'));
const corpus = [...libs, ...python];

test('splitLines keeps endings; \\r stays in the line', () => {
  assert.deepEqual(splitLines('a\r\nb\n\nc'), ['a\r\n', 'b\n', '\n', 'c']);
  assert.deepEqual(splitLines(''), []);
});

test('equal texts give an empty diff; a small change gives one hunk with 3 lines of context', () => {
  const text = libs[0] as string;
  assert.equal(unifiedDiff(text, text), '');
  const lines = splitLines(text);
  const changed = [...lines.slice(0, 20), 'inserted;\n', ...lines.slice(20)].join('');
  const diff = unifiedDiff(text, changed, { path: 'lib.d.ts' });
  assert.equal(diff, `--- a/lib.d.ts\n+++ b/lib.d.ts\n@@ -18,6 +18,7 @@\n ${lines.slice(17, 20).join(' ')}+inserted;\n ${lines.slice(20, 23).join(' ')}`);
});

test('no newline at end of file, CRLF lines and a BOM are diffed and applied byte for byte', () => {
  const cases: Array<[string, string]> = [
    ['a\nb', 'a\nb\n'],
    ['a\nb\n', 'a\nb'],
    ['x\r\ny\r\n', 'x\r\ny\n'],
    ['\uFEFFa\r\n', 'a\r\n'],
    ['', 'new\n'],
    ['old\n', ''],
    ['only', 'other'],
  ];
  for (const [a, b] of cases) {
    const diff = unifiedDiff(a, b);
    assert.equal(applyUnifiedDiff(a, diff), b, JSON.stringify({ a, b, diff }));
  }
  assert.match(unifiedDiff('a\nb', 'a\nc'), /\\ No newline at end of file\n$/);
});

test('our diffs apply with GNU patch too (interoperable format)', (t) => {
  const probe = spawnSync('patch', ['--version']);
  if (probe.error) {
    if (process.env.CI) throw new Error('patch is missing in CI');
    t.skip('GNU patch not installed');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'fbx-diff-'));
  const before = python[1] as string;
  const after = before.replace(/    /g, '  ').replace(/'/g, '"') + 'tail\n';
  writeFileSync(join(dir, 'file'), before);
  writeFileSync(join(dir, 'p.diff'), unifiedDiff(before, after));
  const run = spawnSync('patch', ['-p1', '--quiet', '-i', 'p.diff'], { cwd: dir, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr + run.stdout);
  assert.equal(readFileSync(join(dir, 'file'), 'utf8'), after);
});

/** Random line-level mutations of a real file. */
const mutations = fc.array(
  fc.record({ at: fc.nat(), kind: fc.constantFrom('delete', 'insert', 'replace', 'indent', 'crlf', 'dedupe'), size: fc.integer({ min: 1, max: 30 }) }),
  { minLength: 1, maxLength: 25 },
);

function mutate(text: string, edits: Array<{ at: number; kind: string; size: number }>): string {
  const lines = splitLines(text);
  for (const e of edits) {
    const i = lines.length === 0 ? 0 : e.at % lines.length;
    if (e.kind === 'delete') lines.splice(i, e.size);
    else if (e.kind === 'insert') lines.splice(i, 0, ...lines.slice(0, e.size));
    else if (e.kind === 'replace') lines.splice(i, e.size, `changed ${e.at}\n`);
    else if (e.kind === 'indent') for (let k = i; k < Math.min(lines.length, i + e.size); k++) lines[k] = '  ' + lines[k];
    else if (e.kind === 'crlf') for (let k = i; k < Math.min(lines.length, i + e.size); k++) lines[k] = (lines[k] as string).replace(/\n$/, '\r\n');
    else lines.splice(i, 0, '}\n', '\n', '}\n');
  }
  if (edits.length % 3 === 0 && lines.length > 0) lines[lines.length - 1] = (lines[lines.length - 1] as string).replace(/\r?\n$/, '');
  return lines.join('');
}

test('property: applyUnifiedDiff(a, unifiedDiff(a, b)) === b on real files with random mutations', () => {
  fc.assert(
    fc.property(fc.nat(), mutations, fc.boolean(), (which, edits, swap) => {
      const original = corpus[which % corpus.length] as string;
      const changed = mutate(original, edits);
      const [a, b] = swap ? [changed, original] : [original, changed];
      const diff = unifiedDiff(a, b, { path: 'x' });
      assert.equal(applyUnifiedDiff(a, diff), b);
      // Hunks are well formed: old lines of each hunk occur in a.
      for (const hunk of parseUnifiedDiff(diff)) assert.ok(hunk.oldLines.length + hunk.newLines.length > 0);
    }),
    { numRuns: 400 },
  );
});

test('property: line changes are a valid edit script (reconstructs b from a)', () => {
  const line = fc.constantFrom('a\n', 'b\n', 'c\n', '}\n', '\n', 'x\r\n');
  fc.assert(
    fc.property(fc.array(line, { maxLength: 40 }), fc.array(line, { maxLength: 40 }), (a, b) => {
      const out: string[] = [];
      let i = 0;
      for (const c of diffLineChanges(a, b)) {
        assert.ok(c.aStart >= i);
        out.push(...a.slice(i, c.aStart), ...b.slice(c.bStart, c.bEnd));
        i = c.aEnd;
      }
      out.push(...a.slice(i));
      assert.deepEqual(out, b);
    }),
    { numRuns: 3000 },
  );
});

test('a whole-file reformat of a large file gives a complete diff (bounded work, coarse hunks allowed)', () => {
  const big = libs.join('').repeat(Math.ceil(12_000 / splitLines(libs.join('')).length));
  const reformatted = big.replace(/    /g, '  ').replace(/;$/gm, '');
  assert.ok(splitLines(big).length > 10_000);
  const diff = unifiedDiff(big, reformatted);
  assert.equal(applyUnifiedDiff(big, diff), reformatted);
});

test('a hunk is found near its stated line when the text shifted; a mismatch throws EDIT_NOT_APPLICABLE', () => {
  const a = 'one\ntwo\nthree\nfour\n';
  const diff = unifiedDiff(a, 'one\ntwo\nTHREE\nfour\n');
  assert.equal(applyUnifiedDiff('zero\n' + a, diff), 'zero\none\ntwo\nTHREE\nfour\n');
  assert.throws(() => applyUnifiedDiff('nothing\n', diff), { code: 'EDIT_NOT_APPLICABLE' });
});
