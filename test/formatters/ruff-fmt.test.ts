// What the Ruff adapter sends to @wasm-fmt/ruff_fmt: ranges (`scope: 'edit'`, format_range, spliced
// back) and .pyi stubs (Ruff's stub rules), each receipt naming that build. Real stdlib modules and
// real stubs (Debian's python3-cryptography; typeshed when installed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { RUFF_FMT_PACKAGE_VERSION, ruffFormatter } from '../../src/formatters/ruff/adapter.js';
import { createEngine } from '../../src/engine/engine.js';
import type { AdapterResult, Utf16Range } from '../../src/core/types.js';

const ruff = ruffFormatter({
  wasm: async () => readFileSync('node_modules/@astral-sh/ruff-wasm-web/ruff_wasm_bg.wasm'),
  ruffFmtWasm: async () => readFileSync('node_modules/@wasm-fmt/ruff_fmt/ruff_fmt_bg.wasm'),
});

function okText(result: AdapterResult): string {
  assert.equal(result.kind, 'ok', JSON.stringify(result));
  return (result as { text: string }).text;
}

async function formatRange(text: string, range: Utf16Range, settings: Record<string, unknown> = {}): Promise<AdapterResult> {
  return ruff.format({ path: 'pkg/mod.py', language: 'python', text, settings, range });
}

test('RUFF_FMT_PACKAGE_VERSION is the installed @wasm-fmt/ruff_fmt; the adapter declares Python ranges', () => {
  const installed = JSON.parse(readFileSync('node_modules/@wasm-fmt/ruff_fmt/package.json', 'utf8')).version;
  assert.equal(RUFF_FMT_PACKAGE_VERSION, installed, 'bump RUFF_FMT_PACKAGE_VERSION with the package');
  assert.equal(ruff.supportsRange, true);
  assert.deepEqual(ruff.rangeLanguages, ['python']);
});

/** Top-level `def`s of a module: [start of the line, end of its last line]. */
function topLevelDefs(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const starts = [...text.matchAll(/^def /gm)].map((m) => m.index as number);
  for (const start of starts) {
    const next = /\n(?=\S)/g;
    next.lastIndex = text.indexOf('\n', start);
    const found = next.exec(text);
    out.push([start, found ? found.index + 1 : text.length]);
  }
  return out;
}

test('on stdlib modules, a def range is formatted and everything outside it stays byte-identical', async () => {
  const dir = '/usr/lib/python3.11';
  const files = readdirSync(dir).filter((n) => n.endsWith('.py')).sort().filter((_, i) => i % 11 === 5).slice(0, 16);
  let changed = 0;
  let checked = 0;
  for (const name of files) {
    // Unformat the whole module (valid Python either way), so the rest of the file would change too.
    const text = readFileSync(`${dir}/${name}`, 'utf8').replace(/, /g, ',').replace(/\) -> /g, ')->');
    const defs = topLevelDefs(text);
    if (defs.length === 0) continue;
    const [start, end] = defs[Math.floor(defs.length / 2)] as [number, number];
    const result = await formatRange(text, { utf16Start: start, utf16End: end });
    if (result.kind === 'error') continue; // `, ` inside an f-string expression etc.: nothing to compare.
    const out = okText(result);
    assert.deepEqual((result as { formatter?: unknown }).formatter, { name: 'ruff', version: RUFF_FMT_PACKAGE_VERSION, via: 'wasm' });
    assert.ok(out.startsWith(text.slice(0, start)), `${name}: text before the range changed`);
    assert.ok(out.endsWith(text.slice(end)), `${name}: text after the range changed`);
    const formattedEnd = out.length - (text.length - end);
    // The range itself is now formatted: formatting it again changes nothing.
    assert.equal(okText(await formatRange(out, { utf16Start: start, utf16End: formattedEnd })), out, `${name}: range not stable`);
    if (out !== text) changed++;
    checked++;
  }
  assert.ok(checked >= 10, `checked ${checked}`);
  assert.ok(changed >= checked / 2, `only ${changed} of ${checked} ranges changed: the unformatting did not reach them`);
});

test('ruff.toml settings reach the range build (quote-style, line-length, indent-width)', async () => {
  const text = 'x = "a"\ndef f(aaaa, bbbb, cccc):\n  return {"k": aaaa}\ny = "b"\n';
  const start = text.indexOf('def');
  const end = text.indexOf('y =');
  const out = okText(await formatRange(text, { utf16Start: start, utf16End: end }, { 'line-length': 20, 'indent-width': 2, format: { 'quote-style': 'single' } }));
  // The range ends where `y` starts, so Ruff also puts the two blank lines after a function there.
  assert.equal(out, 'x = "a"\ndef f(\n  aaaa, bbbb, cccc\n):\n  return {\'k\': aaaa}\n\n\ny = "b"\n');
});

test('offsets are converted between UTF-16 and UTF-8 around non-ASCII text', async () => {
  const text = 's = "é😀"\nz=[ 1 ]\nt = "ü"\n';
  const start = text.indexOf('z');
  const out = okText(await formatRange(text, { utf16Start: start, utf16End: text.indexOf('\nt') }));
  assert.equal(out, 's = "é😀"\nz = [1]\nt = "ü"\n');
});

test('a syntax error in the range is an error value with line:column', async () => {
  const text = 'a = 1\ndef f(:\n    pass\n';
  const result = await formatRange(text, { utf16Start: 6, utf16End: text.length });
  assert.equal(result.kind, 'error');
  assert.match((result as { message: string }).message, /^2:7: /);
});

test("engine, scope 'edit': only the edited statement is formatted and the receipt names the range build", async () => {
  const engine = createEngine({ formatters: [ruff], projectFiles: { 'ruff.toml': 'line-length = 88\n' }, config: { scope: 'edit' } });
  const prior = "import os\nx = {'a':1}\n\ndef f(a,b):\n    return a+b\n\ny = [ 1,2 ]\n";
  const receipt = await engine.afterEdit({ path: 'm.py', prior, input: { oldText: 'return a+b', newText: 'return a*b' } });
  assert.equal(receipt.status, 'formatted');
  assert.equal(receipt.scopeFallback, undefined);
  assert.deepEqual(receipt.formatter, { name: 'ruff', version: RUFF_FMT_PACKAGE_VERSION, via: 'wasm' });
  // Only the edited statement: even the `def` line above it keeps its spacing.
  assert.equal(receipt.content, "import os\nx = {'a':1}\n\ndef f(a,b):\n    return a * b\n\ny = [ 1,2 ]\n");
  assert.deepEqual(receipt.input, { oldText: 'return a+b', newText: 'return a * b' });
  // Whole-file formatting still goes to the official build.
  const whole = await createEngine({ formatters: [ruff], projectFiles: { 'ruff.toml': '' } }).format({ path: 'm.py', text: prior });
  assert.notEqual(whole.formatter?.version, RUFF_FMT_PACKAGE_VERSION);
  assert.equal(whole.content, 'import os\n\nx = {"a": 1}\n\n\ndef f(a, b):\n    return a + b\n\n\ny = [1, 2]\n');
});

const STUB = 'import os\nclass A:\n    def f(self) -> int: ...\n\n    def g(self) -> int: ...\nclass B: ...\ndef h(): ...\n';

test('.pyi stubs get Ruff\'s stub rules by default when the ruff_fmt build is there, and the receipt names it', async () => {
  const result = await ruff.format({ path: 'typings/mod.pyi', language: 'python', text: STUB, settings: {} });
  assert.equal(okText(result), 'import os\n\nclass A:\n    def f(self) -> int: ...\n    def g(self) -> int: ...\n\nclass B: ...\n\ndef h(): ...\n');
  assert.deepEqual((result as { formatter?: unknown }).formatter, { name: 'ruff', version: RUFF_FMT_PACKAGE_VERSION, via: 'wasm' });
  // A .py file with the same text keeps the .py rules of the official build.
  const py = await ruff.format({ path: 'mod.py', language: 'python', text: STUB, settings: {} });
  assert.equal((py as { formatter?: unknown }).formatter, undefined);
  assert.match(okText(py), /def f\(self\) -> int: \.\.\.\n\n    def g/);
});

function stubsUnder(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const full = `${dir}/${name}`;
    if (statSync(full).isDirectory()) stubsUnder(full, out);
    else if (name.endsWith('.pyi')) out.push(full);
  }
  return out;
}

const CRYPTOGRAPHY_STUBS = stubsUnder('/usr/lib/python3/dist-packages/cryptography');
const TYPESHED = stubsUnder('/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jedi/third_party/typeshed/stdlib');
const skipStubs = CRYPTOGRAPHY_STUBS.length === 0 && !process.env.CI ? 'no python3-cryptography stubs on this machine (.ci/run installs them)' : false;
if (skipStubs) console.log(`# skipped: real-stub agreement: ${skipStubs}`);

test('real stubs: stub rules leave released, formatted stubs as they are far more often than .py rules', { skip: skipStubs }, async () => {
  const pyRules = ruffFormatter({ wasm: async () => readFileSync('node_modules/@astral-sh/ruff-wasm-web/ruff_wasm_bg.wasm'), pyi: 'python-rules' });
  for (const [name, files, minimum] of [['python3-cryptography', CRYPTOGRAPHY_STUBS, 1], ['typeshed (jedi)', TYPESHED, 0]] as const) {
    if (files.length < minimum || files.length === 0) {
      assert.ok(name !== 'python3-cryptography', 'python3-cryptography stubs are missing');
      continue;
    }
    let withStubRules = 0;
    let withPyRules = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const request = { path: file.slice(1), language: 'python', text, settings: {} };
      const stub = await ruff.format(request);
      const py = await pyRules.format(request);
      if (stub.kind === 'ok' && stub.text === text) withStubRules++;
      if (py.kind === 'ok' && py.text === text) withPyRules++;
    }
    console.log(`  ${name}: ${files.length} stubs unchanged: ${withStubRules} with stub rules, ${withPyRules} with .py rules`);
    assert.ok(withStubRules > withPyRules, name);
    if (name === 'python3-cryptography') assert.ok(withStubRules >= files.length * 0.75, `${withStubRules}/${files.length}`);
  }
});
