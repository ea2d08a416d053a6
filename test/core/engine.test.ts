/**
 * The engine's outcomes: statuses, reasons and result lines for every expected case, with the real
 * built-in adapters. Broken formatters (empty output, not idempotent, hanging) are small test adapters:
 * no real formatter behaves that way on purpose.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../../src/engine/engine.js';
import type { FormatterAdapter, FormatterInfo } from '../../src/core/types.js';
import { prettierFormatter } from '../../src/formatters/prettier/adapter.js';
import { createBuiltinAdapters } from '../../src/node/builtins.js';

const builtins = createBuiltinAdapters();

function brokenAdapter(name: string, format: (text: string) => Promise<string> | string): FormatterAdapter {
  const info: FormatterInfo = { name, version: '0.0.0-test', via: 'js' };
  return {
    name, via: 'js', languages: ['typescript'], supportsRange: false,
    info: async () => info,
    format: async (request) => ({ kind: 'ok', text: await format(request.text) }),
  };
}

test('formatted, unchanged and the result lines', async () => {
  const engine = createEngine({ formatters: builtins, projectFiles: { 'biome.json': '{}' } });
  const formatted = await engine.format({ path: 'src/a.ts', text: 'const a={b:1}\n' });
  assert.equal(formatted.status, 'formatted');
  assert.equal(formatted.content, 'const a = { b: 1 };\n');
  assert.equal(formatted.line, 'formatted (biome 2.4.15, wasm): src/a.ts');
  const unchanged = await engine.format({ path: 'src/a.ts', text: formatted.content });
  assert.equal(unchanged.status, 'unchanged');
  assert.equal(unchanged.line, 'already formatted (biome 2.4.15, wasm): src/a.ts');
});

test('a syntax error is a failed outcome with the first message and its location, never an exception', async () => {
  const engine = createEngine({ formatters: builtins, projectFiles: { 'biome.json': '{}', 'ruff.toml': '' } });
  const ts = await engine.format({ path: 'a.ts', text: 'const = ;\n' });
  assert.equal(ts.status, 'failed');
  assert.match(ts.line, /^formatter failed \(biome 2\.4\.15, wasm\): a\.ts: .+\(\d+:\d+\)$/);
  assert.equal(ts.content, 'const = ;\n');
  const py = await engine.format({ path: 'a.py', text: 'def f(:\n  pass\n' });
  assert.equal(py.status, 'failed');
  assert.match(py.line, /^formatter failed \(ruff 0\.16\.9, wasm\): a\.py: .*\d+:\d+/);
});

test('skipped: disabled, no formatter declared, unknown extension, too large, binary, not UTF-8', async () => {
  const disabled = createEngine({ formatters: builtins, config: { enabled: false }, projectFiles: { 'biome.json': '{}' } });
  assert.equal((await disabled.format({ path: 'a.ts', text: 'x' })).reason, 'disabled');

  const engine = createEngine({ formatters: builtins, projectFiles: { 'biome.json': '{}' }, limits: { maxInputBytes: 1000 } });
  const undeclared = await engine.format({ path: 'a.py', text: 'x=1\n' });
  assert.deepEqual([undeclared.status, undeclared.reason], ['skipped', 'no formatter declared']);
  assert.match(undeclared.line, /^not formatted \(no formatter declared.*\): a\.py$/);
  assert.equal((await engine.format({ path: 'notes.xyz', text: 'x' })).reason, 'unknown extension');
  const large = await engine.format({ path: 'big.ts', text: 'const a = 1;\n'.repeat(100) });
  assert.deepEqual([large.status, large.reason], ['skipped', 'too large']);
  assert.equal((await engine.format({ path: 'b.ts', text: 'a\0b' })).reason, 'binary');
  const latin1 = await engine.format({ path: 'c.ts', bytes: new Uint8Array([0x63, 0x6f, 0x6e, 0x73, 0x74, 0x20, 0xe9, 0x3b]) });
  assert.deepEqual([latin1.status, latin1.reason], ['skipped', 'not UTF-8']);
});

test('empty output for a non-empty file is a failure, and the text is kept', async () => {
  const engine = createEngine({ formatters: [brokenAdapter('emptier', () => '')], config: { formatters: { typescript: 'emptier' } } });
  const outcome = await engine.format({ path: 'a.ts', text: 'const a = 1;\n' });
  assert.equal(outcome.status, 'failed');
  assert.equal(outcome.content, 'const a = 1;\n');
  assert.match(outcome.line, /returned empty output/);
});

test('a formatter that is not idempotent is noticed when it reformats its own output', async () => {
  let calls = 0;
  const engine = createEngine({ formatters: [brokenAdapter('flipper', (t) => t + `// pass ${++calls}\n`)], config: { formatters: { typescript: 'flipper' } } });
  const first = await engine.format({ path: 'a.ts', text: 'x;\n' });
  assert.equal(first.unstable, undefined);
  const second = await engine.format({ path: 'a.ts', text: first.content });
  assert.equal(second.unstable, true);
  assert.match(second.line, /not idempotent/);
});

test('a formatter that does not answer within timeoutMs gives a timeout outcome', async () => {
  const engine = createEngine({ formatters: [brokenAdapter('sleeper', () => new Promise(() => {}))], config: { formatters: { typescript: 'sleeper' }, timeoutMs: 50 } });
  const outcome = await engine.format({ path: 'a.ts', text: 'x;\n' });
  assert.equal(outcome.status, 'timeout');
  assert.equal(outcome.line, 'formatter timed out (sleeper) after 50 ms: a.ts');
});

test('scope edit: Prettier formats only the edited range of TypeScript and says when it formats Markdown whole', async () => {
  const engine = createEngine({ formatters: [prettierFormatter()], projectFiles: { '.prettierrc': '{}' }, config: { scope: 'edit' } });
  const prior = 'const   untouched   =   1;\n\nfunction f() {\n  return 1;\n}\n';
  const receipt = await engine.afterEdit({ path: 'a.ts', prior, input: { oldText: '  return 1;', newText: '  return {a:1};' } });
  assert.equal(receipt.content, 'const   untouched   =   1;\n\nfunction f() {\n  return { a: 1 };\n}\n');
  assert.equal(receipt.scopeFallback, undefined);
  const md = await engine.afterEdit({ path: 'a.md', prior: '#   Title\n\ntext\n', input: { oldText: 'text', newText: '*  item' } });
  assert.match(md.scopeFallback ?? '', /cannot format a range of markdown/);
  assert.equal(md.content, '# Title\n\n- item\n');
});

test("line endings are the formatter's own (Biome: lf by default, its lineEnding when set); the BOM survives", async () => {
  const text = '\uFEFFconst a={b:1}\r\nconst c=2\r\n';
  const lf = createEngine({ formatters: builtins, projectFiles: { 'biome.json': '{}' } });
  assert.equal((await lf.format({ path: 'a.ts', text })).content, '\uFEFFconst a = { b: 1 };\nconst c = 2;\n');
  const crlf = createEngine({ formatters: builtins, projectFiles: { 'biome.json': '{ "formatter": { "lineEnding": "crlf" } }' } });
  assert.equal((await crlf.format({ path: 'a.ts', text })).content, '\uFEFFconst a = { b: 1 };\r\nconst c = 2;\r\n');
  // Prettier's endOfLine: auto keeps the first ending it finds.
  const auto = createEngine({ formatters: builtins, projectFiles: { '.prettierrc': '{ "endOfLine": "auto" }' } });
  assert.equal((await auto.format({ path: 'a.ts', text: 'const a={b:1}\nconst c=2\r\n' })).content, 'const a = { b: 1 };\r\nconst c = 2;\r\n');
});

test('a broken or rejected config gives a failed receipt naming file, position and message; the file stays as written', async () => {
  const text = 'const a={b:1}\n';
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ 'biome.json': '{"formatter":{"indentStyle":"space",}}' }, /^invalid project config: biome\.json:1:37: Expected a property but instead found '\}'\.$/],
    [{ 'biome.json': '{"formatter":{"indentWidth":"4"}}' }, /^invalid project config: biome\.json:1:29: indentWidth has an incorrect type, expected a number, but received a string\.$/],
    [{ 'biome.json': '{"formatter":{"foo":1}}' }, /^invalid project config: biome\.json:1:15: Found an unknown key `foo`\.$/],
    [{ '.prettierrc': '{"tabWidth": "4"}' }, /^invalid project config: \.prettierrc:1:2: Invalid tabWidth value\. Expected an integer, but received "4"\.$/],
    [{ '.prettierrc.json': '{"trailingComma": "always"}' }, /^invalid project config: \.prettierrc\.json:1:2: Invalid trailingComma value\. Expected "all", "es5" or "none", but received "always"\.$/],
    [{ '.prettierrc.json': '{"semi": false,}' }, /^invalid project config: \.prettierrc\.json:1:16: not valid JSON/],
    [{ '.prettierrc': '{}', 'src/package.json': '{"name": "x",}' }, /^invalid project config: src\/package\.json:1:\d+: .*Prettier skips an unparsable package\.json silently; formatbox refuses/],
  ];
  for (const [projectFiles, reason] of cases) {
    const engine = createEngine({ formatters: builtins, projectFiles });
    const outcome = await engine.format({ path: 'src/a.ts', text });
    assert.equal(outcome.status, 'failed', JSON.stringify(projectFiles));
    assert.match(outcome.reason ?? '', reason);
    assert.equal(outcome.content, text);
  }
  // Prettier warns about and ignores an unknown key: formatted.
  const unknown = createEngine({ formatters: builtins, projectFiles: { '.prettierrc': '{"foo": 1, "semi": false}' } });
  assert.equal((await unknown.format({ path: 'a.ts', text })).content, 'const a = { b: 1 }\n');
});
