// The universal entry in real headless Chromium, on a page and in a module Web Worker: every built-in
// formatter loads its wasm by URL over HTTP, and every receipt is byte-identical to Node's for the
// same cases (test/runtimes/cases.ts). Debian's chromium, driven by playwright-core.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { BUILTIN_WASM, resolvePackageFile } from '../../src/node/builtins.js';
import { BUILTIN_WASM_FILES } from '../../src/formatters/builtins.js';
import { BIOME_VERSION } from '../../src/formatters/biome/adapter.js';
import { CASES } from './cases.js';
import { nodeReceipts } from './hosts.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) || process.env.CI ? false : `no Chromium at ${CHROMIUM} (.ci/run installs Debian's chromium)`;
if (skip) console.log(`# skipping the Chromium runs: ${skip}`);

let server: Server | undefined;
let browser: Browser | undefined;
let origin = '';
let nodeResults: unknown[] = [];

before(async () => {
  if (skip) return;
  // The same module files Node loads, published under their own names, as a site would copy them.
  const files = new Map<string, { body: Buffer; type: string }>();
  for (const [name, file] of Object.entries(BUILTIN_WASM_FILES)) {
    files.set(`/wasm/${file}`, { body: readFileSync(resolvePackageFile(BUILTIN_WASM[name]!)), type: 'application/wasm' });
  }
  const bundle = await build({
    entryPoints: ['test/runtimes/browser-entry.ts'],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  const js = Buffer.from(bundle.outputFiles[0]!.contents);
  files.set('/formatbox-cases.js', { body: js, type: 'text/javascript' });
  files.set('/', { body: Buffer.from('<!doctype html><meta charset="utf-8"><script type="module" src="/formatbox-cases.js"></script>'), type: 'text/html' });
  server = createServer((request, response) => {
    const file = files.get(new URL(request.url ?? '/', 'http://x').pathname);
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': file.type }).end(file.body);
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  nodeResults = await nodeReceipts();
});

after(async () => {
  await browser?.close();
  await new Promise((done) => (server ? server.close(done) : done(undefined)));
});

test('Node: the shared cases give the receipts the other runtimes must match', { skip }, () => {
  const byName = Object.fromEntries((nodeResults as Array<{ name: string; receipt: { status: string } }>).map((r) => [r.name, r.receipt.status]));
  assert.equal(Object.keys(byName).length, CASES.length);
  assert.equal(byName['biome: syntax error is a failed receipt, the edit stands'], 'failed');
  assert.equal(byName['rust: skipped with the reason outside the Node sandbox'], 'skipped');
  for (const [name, status] of Object.entries(byName)) {
    if (!name.includes('syntax error') && !name.startsWith('rust:')) assert.equal(status, 'formatted', name);
  }
});

test('Chromium page: every formatter loads by URL and every receipt equals Node\'s', { skip, timeout: 240_000 }, async () => {
  const page = await browser!.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => typeof (globalThis as { runFormatboxCases?: unknown }).runFormatboxCases === 'function');
  const results = await page.evaluate(async (base) => (globalThis as unknown as { runFormatboxCases(b: string): Promise<unknown[]> }).runFormatboxCases(base), `${origin}/wasm/`);
  assert.deepEqual(errors, []);
  assert.deepEqual(results, nodeResults);
  await page.close();
});

test('Chromium module Web Worker: the same receipts', { skip, timeout: 240_000 }, async () => {
  const page = await browser!.newPage();
  await page.goto(`${origin}/`);
  const reply = await page.evaluate(async (base) => {
    const worker = new Worker('/formatbox-cases.js', { type: 'module' });
    return await new Promise<{ ok: boolean; results?: unknown[]; error?: string }>((resolve) => {
      worker.onmessage = (event) => resolve(event.data);
      worker.onerror = (event) => resolve({ ok: false, error: event.message });
      worker.postMessage(base);
    });
  }, `${origin}/wasm/`);
  assert.ok(reply.ok, reply.error);
  assert.deepEqual(reply.results, nodeResults);
  await page.close();
});

test('Chromium page: another module at Biome\'s URL is a WASM_LOAD_FAILED naming the file and the build it must be', { skip, timeout: 120_000 }, async () => {
  const page = await browser!.newPage();
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => typeof (globalThis as { runWrongModule?: unknown }).runWrongModule === 'function');
  const result = (await page.evaluate(async (base) => (globalThis as unknown as { runWrongModule(b: string): Promise<unknown> }).runWrongModule(base), `${origin}/wasm/`)) as { status: string; reason: string; check: { ok: boolean; problems: Array<{ formatter: string; wasm: string; problem: string }> }; thrown: unknown };
  assert.equal(result.status, 'failed');
  assert.doesNotMatch(result.reason, /__wbindgen_start/);
  // Streamed (served as application/wasm): no size is seen before the compile, so the export names decide.
  const expected = new RegExp(`the Biome wasm \\(biome_wasm_bg\\.wasm\\) is not @biomejs/wasm-web ${BIOME_VERSION.replaceAll('.', '\\.')}: its exports differ`);
  assert.match(result.reason, expected);
  assert.equal(result.check.ok, false);
  assert.deepEqual(result.check.problems.map((p) => [p.formatter, p.wasm]), [['biome', 'biome_wasm_bg.wasm']]);
  assert.match(result.check.problems[0]!.problem, expected);
  assert.deepEqual(result.thrown, { code: 'WASM_LOAD_FAILED', wasm: 'biome_wasm_bg.wasm' });
  await page.close();
});
