// Unit tests for the Ruff adapter, against the real @astral-sh/ruff-wasm-web build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import * as ruffFmt from '@wasm-fmt/ruff_fmt/node';
import { ruffFormatter, ruffOptions } from '../../src/formatters/ruff/adapter.js';
import type { AdapterRequest, AdapterResult } from '../../src/core/types.js';

const WASM = 'node_modules/@astral-sh/ruff-wasm-web/ruff_wasm_bg.wasm';
const ruff = ruffFormatter({ wasm: async () => readFileSync(WASM) });

function request(text: string, settings: Record<string, unknown> = {}, path = 'pkg/mod.py'): AdapterRequest {
  return { path, language: 'python', text, settings };
}

function okText(result: AdapterResult): string {
  assert.equal(result.kind, 'ok', JSON.stringify(result));
  return (result as { text: string }).text;
}

/** A few real stdlib modules (sorted, so the sample is the same on every run). */
function stdlibSample(count: number): string[] {
  const dir = '/usr/lib/python3.11';
  return readdirSync(dir)
    .filter((name) => name.endsWith('.py'))
    .sort()
    .filter((_, index) => index % 17 === 3)
    .slice(0, count)
    .map((name) => `${dir}/${name}`);
}

test('info() reports the version the wasm module states, equal to the installed package', async () => {
  const installed = JSON.parse(readFileSync('node_modules/@astral-sh/ruff-wasm-web/package.json', 'utf8')).version;
  assert.deepEqual(await ruff.info(), { name: 'ruff', version: installed, via: 'wasm' });
  assert.equal(ruff.supportsRange, false);
  assert.deepEqual(ruff.languages, ['python']);
});

test('formats Python with Ruff defaults', async () => {
  const text = "import os\ndef f(a,b):\n  return {'x':a+b}\n";
  assert.equal(okText(await ruff.format(request(text))), 'import os\n\n\ndef f(a, b):\n    return {"x": a + b}\n');
});

test('is idempotent on its own output for real stdlib modules', async () => {
  const files = stdlibSample(6);
  assert.ok(files.length >= 5);
  for (const file of files) {
    const once = okText(await ruff.format(request(readFileSync(file, 'utf8'))));
    assert.equal(okText(await ruff.format(request(once))), once, file);
  }
});

test('a syntax error is an error value with line:column, not a throw', async () => {
  const result = await ruff.format(request('x = "é"\ndef f(:\n    pass\n'));
  assert.equal(result.kind, 'error');
  // Ruff states a UTF-8 byte range; the adapter turns it into a line and a character column.
  assert.match((result as { message: string }).message, /^2:7: Expected a parameter/);
  const unterminated = await ruff.format(request('s = "abc\n'));
  assert.equal(unterminated.kind, 'error');
  assert.match((unterminated as { message: string }).message, /^1:5: /);
});

test('line-length is honoured', async () => {
  const text = 'result = some_function(argument_number_one, argument_number_two, argument_three)\n';
  const wide = okText(await ruff.format(request(text, { 'line-length': 120 })));
  assert.equal(wide, text);
  const narrow = okText(await ruff.format(request(text, { 'line-length': 40 })));
  assert.ok(narrow.split('\n').length > 3, narrow);
  for (const line of narrow.split('\n')) assert.ok(line.length <= 40, line);
});

test('quote-style and indent-width are honoured', async () => {
  const text = 'def f():\n    return "a" + \'b\'\n';
  assert.equal(
    okText(await ruff.format(request(text, { 'indent-width': 2, format: { 'quote-style': 'single' } }))),
    "def f():\n  return 'a' + 'b'\n",
  );
  assert.equal(okText(await ruff.format(request(text))), 'def f():\n    return "a" + "b"\n');
  const tabs = okText(await ruff.format(request(text, { format: { 'indent-style': 'tab' } })));
  assert.equal(tabs, 'def f():\n\treturn "a" + "b"\n');
});

test('keys Ruff would reject are dropped; a bad value is an error value', async () => {
  const settings = {
    'line-length': 100,
    lint: { select: ['E'] },
    exclude: ['build'],
    extend: '$HOME/ruff.toml',
    format: { 'quote-style': 'single', exclude: ['x'], 'line-ending': 'cr-lf', nonsense: true },
  };
  assert.deepEqual(ruffOptions(settings), { 'line-length': 100, format: { 'quote-style': 'single', 'line-ending': 'lf' } });
  assert.equal(okText(await ruff.format(request('x = "a"\n', settings))), "x = 'a'\n");
  const bad = await ruff.format(request('x = 1\n', { 'line-length': 'wide' }));
  assert.equal(bad.kind, 'error');
  assert.match((bad as { message: string }).message, /invalid ruff settings: .*invalid type/);
});

test('output is LF even when the project asks for CRLF (the engine restores line endings)', async () => {
  const formatted = okText(await ruff.format(request('a=1\nb=2\n', { format: { 'line-ending': 'cr-lf' } })));
  assert.equal(formatted, 'a = 1\nb = 2\n');
});

test('workspaces are cached per settings and evicted ones are not reused', async () => {
  const small = ruffFormatter({ wasm: async () => readFileSync(WASM), maxWorkspaces: 1 });
  const text = 'x = "a"\n';
  for (let round = 0; round < 3; round++) {
    assert.equal(okText(await small.format(request(text, { format: { 'quote-style': 'single' } }))), "x = 'a'\n");
    assert.equal(okText(await small.format(request(text))), 'x = "a"\n');
  }
  await small.dispose?.();
  assert.equal(okText(await small.format(request(text))), 'x = "a"\n');
});

// Stubs. `ruff format` applies stub rules to .pyi files; the wasm Workspace has no path and always
// applies .py rules. @wasm-fmt/ruff_fmt (Ruff 0.15, takes a path) shows what stub rules give.
const STUB = 'import os\nclass A:\n    def f(self) -> int: ...\n\n    def g(self) -> int: ...\nclass B: ...\ndef h(): ...\n';

test('without the ruff_fmt build, .pyi stubs are unsupported by default, because the official wasm cannot apply stub rules', async () => {
  const result = await ruff.format(request(STUB, {}, 'typings/mod.pyi'));
  assert.equal(result.kind, 'unsupported');
  assert.match((result as { reason: string }).reason, /stub \(\.pyi\) rules/);
});

test("known difference: pyi: 'python-rules' formats stubs with .py blank-line rules", async () => {
  const withPyRules = ruffFormatter({ wasm: async () => readFileSync(WASM), pyi: 'python-rules' });
  const ours = okText(await withPyRules.format(request(STUB, {}, 'typings/mod.pyi')));
  const stubRules = ruffFmt.format(STUB, 'mod.pyi');
  const pyRules = ruffFmt.format(STUB, 'mod.py');
  // The wasm output is Ruff's .py output, and differs from stub output only in blank lines.
  assert.equal(ours, pyRules);
  assert.notEqual(ours, stubRules);
  const withoutBlankLines = (text: string) => text.split('\n').filter((line) => line.trim() !== '').join('\n');
  assert.equal(withoutBlankLines(ours), withoutBlankLines(stubRules));
  assert.match(stubRules, /def f\(self\) -> int: \.\.\.\n    def g/);
  assert.match(ours, /def f\(self\) -> int: \.\.\.\n\n    def g/);
});
