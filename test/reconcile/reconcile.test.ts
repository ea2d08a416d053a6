// The pure reconcile(): hand-made (P, input, W, F) cases, and fast-check properties with synthetic
// formatter output: changes only inside the edited regions are absorbed completely (no diff), changes
// only outside leave the input alone (everything in the diff), and anything at all keeps the invariant.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { reconcile } from '../../src/reconcile/index.js';
import { reconcileTracked } from '../../src/reconcile/reconcile.js';
import { applyInput, applyTracked, occurrences } from '../../src/tools/index.js';
import { applyUnifiedDiff } from '../../src/core/diff.js';
import type { SingleFileInput } from '../../src/core/types.js';

function replayed(prior: string, result: { input: SingleFileInput; diff?: string }): string {
  const text = applyInput(prior, result.input);
  return result.diff ? applyUnifiedDiff(text, result.diff) : text;
}

test('write: the content becomes F, with no diff', () => {
  const result = reconcile({ prior: 'old', input: { content: 'x=1' }, final: 'x = 1\n' });
  assert.deepEqual(result, { input: { content: 'x = 1\n' }, reconciled: true });
});

test('extra fields of the input survive (a harness may carry its own)', () => {
  const input = { oldText: 'a=1', newText: 'a=2', file_path: '/x' } as SingleFileInput;
  const result = reconcile({ prior: 'a=1\n', input, final: 'a = 2\n' });
  assert.deepEqual(result.input, { oldText: 'a=1', newText: 'a = 2', file_path: '/x' });
});

test('an insertion at the boundary of an edit belongs to it', () => {
  const one = reconcile({ prior: 'f()\n', input: { oldText: 'f()', newText: 'g()' }, final: 'g();\n' });
  assert.deepEqual(one.input, { oldText: 'f()', newText: 'g();' });
  assert.equal(one.diff, undefined);
});

test('touching multiEdit blocks never reach reconcile: the tool refuses them first', () => {
  const input = { edits: [{ oldText: 'ab', newText: 'AB' }, { oldText: 'cd', newText: 'CD' }] };
  assert.throws(() => reconcile({ prior: 'abcd\n', input, final: 'AB CD\n' }), { code: 'EDIT_NOT_APPLICABLE', message: /adjacent/ });
});

test('space runs collapsed across both edges of two edits widen each edit separately', () => {
  const prior = 'x = a  +  b\n';
  const input = { edits: [{ oldText: 'a ', newText: 'aa ' }, { oldText: ' b', newText: ' bb' }] };
  const final = 'x = aa + bb\n';
  const result = reconcile({ prior, input, final });
  assert.equal(result.reconciled, true);
  assert.equal(result.diff, undefined);
  assert.equal(applyInput(prior, result.input), final);
});

test('replaceAll sites formatted identically are rewritten together', () => {
  const prior = 'f(a)\ng(a)\n';
  const result = reconcile({ prior, input: { oldText: 'a', newText: 'a,b', replaceAll: true }, final: 'f(a, b)\ng(a, b)\n' });
  assert.deepEqual(result.input, { oldText: 'a', newText: 'a, b', replaceAll: true });
  assert.equal(result.diff, undefined);
});

test('a written text that is not P + input: nothing is rewritten, the diff goes from replay to F', () => {
  const prior = 'a\n';
  const result = reconcile({ prior, input: { oldText: 'a', newText: 'b' }, written: 'c\n', final: 'c;\n' });
  assert.equal(result.reconciled, false);
  assert.equal(replayed(prior, result), 'c;\n');
});

// 1,500 cases per property by default; FORMATBOX_LONG=1 runs 30,000; FORMATBOX_SEED fixes the seed.
const RUNS = process.env.FORMATBOX_LONG === '1' ? 30_000 : 1500;
const SEED = process.env.FORMATBOX_SEED ? Number(process.env.FORMATBOX_SEED) : undefined;
const settings = { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) };

const sources = [
  readFileSync('node_modules/typescript/lib/lib.es2015.promise.d.ts', 'utf8'),
  readFileSync('/usr/lib/python3.11/colorsys.py', 'utf8'),
  readFileSync('node_modules/rxjs/src/internal/Subscription.ts', 'utf8'),
];

/** A random "formatter" applied to parts of W: whitespace, quotes, semicolons, commas, line breaks. */
function rewrite(text: string, seed: number): string {
  const ops: Array<(s: string) => string> = [
    (s) => s.replace(/ {2,}/g, ' '),
    (s) => s.replace(/'/g, '"'),
    (s) => s.replace(/;\n/g, '\n'),
    (s) => s.replace(/,(?=\S)/g, ', '),
    (s) => s.replace(/\(/g, '( '),
    (s) => s.replace(/\n\n/g, '\n'),
    (s) => s.replace(/ = /g, '='),
    (s) => s.replace(/\{/g, '{\n'),
  ];
  let out = text;
  for (let i = 0; i < ops.length; i++) if ((seed >> i) & 1) out = (ops[i] as (s: string) => string)(out);
  return out;
}

const editArb = fc.record({ file: fc.nat(), at: fc.nat(), len: fc.integer({ min: 1, max: 80 }), seed: fc.nat(), count: fc.integer({ min: 1, max: 3 }) });

function makeInput(prior: string, at: number, len: number, seed: number, count: number): SingleFileInput | undefined {
  const edits = [];
  let pos = at % Math.max(1, prior.length - 1);
  for (let k = 0; k < count && pos < prior.length; k++) {
    let end = Math.min(prior.length, pos + len);
    while (end < prior.length && occurrences(prior, prior.slice(pos, end), 2).length > 1) end++;
    const oldText = prior.slice(pos, end);
    if (!oldText || occurrences(prior, oldText, 2).length !== 1) break;
    edits.push({ oldText, newText: rewrite(oldText.replace(/ = /g, '=').toUpperCase(), seed >> 3) });
    pos = end + 1 + ((seed * (k + 7)) % 200);
  }
  if (edits.length === 0) return undefined;
  const input = edits.length === 1 ? edits[0]! : { edits };
  try {
    applyInput(prior, input);
    return input;
  } catch {
    return undefined;
  }
}

test('property: any rewrite of W keeps the invariant', () => {
  fc.assert(
    fc.property(editArb, fc.nat(), fc.constantFrom('lf', 'crlf'), ({ file, at, len, seed, count }, fseed, eol) => {
      let prior = sources[file % sources.length] as string;
      if (eol === 'crlf') prior = prior.replace(/\n/g, '\r\n');
      const input = makeInput(prior, at, len, seed, count);
      if (!input) return;
      const written = applyInput(prior, input);
      const final = rewrite(written, fseed);
      const result = reconcile({ prior, input, final });
      assert.equal(replayed(prior, result), final);
    }),
    settings,
  );
});

test('property: reconcile on the edit as already applied (one apply per receipt) gives the same result, and its replay', () => {
  fc.assert(
    fc.property(editArb, fc.nat(), fc.constantFrom('lf', 'crlf'), fc.boolean(), ({ file, at, len, seed, count }, fseed, eol, otherWritten) => {
      let prior = sources[file % sources.length] as string;
      if (eol === 'crlf') prior = prior.replace(/\n/g, '\r\n');
      const input = makeInput(prior, at, len, seed, count);
      if (!input) return;
      const applied = applyTracked(prior, input);
      // Half the cases give a W that is not P + input (someone else's bytes): the unreconciled path.
      const written = otherWritten ? `${applied.text}// changed\n` : applied.text;
      const final = rewrite(written, fseed);
      const request = { prior, input, written, final, path: 'f' };
      const tracked = reconcileTracked(request, applied);
      assert.deepEqual(tracked.result, reconcile(request));
      assert.equal(tracked.replayed, applyInput(prior, tracked.result.input));
    }),
    settings,
  );
  const write = reconcileTracked({ prior: 'a', input: { content: 'b=1' }, final: 'b = 1\n' });
  assert.equal(write.replayed, 'b = 1\n');
});

test('property: formatter changes only inside the edited regions are absorbed completely', () => {
  fc.assert(
    fc.property(editArb, fc.nat(), ({ file, at, len, seed, count }, fseed) => {
      const prior = sources[file % sources.length] as string;
      const input = makeInput(prior, at, len, seed, count);
      if (!input) return;
      const applied = applyTracked(prior, input);
      // Rewrite the inside of every region (keeping its first and last character, so no change touches a boundary).
      let final = '';
      let cursor = 0;
      for (const site of applied.sites) {
        final += applied.text.slice(cursor, site.start);
        const inside = applied.text.slice(site.start, site.end);
        final += inside.length > 2 ? inside[0] + rewrite(inside.slice(1, -1), fseed) + inside[inside.length - 1] : inside;
        cursor = site.end;
      }
      final += applied.text.slice(cursor);
      const result = reconcile({ prior, input, final });
      assert.equal(result.diff, undefined, 'nothing left for the diff');
      assert.equal(result.reconciled, true);
      assert.equal(applyInput(prior, result.input), final);
    }),
    settings,
  );
});

test('property: formatter changes only away from the edited regions leave the input as it was', () => {
  fc.assert(
    fc.property(editArb, fc.nat(), ({ file, at, len, seed, count }, fseed) => {
      const prior = sources[file % sources.length] as string;
      const input = makeInput(prior, at, len, seed, count);
      if (!input) return;
      const applied = applyTracked(prior, input);
      // Rewrite only whole lines that do not contain or touch any region.
      const lines = applied.text.split(/(?<=\n)/);
      let offset = 0;
      const out = lines.map((line) => {
        const start = offset;
        offset += line.length;
        const near = applied.sites.some((s) => s.start <= offset + 1 && s.end >= start - 1);
        return near ? line : rewrite(line, fseed);
      });
      const final = out.join('');
      const result = reconcile({ prior, input, final });
      assert.deepEqual(result.input, input);
      assert.equal(result.reconciled, true);
      assert.equal(replayed(prior, result), final);
    }),
    settings,
  );
});
