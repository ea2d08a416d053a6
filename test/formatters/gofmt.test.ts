// Unit tests for the gofmt adapter, against the real @wasm-fmt/gofmt (TinyGo) wasm.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { GOFMT_PACKAGE_VERSION, gofmtFormatter } from '../../src/formatters/gofmt/adapter.js';
import type { AdapterRequest, AdapterResult } from '../../src/core/types.js';

const WASM = 'node_modules/@wasm-fmt/gofmt/gofmt.wasm';
const compiled = WebAssembly.compile(readFileSync(WASM));
const gofmt = gofmtFormatter({ wasm: () => compiled });

function request(text: string, path = 'cmd/main.go'): AdapterRequest {
  return { path, language: 'go', text, settings: {} };
}

function okText(result: AdapterResult): string {
  assert.equal(result.kind, 'ok', JSON.stringify(result));
  return (result as { text: string }).text;
}

const GO_SRC = ['/usr/lib/go/src', '/usr/share/go-1.19/src'].find((dir) => {
  try {
    readFileSync(`${dir}/fmt/print.go`);
    return true;
  } catch {
    return false;
  }
});

/**
 * A Go source with the indentation of its code lines stripped (comments keep theirs: gofmt does not
 * touch comment text). Only for files without raw strings, which may span lines.
 */
function unformat(source: string): string {
  assert.ok(!source.includes('`'), 'raw strings may span lines; pick another file');
  let inBlockComment = false;
  return source
    .split('\n')
    .map((line) => {
      const trimmed = line.trimStart();
      const keep = inBlockComment || trimmed.startsWith('//') || trimmed.startsWith('/*');
      if (trimmed.includes('/*')) inBlockComment = true;
      if (trimmed.includes('*/')) inBlockComment = false;
      return keep ? line : trimmed;
    })
    .join('\n');
}

/** Compares without dumping two 100 KB strings into the test output. */
function assertSameText(actual: string, expected: string, what: string): void {
  if (actual === expected) return;
  const a = actual.split('\n');
  const e = expected.split('\n');
  const line = a.findIndex((text, index) => text !== e[index]);
  assert.fail(`${what}: first difference at line ${line + 1}: ${JSON.stringify(a[line])} vs ${JSON.stringify(e[line])}`);
}

test('info() names gofmt with the installed package version', async () => {
  const installed = JSON.parse(readFileSync('node_modules/@wasm-fmt/gofmt/package.json', 'utf8')).version;
  assert.equal(GOFMT_PACKAGE_VERSION, installed, 'bump GOFMT_PACKAGE_VERSION with the package');
  assert.deepEqual(await gofmt.info(), { name: 'gofmt', version: installed, via: 'wasm' });
  assert.equal(gofmt.supportsRange, false);
});

test('formats Go', async () => {
  const text = 'package main\nimport "fmt"\nfunc main(){fmt.Println("héllo, 世界")\n}\n';
  assert.equal(
    okText(await gofmt.format(request(text))),
    'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("héllo, 世界")\n}\n',
  );
});

test('restores the formatting of real standard-library files and is idempotent', { skip: GO_SRC ? false : 'no Go sources' }, async () => {
  for (const file of ['fmt/print.go', 'strings/builder.go', 'sort/sort.go']) {
    const original = readFileSync(`${GO_SRC}/${file}`, 'utf8');
    const messy = unformat(original);
    assert.notEqual(messy, original);
    const formatted = okText(await gofmt.format(request(messy)));
    assertSameText(formatted, original, file);
    assertSameText(okText(await gofmt.format(request(formatted))), formatted, file);
  }
});

test('a syntax error is an error value with gofmt\'s line:column', async () => {
  const result = await gofmt.format(request('package main\n\nfunc main({\n'));
  assert.equal(result.kind, 'error');
  assert.match((result as { message: string }).message, /^3:11: expected '\)', found '\{'/);
  // The instance still works afterwards.
  assert.equal(okText(await gofmt.format(request('package  main\n'))), 'package main\n');
});

test('gofmt has no options: settings are ignored', async () => {
  const text = 'package main\nfunc f( ){ }\n';
  const plain = okText(await gofmt.format(request(text)));
  const withSettings = okText(await gofmt.format({ ...request(text), settings: { tabWidth: 8, anything: true } }));
  assert.equal(withSettings, plain);
});

test('the leaking instance is recycled after N calls, and output stays right', async () => {
  const recycled = gofmtFormatter({ wasm: () => compiled, recycle: { calls: 3 } });
  const text = 'package main\nfunc f( ){ }\n';
  const expected = 'package main\n\nfunc f() {}\n';
  const instances: number[] = [];
  for (let i = 0; i < 10; i++) {
    assert.equal(okText(await recycled.format(request(text))), expected);
    instances.push(recycled.stats().instances);
  }
  assert.deepEqual(instances, [1, 1, 1, 2, 2, 2, 3, 3, 3, 4]);
});

test('the instance is recycled when its input budget or its memory is spent', { skip: GO_SRC ? false : 'no Go sources' }, async () => {
  const big = readFileSync(`${GO_SRC}/bytes/buffer.go`, 'utf8');
  const expected = okText(await gofmt.format(request(unformat(big))));
  assertSameText(expected, big, 'bytes/buffer.go');

  const byBytes = gofmtFormatter({ wasm: () => compiled, recycle: { inputBytes: big.length * 2 + 1 } });
  for (let i = 0; i < 6; i++) assertSameText(okText(await byBytes.format(request(unformat(big)))), big, 'by bytes');
  assert.equal(byBytes.stats().instances, 2);

  // Without recycling, the TinyGo heap only grows: this is the leak being guarded against.
  const leaky = gofmtFormatter({ wasm: () => compiled, recycle: { memoryBytes: Number.MAX_SAFE_INTEGER } });
  for (let i = 0; i < 12; i++) await leaky.format(request(unformat(big)));
  assert.ok(leaky.stats().memoryBytes > 4 * 1024 * 1024, `memory after 12 calls: ${leaky.stats().memoryBytes}`);
  assert.equal(leaky.stats().instances, 1);

  const memoryBytes = 4 * 1024 * 1024;
  const byMemory = gofmtFormatter({ wasm: () => compiled, recycle: { memoryBytes } });
  for (let i = 0; i < 12; i++) {
    assertSameText(okText(await byMemory.format(request(unformat(big)))), big, 'by memory');
    const { memoryBytes: now } = byMemory.stats();
    assert.ok(now < memoryBytes, `live instance at ${now} bytes`);
  }
  assert.ok(byMemory.stats().instances >= 2, `instances: ${byMemory.stats().instances}`);
});

test('a wasm trap (known on large generated tables) is an error value, and the next call gets a fresh instance', { skip: GO_SRC ? false : 'no Go sources' }, async () => {
  const tables = `${GO_SRC}/vendor/golang.org/x/net/idna/tables10.0.0.go`;
  const adapter = gofmtFormatter({ wasm: () => compiled });
  assert.equal(okText(await adapter.format(request('package  main\n'))), 'package main\n');
  const result = await adapter.format(request(readFileSync(tables, 'utf8')));
  assert.equal(result.kind, 'error');
  assert.match((result as { message: string }).message, /^gofmt wasm trapped \(memory access out of bounds\)/);
  assert.equal(adapter.stats().memoryBytes, 0, 'the trapped instance was dropped');
  assert.equal(okText(await adapter.format(request('package  main\n'))), 'package main\n');
  assert.equal(adapter.stats().instances, 2);
});
