// A .wasm dprint plugin inside the repository, listed in its dprint.json: run in untrusted mode
// through the dprint plugin ABI in the formatter worker, size- and memory-capped, stopped on time,
// named by path, sha256 and size in receipts and doctor; the user config may pin its hash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../../src/node/index.js';
import { createEngine } from '../../src/engine/engine.js';
import { createBuiltinAdapters, resolvePackageFile } from '../../src/node/builtins.js';

const JSON_PLUGIN = resolvePackageFile('@dprint/json/plugin.wasm');
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

function project(dprint: object, extra: (root: string) => void = () => {}): string {
  const root = mkdtempSync(join(tmpdir(), 'formatbox-dprint-local-'));
  mkdirSync(join(root, 'tools'));
  // Named so that it is none of the plugins formatbox ships: it runs as the repository's own file.
  copyFileSync(JSON_PLUGIN, join(root, 'tools', 'fmt-plugin.wasm'));
  writeFileSync(join(root, 'dprint.json'), JSON.stringify(dprint));
  extra(root);
  return root;
}

test('a local dprint plugin formats the files it claims; the receipt and doctor name it by path, sha256 and size', async () => {
  const root = project({ indentWidth: 3, json: { trailingCommas: 'never' }, plugins: ['./tools/fmt-plugin.wasm'] });
  const rt = createRuntime({ root });
  try {
    const content = '{"a":1,"b":[1,2,3]}\n';
    const receipt = await rt.write({ path: 'data/x.json', content });
    const hash = sha(join(root, 'tools/fmt-plugin.wasm'));
    assert.equal(receipt.status, 'formatted', receipt.line);
    assert.deepEqual(receipt.formatter, { name: 'dprint:tools/fmt-plugin.wasm', version: `sha256:${hash.slice(0, 12)} ${readFileSync(JSON_PLUGIN).length} bytes`, via: 'wasm' });
    // The same plugin bytes, shipped, with the same dprint.json: the same output.
    const shipped = createEngine({ formatters: createBuiltinAdapters(), projectFiles: { 'dprint.json': JSON.stringify({ indentWidth: 3, json: { trailingCommas: 'never' }, plugins: ['json'] }) } });
    assert.equal(receipt.content, (await shipped.format({ path: 'data/x.json', text: content })).content);
    const doctor = await rt.doctor();
    const entry = doctor.wasm.find((m) => m.kind === 'dprint-plugin');
    assert.equal(entry?.path, 'tools/fmt-plugin.wasm');
    assert.equal(entry?.sha256, hash);
    assert.match(entry?.plugin ?? '', /^dprint-plugin-json \d+\.\d+\.\d+ \(\.json \.jsonc/);
  } finally {
    await rt.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test('hostile or refused local plugins: a start function that never ends, a wrong pin, too large, outside the root', async () => {
  const root = project(
    { plugins: ['./tools/spin.wasm', './tools/fmt-plugin.wasm', './tools/huge.wasm', './tools/outside.wasm', '../escape.wasm', 'https://example.com/p.wasm'] },
    (dir) => {
      copyFileSync(new URL('../../wasm/test/wasi/dprint-start-loop.wasm', import.meta.url), join(dir, 'tools', 'spin.wasm'));
      writeFileSync(join(dir, 'tools', 'huge.wasm'), Buffer.alloc(33 * 1024 * 1024));
      symlinkSync('/etc/passwd', join(dir, 'tools', 'outside.wasm'));
    },
  );
  const rt = createRuntime({ root, limits: { timeoutMs: 2000 }, config: { wasmPins: { 'tools/fmt-plugin.wasm': 'f'.repeat(64) } } });
  try {
    const started = performance.now();
    const doctor = await rt.doctor();
    assert.ok(performance.now() - started < 20_000);
    const byPath = Object.fromEntries(doctor.wasm.map((m) => [m.path, m]));
    assert.match(byPath['tools/spin.wasm']?.refused ?? '', /did not answer within 2000 ms/);
    assert.match(byPath['tools/fmt-plugin.wasm']?.refused ?? '', /pins sha256 ffffffffffff/);
    assert.match(byPath['tools/huge.wasm']?.refused ?? '', /over the 33554432-byte limit/);
    assert.match(byPath['tools/outside.wasm']?.refused ?? '', /outside the project root/);
    assert.ok(doctor.ignored.some((i) => /escape\.wasm/.test(i.item) && /not a \.wasm file inside the project/.test(i.reason)));
    assert.ok(doctor.ignored.some((i) => /example\.com/.test(i.item) && /never downloaded/.test(i.reason)));
    // None of them formats anything: a JSON file is not claimed by any plugin.
    const receipt = await rt.write({ path: 'x.json', content: '{"a":1}\n' });
    assert.equal(receipt.status, 'skipped', receipt.line);
  } finally {
    await rt.close();
    rmSync(root, { recursive: true, force: true });
  }
});
