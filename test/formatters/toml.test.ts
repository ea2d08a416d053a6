// Unit tests for the TOML adapter (dprint-plugin-toml through @dprint/formatter), on real TOML:
// CPython's tomllib test corpus (valid and invalid documents), pyproject.toml files and rustup's manifest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { createFromWasmModule } from '@dprint/formatter';
import { dprintTomlConfig, tomlFormatter } from '../../src/formatters/toml/adapter.js';
import type { AdapterRequest, AdapterResult } from '../../src/core/types.js';

const WASM = 'node_modules/@dprint/toml/plugin.wasm';
const toml = tomlFormatter({ wasm: async () => readFileSync(WASM) });

function request(text: string, settings: Record<string, unknown> = {}, path = 'Cargo.toml'): AdapterRequest {
  return { path, language: 'toml', text, settings };
}

function okText(result: AdapterResult): string {
  assert.equal(result.kind, 'ok', JSON.stringify(result));
  return (result as { text: string }).text;
}

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]));
}

/** CPython's tomllib tests (in any Python on the machine that ships its test package). */
const TOMLLIB_DATA = [
  '/usr/lib/python3.11/test/test_tomllib/data',
  ...(existsSync('/root/.pyenv/versions') ? readdirSync('/root/.pyenv/versions').sort().map((v) => `/root/.pyenv/versions/${v}/lib/python${v.split('.').slice(0, 2).join('.')}/test/test_tomllib/data`) : []),
].find((dir) => existsSync(`${dir}/valid`));

const REAL_FILES = [
  '/usr/lib/google-cloud-sdk/platform/gsutil/third_party/urllib3/pyproject.toml',
  '/usr/lib/node_modules/npm/node_modules/node-gyp/gyp/pyproject.toml',
  '/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/multirust-channel-manifest.toml',
].filter((file) => existsSync(file));

test('info() reports the real formatter: dprint-plugin-toml and the version the plugin states', async () => {
  const installed = JSON.parse(readFileSync('node_modules/@dprint/toml/package.json', 'utf8')).version;
  assert.deepEqual(await toml.info(), { name: 'dprint-plugin-toml', version: installed, via: 'wasm' });
  assert.equal(toml.name, 'toml');
  assert.equal(toml.supportsRange, false);
});

test('formats TOML', async () => {
  assert.equal(
    okText(await toml.format(request('[package]\nname="x"\nversion   =  "0.1.0"\n[dependencies]\nserde={version="1",features=["derive"]}\n'))),
    '[package]\nname = "x"\nversion = "0.1.0"\n[dependencies]\nserde = { version = "1", features = ["derive"] }\n',
  );
});

test('keeps the meaning of every valid tomllib document, and is idempotent', { skip: TOMLLIB_DATA ? false : 'no tomllib test corpus' }, async () => {
  const files = walk(`${TOMLLIB_DATA}/valid`).filter((f) => f.endsWith('.toml'));
  assert.ok(files.length >= 10);
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const once = okText(await toml.format(request(text)));
    assert.deepEqual(parse(once), parse(text), file);
    assert.equal(okText(await toml.format(request(once))), once, file);
  }
});

test('keeps the meaning of real TOML files (pyproject.toml, rustup manifest) and is idempotent', async () => {
  assert.ok(REAL_FILES.length >= 1, 'no real TOML files found');
  for (const file of REAL_FILES) {
    const text = readFileSync(file, 'utf8');
    const once = okText(await toml.format(request(text, {}, 'pyproject.toml')));
    assert.deepEqual(parse(once), parse(text), file);
    assert.ok(okText(await toml.format(request(once))) === once, `${file} is not idempotent`);
  }
});

test('syntax errors are error values with line:column', { skip: TOMLLIB_DATA ? false : 'no tomllib test corpus' }, async () => {
  // The documents of the tomllib corpus that are malformed at the syntax level (not only in meaning,
  // like a key defined twice, which a formatter keeps as written).
  const syntaxErrors = [
    'array-missing-comma.toml',
    'array/unclosed-empty.toml',
    'inline-table-missing-comma.toml',
    'inline-table/unclosed-empty.toml',
    'keys-and-vals/no-value.toml',
    'missing-closing-square-bracket.toml',
    'missing-closing-double-square-bracket.toml',
    'unclosed-multiline-string.toml',
    'unclosed-string.toml',
  ];
  for (const name of syntaxErrors) {
    const text = readFileSync(`${TOMLLIB_DATA}/invalid/${name}`, 'utf8');
    assert.throws(() => parse(text), Error, `${name} is invalid for smol-toml too`);
    const result = await toml.format(request(text));
    assert.equal(result.kind, 'error', name);
    assert.match((result as { message: string }).message, /^\d+:\d+: \S/, name);
  }
  const located = await toml.format(request('a = 1\nb = = 2\n'));
  assert.deepEqual(located, { kind: 'error', message: '2:5: expected a value' });
});

test('dprint options are honoured: indentWidth (global) and a plugin option', async () => {
  const text = '[a]\nb = [\n1,\n2,\n]\nc   =   3\n';
  assert.equal(okText(await toml.format(request(text))), '[a]\nb = [\n  1,\n  2,\n]\nc = 3\n');
  assert.equal(
    okText(await toml.format(request(text, { indentWidth: 4, spaceSurroundingEquals: false }))),
    '[a]\nb=[\n    1,\n    2,\n]\nc=3\n',
  );
  // dprint.json shape: global keys plus a `toml` section.
  assert.equal(okText(await toml.format(request(text, { indentWidth: 4, toml: { useTabs: true } }))), '[a]\nb = [\n\t1,\n\t2,\n]\nc = 3\n');
});

test('unknown keys are dropped, newLineKind is forced to lf, a bad value is an error value', async () => {
  assert.deepEqual(dprintTomlConfig({ lineWidth: 80, bogus: 1, newLineKind: 'crlf', toml: { sortKeys: true } }), {
    global: { lineWidth: 80, newLineKind: 'lf' },
    plugin: { bogus: 1, sortKeys: true, newLineKind: 'lf' },
  });
  assert.equal(okText(await toml.format(request('a=1\nb=2\n', { bogus: 1, newLineKind: 'crlf' }))), 'a = 1\nb = 2\n');
  const bad = await toml.format(request('a=1\n', { indentWidth: 'wide' }));
  assert.equal(bad.kind, 'error');
  assert.match((bad as { message: string }).message, /^invalid toml settings: indentWidth/);
  // A good configuration afterwards works again.
  assert.equal(okText(await toml.format(request('a=1\n'))), 'a = 1\n');
});

test("dprint's Cargo conventions apply to Cargo.toml only (its default), and can be turned off", async () => {
  const text = '[package]\nversion = "1.0.0"\nname = "x"\n';
  assert.equal(okText(await toml.format(request(text, {}, 'crates/x/Cargo.toml'))), '[package]\nname = "x"\nversion = "1.0.0"\n');
  assert.equal(okText(await toml.format(request(text, {}, 'config/other.toml'))), text);
  assert.equal(okText(await toml.format(request(text, { 'cargo.applyConventions': false }, 'Cargo.toml'))), text);
});

test('why supportsRange is false: the plugin formats outside a requested byte range', async () => {
  const formatter = createFromWasmModule(await WebAssembly.compile(readFileSync(WASM)));
  formatter.setConfig({}, {});
  const text = 'a   =  1\n[z]\nq=   2\n';
  const start = new TextEncoder().encode(text.slice(0, text.indexOf('[z]'))).length;
  const ranged = formatter.formatText({ filePath: 'x.toml', fileText: text, bytesRange: [start, new TextEncoder().encode(text).length] });
  assert.ok(ranged.startsWith('a = 1\n'), 'the line before the range was reformatted too');
});
