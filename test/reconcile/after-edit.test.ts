// afterEdit with real formatters: the code-assistant format-on-save cases, ambiguity, CRLF/BOM,
// report modes, scope 'edit', reread hints and patches. Every receipt is checked against the invariant.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { afterEdit, type PatchReceipt } from '../../src/reconcile/index.js';
import { applyInput, applyPatchText } from '../../src/tools/index.js';
import { applyUnifiedDiff } from '../../src/core/diff.js';
import { createEngine } from '../../src/engine/engine.js';
import type { Receipt, SingleFileInput, EditInput, MultiEditInput } from '../../src/core/types.js';
import { formatWith, realAdapters } from './real-formatters.js';

/** The invariant: replay(P, receipt.input), then receipt.diff, is F; and the record describes F. */
function assertInvariant(prior: string, receipt: Receipt): void {
  const replayed = applyInput(prior, receipt.input as SingleFileInput);
  const final = receipt.diff ? applyUnifiedDiff(replayed, receipt.diff) : replayed;
  assert.equal(final, receipt.content, 'replay + diff must equal F');
  const bytes = Buffer.from(receipt.content, 'utf8');
  assert.deepEqual(receipt.record, { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length });
}

const prettier = () => ({ format: formatWith('prettier') });

test("code-assistant: a JavaScript edit 'const y=42;' comes back as 'const y = 42;'", async () => {
  const prior = 'const x = 1;\nconst y = 2;\nconsole.log(x + y);\n';
  const input = { oldText: 'const y = 2;', newText: 'const y=42;' };
  const receipt = await afterEdit(prettier(), { path: 'src/a.js', prior, input });
  assert.equal(receipt.status, 'formatted');
  assert.deepEqual(receipt.input, { oldText: 'const y = 2;', newText: 'const y = 42;' });
  assert.equal(receipt.reconciled, true);
  assert.equal(receipt.diff, undefined);
  assert.equal(receipt.note, receipt.line);
  assert.match(receipt.line, /^formatted \(prettier 3\.\d+\.\d+, js\): src\/a\.js$/);
  assertInvariant(prior, receipt);
});

test('code-assistant: two unformatted TOML replacements come back holding the formatted key = value forms', async () => {
  const prior = '[package]\nname = "demo"\nversion = "0.1.0"\n\n[dependencies]\nserde = "1"\n';
  const input: MultiEditInput = {
    edits: [
      { oldText: 'version = "0.1.0"', newText: 'version="0.2.0"' },
      { oldText: 'serde = "1"', newText: 'serde="1.0"\nanyhow="1"' },
    ],
  };
  const receipt = await afterEdit({ format: formatWith('toml') }, { path: 'Cargo.toml', prior, input });
  assert.equal(receipt.status, 'formatted');
  const edits = (receipt.input as MultiEditInput).edits;
  assert.equal(edits[0]?.newText, 'version = "0.2.0"');
  // dprint's TOML plugin also sorts the dependency keys: that happened inside the region, so it is absorbed.
  assert.equal(edits[1]?.newText, 'anyhow = "1"\nserde = "1.0"');
  assert.equal(receipt.reconciled, true);
  assert.equal(receipt.diff, undefined);
  assertInvariant(prior, receipt);
});

test('code-assistant: formatting that changes content meant to stay stable is not rewritten into the edit; the diff says it', async () => {
  // The edit touches one line; Prettier also rewrites the untouched lines around it.
  const prior = "let a = 'one'\nlet b = 2;\nlet c = {x:1}\n";
  const input = { oldText: 'let b = 2;', newText: "let b = 'two';" };
  const receipt = await afterEdit(prettier(), { path: 'a.js', prior, input });
  assert.deepEqual(receipt.input, { oldText: 'let b = 2;', newText: 'let b = "two";' });
  assert.equal(receipt.reconciled, true);
  assert.ok(receipt.diff);
  assert.match(receipt.diff, /^-let a = 'one'$/m);
  assert.match(receipt.diff, /^\+let a = "one";$/m);
  assert.match(receipt.diff, /^\+let c = \{ x: 1 \};$/m);
  assert.ok(!/let b/.test(receipt.diff.split('\n').filter((l) => /^[-+][^-+]/.test(l)).join('\n')), 'the edited line is not in the diff');
  assert.ok(receipt.note.startsWith(receipt.line + '\n--- a/a.js'));
  assertInvariant(prior, receipt);
});

test('code-assistant: a file outside the configured patterns is not formatted (engine selection)', async () => {
  const engine = createEngine({ formatters: [realAdapters().prettier!], config: { formatters: { '**/*.ts': 'prettier' } } });
  const prior = 'const a=1\n';
  const input = { oldText: 'const a=1', newText: 'const a=2' };
  const outside = (await engine.afterEdit({ path: 'lib/a.js', prior, input })) as Receipt;
  assert.equal(outside.status, 'skipped');
  assert.equal(outside.content, 'const a=2\n');
  assert.deepEqual(outside.input, input);
  assert.equal(outside.reconciled, true);
  assertInvariant(prior, outside);
  const inside = (await engine.afterEdit({ path: 'lib/a.ts', prior, input })) as Receipt;
  assert.equal(inside.status, 'formatted');
  assert.deepEqual(inside.input, { oldText: 'const a=1', newText: 'const a = 2;' });
  assertInvariant(prior, inside);
});

test('code-assistant: a whole-file write comes back as the bytes on disk', async () => {
  const content = 'def f( a,b ):\n  return {"a":a,\'b\':b}\n';
  const receipt = await afterEdit({ format: formatWith('ruff') }, { path: 'm.py', prior: null, input: { content } });
  assert.equal(receipt.status, 'formatted');
  assert.deepEqual(receipt.input, { content: receipt.content });
  assert.equal(receipt.content, 'def f(a, b):\n    return {"a": a, "b": b}\n');
  assert.equal(receipt.diff, undefined);
  assert.equal(receipt.reconciled, true);
  assertInvariant('', receipt);
});

test('changes inside the region beyond whitespace are absorbed: quotes, semicolons, trailing commas, parentheses, line breaks', async () => {
  const prior = 'export const items = [];\n\nexport function run() {\n  return 0;\n}\n';
  const input = {
    oldText: '  return 0;',
    newText: "  const total = ((1)) + 'a'\n  const list = [\n    'alpha','beta',\n  ]\n  return list.map(x=>x+total)",
  };
  const receipt = await afterEdit(prettier(), { path: 'src/run.ts', prior, input });
  assert.equal(receipt.reconciled, true);
  assert.equal(receipt.diff, undefined);
  assert.equal((receipt.input as EditInput).oldText, '  return 0;');
  assert.equal(
    (receipt.input as EditInput).newText,
    '  const total = 1 + "a";\n  const list = ["alpha", "beta"];\n  return list.map((x) => x + total);',
  );
  assertInvariant(prior, receipt);
});

test('a formatter hunk straddling the edge widens the edit when the widened oldText is unique', async () => {
  // gofmt realigns the whole const block, including the line before the edited one.
  const prior = 'package p\n\nconst (\n\ta = 1\n\tbb = 2\n)\n';
  const input = { oldText: 'bb = 2', newText: 'bbbbbb = 2' };
  const receipt = await afterEdit({ format: formatWith('gofmt') }, { path: 'p.go', prior, input });
  assert.equal(receipt.content, 'package p\n\nconst (\n\ta      = 1\n\tbbbbbb = 2\n)\n');
  assertInvariant(prior, receipt);
  assert.equal(receipt.reconciled, true);
  // The realigned `a` line is outside the edit: it is in the diff, the edit itself is exact.
  assert.deepEqual(receipt.input, { oldText: 'bb = 2', newText: 'bbbbbb = 2' });
  assert.match(receipt.diff ?? '', /^\+\ta      = 1$/m);

  // Ruff collapses the space run that starts before the edited text: the edit grows to include it.
  const prior2 = 'x =   1\ny = 2\n';
  const input2 = { oldText: ' 1', newText: ' 2' };
  const receipt2 = await afterEdit({ format: formatWith('ruff') }, { path: 'w.py', prior: prior2, input: input2 });
  assert.equal(receipt2.content, 'x = 2\ny = 2\n');
  assert.equal(receipt2.reconciled, true);
  const widened = receipt2.input as EditInput;
  assert.ok(widened.oldText.length > input2.oldText.length && widened.oldText.endsWith(' 1') && /^ *1$/.test(widened.oldText), JSON.stringify(widened));
  assert.equal(applyInput(prior2, widened), receipt2.content);
  assert.equal(receipt2.diff, undefined);
  assertInvariant(prior2, receipt2);
});

test('never guesses: a rewrite that would make an anchor match twice leaves that edit as it was', async () => {
  // Rewriting edit 1 to the formatted 'a = 3' would make edit 2's oldText '= 3' match twice on replay.
  const prior = 'a = 1\nc = 3\n';
  const input: MultiEditInput = { edits: [{ oldText: 'a = 1', newText: 'a=3' }, { oldText: '= 3', newText: '= 4' }] };
  const receipt = await afterEdit({ format: formatWith('ruff') }, { path: 'a.py', prior, input });
  assert.equal(receipt.content, 'a = 3\nc = 4\n');
  assertInvariant(prior, receipt);
  assert.equal(receipt.reconciled, false);
  assert.deepEqual(receipt.input, input);
  assert.match(receipt.reason ?? '', /^edit 1: .*matches 2 times/);
  assert.match(receipt.diff ?? '', /^-a=3\n\+a = 3$/m);
});

test('never guesses: replaceAll sites that were formatted differently', async () => {
  const prior = 'a = f(x)\nb = "x"\n';
  const input = { oldText: 'x', newText: 'x,y', replaceAll: true };
  const receipt = await afterEdit({ format: formatWith('ruff') }, { path: 'r.py', prior, input });
  assertInvariant(prior, receipt);
  assert.equal(receipt.reconciled, false);
  assert.match(receipt.reason ?? '', /replaceAll sites were formatted differently/);
  assert.deepEqual(receipt.input, input);
  assert.ok(receipt.diff);
  assert.match(receipt.note, /your edit was kept as sent/);
});

test('never guesses: a region that cannot be located (W is not P with the input applied)', async () => {
  const prior = 'const a = 1;\n';
  const input = { oldText: 'const a = 1;', newText: 'const a=2;' };
  const written = 'const a=2;\nconst other=3;\n';
  const receipt = await afterEdit(prettier(), { path: 'a.ts', prior, input, written });
  assert.equal(receipt.reconciled, false);
  assert.match(receipt.reason ?? '', /cannot be located/);
  assert.deepEqual(receipt.input, input);
  assert.equal(receipt.content, 'const a = 2;\nconst other = 3;\n');
  assertInvariant(prior, receipt);
});

test('CRLF (a formatter that keeps it: Prettier endOfLine auto) and a BOM survive into F and into the rewritten input, byte for byte', async () => {
  const prettierAuto = () => ({ format: formatWith('prettier', { endOfLine: 'auto' }) });
  const prior = '\uFEFFconst a = 1;\r\nconst b = 2;\r\n';
  const input = { oldText: 'const b = 2;', newText: 'const b={x:1}' };
  const receipt = await afterEdit(prettierAuto(), { path: 'a.ts', prior, input });
  assert.equal(receipt.content, '\uFEFFconst a = 1;\r\nconst b = { x: 1 };\r\n');
  assert.deepEqual(receipt.input, { oldText: 'const b = 2;', newText: 'const b = { x: 1 };' });
  assertInvariant(prior, receipt);

  // An agent that writes LF into a CRLF file: the edit is adapted to CRLF, and so is F and the rewrite.
  const input2 = { oldText: 'const a = 1;\nconst b = 2;', newText: 'function f(){\nreturn 1}' };
  const receipt2 = await afterEdit(prettierAuto(), { path: 'a.ts', prior, input: input2 });
  assert.equal(receipt2.content, '\uFEFFfunction f() {\r\n  return 1;\r\n}\r\n');
  assert.deepEqual(receipt2.input, { oldText: 'const a = 1;\r\nconst b = 2;', newText: 'function f() {\r\n  return 1;\r\n}' });
  assertInvariant(prior, receipt2);
});

test("a formatter whose ending differs from the file's (Prettier's default lf on a CRLF file): F has LF everywhere, and the receipt still replays byte for byte", async () => {
  const prior = 'const a = 1;\r\nconst b = 2;\r\n';
  const receipt = await afterEdit(prettier(), { path: 'a.ts', prior, input: { oldText: 'const b = 2;', newText: 'const b={x:1}' } });
  assert.equal(receipt.content, 'const a = 1;\nconst b = { x: 1 };\n');
  assert.ok(receipt.diff, 'the ending change outside the edit is in the diff');
  assertInvariant(prior, receipt);
});

test("mixed line endings: Ruff's line-ending auto gives every line the file's first ending", async () => {
  const prior = 'a = 1\r\nb = 2\nc = 3\r\nd = 4\r\n';
  const input = { oldText: 'c = 3', newText: 'c=[1,\n2]' };
  const receipt = await afterEdit({ format: formatWith('ruff') }, { path: 'm.py', prior, input });
  assert.equal(receipt.content, 'a = 1\r\nb = 2\r\nc = [1, 2]\r\nd = 4\r\n');
  assertInvariant(prior, receipt);
});

test('no formatter runs: the file keeps its own (mixed) endings', async () => {
  const prior = 'a = 1\r\nb = 2\nc = 3\r\n';
  const skip = async () => ({ path: 'm.txt', status: 'skipped' as const, content: '', reason: 'unknown extension', line: 'not formatted', ms: 0 });
  const receipt = await afterEdit({ format: async (path: string, text: string) => ({ ...(await skip()), path, content: text }) }, { path: 'm.txt', prior, input: { oldText: 'b = 2', newText: 'b = 3' } });
  assert.equal(receipt.content, 'a = 1\r\nb = 3\nc = 3\r\n');
});

test("report 'line' and 'none': the formatter runs, the input is untouched, reconciled is false, the diff still holds the truth", async () => {
  const prior = 'const y = 2;\n';
  const input = { oldText: 'const y = 2;', newText: 'const y=42' };
  const line = await afterEdit({ format: formatWith('prettier'), report: 'line' }, { path: 'a.js', prior, input });
  assert.equal(line.content, 'const y = 42;\n');
  assert.deepEqual(line.input, input);
  assert.equal(line.reconciled, false);
  assert.equal(line.note, line.line);
  assertInvariant(prior, line);
  const none = await afterEdit({ format: formatWith('prettier') }, { path: 'a.js', prior, input, report: 'none' });
  assert.equal(none.note, '');
  assert.equal(none.reconciled, false);
  assert.equal(none.content, 'const y = 42;\n');
  assertInvariant(prior, none);
});

test('a diff over maxDiffChars becomes a reread hint naming line ranges of F', async () => {
  const lines = Array.from({ length: 60 }, (_, i) => `let v${i}=${i}`);
  const prior = lines.join('\n') + '\n';
  const input = { oldText: lines.slice(28, 35).join('\n'), newText: lines.slice(28, 35).map((l) => l.replace('=', ' = ') + ';').join('\n') };
  const receipt = await afterEdit({ format: formatWith('prettier'), limits: { maxDiffChars: 200 } }, { path: 'src/a.ts', prior, input });
  assertInvariant(prior, receipt);
  assert.ok((receipt.diff ?? '').length > 200);
  assert.match(receipt.note, /the formatter changed more than fits here; reread lines 1-28, 36-60 of src\/a\.ts$/);
});

test("scope 'edit': Prettier formats only the edited region; gofmt says it has no range support and formats the file", async () => {
  const prior = "let a = 'keep'\nfunction f() {\n  return 1\n}\nlet z = 'keep'\n";
  const input = { oldText: '  return 1', newText: "  return {a:'b'}" };
  const format = formatWith('prettier');
  const receipt = await afterEdit({ format, scope: 'edit' }, { path: 'a.js', prior, input });
  assert.deepEqual(format.ranges[0], { utf16Start: 30, utf16End: 46 });
  assert.ok(receipt.content.startsWith("let a = 'keep'\n") && receipt.content.endsWith("let z = 'keep'\n"), receipt.content);
  assert.match(receipt.content, /return \{ a: "b" \}/);
  assertInvariant(prior, receipt);

  const goPrior = 'package p\nfunc f() int {\nreturn 1\n}\nvar   z = 1\n';
  const go = await afterEdit({ format: formatWith('gofmt'), scope: 'edit' }, { path: 'p.go', prior: goPrior, input: { oldText: 'return 1', newText: 'return  2' } });
  assert.equal(go.scopeFallback, 'gofmt cannot format a range; formatted the whole file');
  assert.match(go.note, /scope 'edit': gofmt cannot format a range/);
  assert.equal(go.content, 'package p\n\nfunc f() int {\n\treturn 2\n}\n\nvar z = 1\n');
  assertInvariant(goPrior, go);
});

test('failed formatter: F = W, input untouched, reconciled', async () => {
  const prior = 'x = 1\n';
  const input = { oldText: 'x = 1', newText: 'x = (' };
  const receipt = await afterEdit({ format: formatWith('ruff') }, { path: 'a.py', prior, input });
  assert.equal(receipt.status, 'failed');
  assert.equal(receipt.content, 'x = (\n');
  assert.deepEqual(receipt.input, input);
  assert.equal(receipt.reconciled, true);
  assertInvariant(prior, receipt);
});

function assertPatchInvariant(priors: Record<string, string>, receipt: PatchReceipt): void {
  const replayed = applyPatchText(receipt.input.patch, (p) => priors[p]);
  for (const r of receipt.receipts) {
    const got = replayed.get(r.path);
    if (r.line.startsWith('deleted')) {
      assert.equal(got, null);
      continue;
    }
    assert.equal(typeof got, 'string', r.path);
    assert.equal(r.diff ? applyUnifiedDiff(got as string, r.diff) : got, r.content, `patch invariant for ${r.path}`);
    // Each receipt's own one-file patch replays too.
    const own = applyPatchText((r.input as { patch: string }).patch, (p) => priors[p]).get(r.path) as string;
    assert.equal(r.diff ? applyUnifiedDiff(own, r.diff) : own, r.content);
  }
}

test('applyPatch (Codex format): update with move, add, delete over several files; the rewritten patch yields the final files', async () => {
  const priors = {
    'src/a.ts': "import {x} from './x'\n\nexport function a() {\n  return x\n}\n\nexport const keep = 1;\n",
    'src/old.ts': 'export const gone = 1;\n',
    'src/m.ts': 'export const m = 1;\n',
  };
  const patch = [
    '*** Begin Patch',
    '*** Update File: src/a.ts',
    '@@',
    ' export function a() {',
    '-  return x',
    "+  return {value:x,label:'x'}",
    ' }',
    '*** Add File: src/b.ts',
    "+export const b = {a:1,b:'2'}",
    '*** Delete File: src/old.ts',
    '*** Update File: src/m.ts',
    '*** Move to: src/n.ts',
    '@@',
    '-export const m = 1;',
    '+export const n=2',
    '*** End Patch',
  ].join('\n');
  const receipt = (await afterEdit({ format: formatWith('prettier') }, { path: '', prior: priors, input: { patch } })) as PatchReceipt;
  assert.equal(receipt.receipts.length, 4);
  assertPatchInvariant(priors, receipt);
  const [a, b, , n] = receipt.receipts as [Receipt, Receipt, Receipt, Receipt];
  assert.match(receipt.input.patch, /^\+ {2}return \{ value: x, label: "x" \};$/m);
  assert.match(receipt.input.patch, /^\+export const b = \{ a: 1, b: "2" \};$/m);
  assert.match(receipt.input.patch, /^\*\*\* Move to: src\/n\.ts$/m);
  assert.match(receipt.input.patch, /^\+export const n = 2;$/m);
  // The import line outside the patched chunk is reformatted too: that goes in the diff.
  assert.match(a.diff ?? '', /^\+import \{ x \} from "\.\/x";$/m);
  assert.equal(b.diff, undefined);
  assert.equal(n.path, 'src/n.ts');
  assert.equal(receipt.reconciled, true);
});

test('applyPatch (unified diff): hunks reconciled, CRLF file kept CRLF', async () => {
  const priors = { 'a.py': 'def f():\r\n    return 1\r\n\r\n\r\ndef g():\r\n    return 2\r\n' };
  const patch = '--- a/a.py\n+++ b/a.py\n@@ -5,2 +5,2 @@\n def g():\n-    return 2\n+    return {"a":2}\n';
  const receipt = (await afterEdit({ format: formatWith('ruff') }, { path: '', prior: priors, input: { patch } })) as PatchReceipt;
  assertPatchInvariant(priors, receipt);
  const [r] = receipt.receipts as [Receipt];
  assert.equal(r.content, 'def f():\r\n    return 1\r\n\r\n\r\ndef g():\r\n    return {"a": 2}\r\n');
  assert.match(receipt.input.patch, /^\+ {4}return \{"a": 2\}$/m);
  assert.equal(r.diff, undefined);
});
