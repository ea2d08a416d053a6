// Loading the shipped wasm: identity checks against the manifest (size + export names), clear errors
// for a wrong file, HTML instead of wasm and file: URLs in Node, compileStreaming for application/wasm,
// a failed load requested at most twice, engine.preload() and engine.check(). Real modules throughout.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compileWasm, createEngine, createFormatters, isFormatboxError, wasmUrls, BUILTIN_WASM_FILES, BUILTIN_WASM_IDENTITY } from '../../src/index.js';
import { lazy } from '../../src/core/wasm.js';
import { BUILTIN_WASM, resolvePackageFile } from '../../src/node/builtins.js';
import { wasmFiles } from '../../src/node/wasm-files.js';

const bytesOf = (name: string) => readFileSync(resolvePackageFile(BUILTIN_WASM[name]!));
let server: Server;
let origin = '';
const requests: string[] = [];

before(async () => {
  server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    requests.push(path);
    const name = Object.entries(BUILTIN_WASM_FILES).find(([, file]) => path === `/wasm/${file}`)?.[0];
    if (path === '/html/gofmt.wasm') return void response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Not here</title>');
    if (!name) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/wasm' }).end(bytesOf(name));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
after(() => new Promise<void>((done) => server.close(() => done())));

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string; details?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isFormatboxError(error), String(error));
    return error;
  }
  assert.fail('expected a rejection');
}

test('the identity table names every built-in module with its size and exports, as the installed package has it', () => {
  assert.deepEqual(Object.keys(BUILTIN_WASM_IDENTITY).sort(), Object.keys(BUILTIN_WASM_FILES).sort());
  for (const [name, identity] of Object.entries(BUILTIN_WASM_IDENTITY)) {
    const bytes = bytesOf(name);
    assert.equal(identity.file, BUILTIN_WASM_FILES[name as keyof typeof BUILTIN_WASM_FILES]);
    assert.equal(identity.bytes, bytes.length, name);
    assert.deepEqual(identity.exports, WebAssembly.Module.exports(new WebAssembly.Module(bytes)).map((e) => e.name), name);
  }
});

test('another module in place of the expected one is a clear WASM_LOAD_FAILED naming both', async () => {
  const toml = bytesOf('toml');
  const sized = await rejection(compileWasm(toml, 'gofmt', BUILTIN_WASM_IDENTITY['gofmt']));
  assert.equal(sized.code, 'WASM_LOAD_FAILED');
  assert.match(sized.message, /@wasm-fmt\/gofmt 0\.7\.3 \(gofmt\.wasm\) should be 272188 bytes, but the bytes is 510627/);
  assert.equal(sized.details?.['wasm'], 'gofmt.wasm');
  // A compiled Module has no size to check: its export names are.
  const compiled = await rejection(compileWasm(new WebAssembly.Module(toml), 'gofmt', BUILTIN_WASM_IDENTITY['gofmt']));
  assert.match(compiled.message, /is not @wasm-fmt\/gofmt 0\.7\.3: its exports differ \(missing _initialize, .*unexpected/);
  // The right module passes.
  assert.ok((await compileWasm(bytesOf('gofmt'), 'gofmt', BUILTIN_WASM_IDENTITY['gofmt'])) instanceof WebAssembly.Module);
});

test('a URL serving HTML, a 404 and a file: URL in Node each say what went wrong', async () => {
  const html = await rejection(compileWasm(new URL(`${origin}/html/gofmt.wasm`), 'gofmt'));
  assert.match(html.message, /served as text\/html\) is not a wasm module/);
  const missing = await rejection(compileWasm(new URL(`${origin}/nowhere.wasm`), 'gofmt'));
  assert.match(missing.message, /HTTP 404/);
  const file = await rejection(compileWasm(pathToFileURL(resolvePackageFile(BUILTIN_WASM['gofmt']!)), 'gofmt'));
  assert.match(file.message, /fetch cannot read file:.*wasmFiles\(\) from 'formatbox\/node'/);
});

test('application/wasm responses compile while streaming', async () => {
  const original = WebAssembly.compileStreaming;
  let streamed = 0;
  WebAssembly.compileStreaming = (source) => {
    streamed++;
    return original(source);
  };
  try {
    const module = await compileWasm(new URL(`${origin}/wasm/gofmt.wasm`), 'gofmt', BUILTIN_WASM_IDENTITY['gofmt']);
    assert.ok(module instanceof WebAssembly.Module);
    assert.equal(streamed, 1);
  } finally {
    WebAssembly.compileStreaming = original;
  }
});

test('a failed load is tried once more, then its error is remembered', async () => {
  let attempts = 0;
  const once = lazy(async () => {
    attempts++;
    throw new Error(`attempt ${attempts}`);
  });
  const messages: string[] = [];
  for (let i = 0; i < 6; i++) messages.push(await once.get().then(() => 'ok', (e: Error) => e.message));
  assert.equal(attempts, 2);
  assert.deepEqual(messages, ['attempt 1', 'attempt 2', 'attempt 2', 'attempt 2', 'attempt 2', 'attempt 2']);

  // Through the engine: six edits with a missing module request it twice, and each receipt says why.
  requests.length = 0;
  const engine = createEngine({ formatters: createFormatters({ gofmt: new URL(`${origin}/gone/gofmt.wasm`) }), projectFiles: { 'go.mod': 'module x\n' } });
  for (let i = 0; i < 6; i++) {
    const outcome = await engine.format({ path: 'a.go', text: 'package a\nvar x=1\n' });
    assert.equal(outcome.status, 'failed');
    assert.match(outcome.reason ?? '', /could not load the gofmt wasm \(gofmt\.wasm\): HTTP 404/);
  }
  assert.equal(requests.filter((r) => r === '/gone/gofmt.wasm').length, 2);
});

test('engine.check() names every missing or mismatched module; preload(languages) loads only those', async () => {
  const bad = createEngine({
    formatters: createFormatters({ gofmt: bytesOf('toml'), toml: new URL(`${origin}/gone/dprint-toml.wasm`), ruff_fmt: new URL(`${origin}/wasm/ruff_fmt_bg.wasm`) }),
  });
  const report = await bad.check();
  assert.equal(report.ok, false);
  assert.deepEqual(
    report.problems.map((p) => [p.formatter, p.wasm]),
    [['gofmt', 'gofmt.wasm'], ['toml', 'dprint-toml.wasm']],
  );
  assert.match(report.problems[1]!.problem, /HTTP 404/);

  requests.length = 0;
  const good = createEngine({ formatters: createFormatters(wasmUrls(`${origin}/wasm/`)) });
  await good.preload(['go', 'toml']);
  assert.deepEqual(requests.sort(), ['/wasm/dprint-toml.wasm', '/wasm/gofmt.wasm']);
  const small = createEngine({ formatters: createFormatters({ gofmt: wasmUrls(`${origin}/wasm/`).gofmt, toml: wasmUrls(`${origin}/wasm/`).toml }) });
  assert.deepEqual(await small.check(), { ok: true, problems: [] });
});

test('wasmUrls explains an empty import.meta.url; wasmFiles() reads a directory in Node', async () => {
  assert.throws(() => wasmUrls(new URL('', import.meta.url).href.slice(0, 0)), /import\.meta is empty|empty import\.meta/);
  assert.throws(() => wasmUrls(undefined as unknown as string), /format: 'esm'/);
  const dir = mkdtempSync(join(tmpdir(), 'formatbox-wasmfiles-'));
  try {
    copyFileSync(resolvePackageFile(BUILTIN_WASM['gofmt']!), join(dir, 'gofmt.wasm'));
    const engine = createEngine({ formatters: createFormatters({ gofmt: wasmFiles(dir).gofmt }), projectFiles: { 'go.mod': 'module x\n' } });
    const outcome = await engine.format({ path: 'a.go', text: 'package a\nvar x=1\n' });
    assert.equal(outcome.content, 'package a\n\nvar x = 1\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the edge profile\'s Python formatter is ruff_fmt alone, and its receipts name that build', async () => {
  const engine = createEngine({ formatters: createFormatters({ ruff_fmt: bytesOf('ruff_fmt') }), projectFiles: { 'ruff.toml': '' } });
  const whole = await engine.format({ path: 'a.py', text: "x = {'a':1}\n" });
  assert.equal(whole.content, 'x = {"a": 1}\n');
  assert.deepEqual(whole.formatter, { name: 'ruff', version: '0.15.20', via: 'wasm' });
  const stub = await engine.format({ path: 'a.pyi', text: 'class A:\n    def f(self) -> int: ...\n\n    def g(self) -> int: ...\n' });
  assert.equal(stub.content, 'class A:\n    def f(self) -> int: ...\n    def g(self) -> int: ...\n');
});
