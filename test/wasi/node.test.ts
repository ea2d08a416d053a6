// `{wasi}` modules from the user config, run by the Node runtime in its formatter worker: real
// modules (wasm/test/wasi), real worker threads, real timeouts. Hostile modules end in clear receipts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../../src/node/index.js';
import type { FormatterChoice } from '../../src/core/types.js';

const modules = new URL('../../wasm/test/wasi/', import.meta.url);
const root = mkdtempSync(join(tmpdir(), 'formatbox-wasi-'));
mkdirSync(join(root, 'tools'));
for (const name of ['probe', 'exit', 'loop', 'grow', 'flood', 'missing-import', 'alloc']) copyFileSync(new URL(`${name}.wasm`, modules), join(root, 'tools', `${name}.wasm`));
writeFileSync(join(root, 'secret.txt'), 'TOP-SECRET');
symlinkSync('/etc/passwd', join(root, 'tools', 'outside.wasm'));
const sha = (file: string) => createHash('sha256').update(readFileSync(join(root, file))).digest('hex');

function runtimeWith(formatters: Record<string, FormatterChoice>, timeoutMs = 3000) {
  return createRuntime({ root, config: { formatters, languages: { text: ['txt'] } }, limits: { timeoutMs } });
}

test.after(() => rmSync(root, { recursive: true, force: true }));

test('a {wasi} module formats through the worker; the receipt names it by path, sha256 and size', async () => {
  const rt = runtimeWith({ text: { wasi: 'tools/probe.wasm', args: ['--x'], env: { STYLE: 'k&r' } } });
  try {
    const receipt = await rt.write({ path: 'notes.txt', content: 'hello\n' });
    assert.equal(receipt.status, 'formatted', receipt.line);
    const hash = sha('tools/probe.wasm');
    assert.deepEqual(receipt.formatter, { name: 'wasi:tools/probe.wasm', version: `sha256:${hash.slice(0, 12)} ${readFileSync(join(root, 'tools/probe.wasm')).length} bytes`, via: 'wasi' });
    assert.match(receipt.line, new RegExp(`^formatted \\(wasi:tools/probe\\.wasm sha256:${hash.slice(0, 12)} \\d+ bytes, wasi\\): notes\\.txt$`));
    assert.doesNotMatch(receipt.content, /OPENED|TOP-SECRET/);
    assert.match(receipt.content, /^arg --x$/m);
    assert.deepEqual(receipt.content.match(/^env .*$/gm), ['env STYLE=k&r']);
    assert.equal(readFileSync(join(root, 'notes.txt'), 'utf8'), receipt.content);
  } finally {
    await rt.close();
  }
});

test('hostile modules: loop and unbounded memory.grow time out, flood and odd exits fail, missing imports are refused', async () => {
  const rt = runtimeWith({
    'loop/**': { wasi: 'tools/loop.wasm' },
    'grow/**': { wasi: 'tools/grow.wasm' },
    'flood/**': { wasi: 'tools/flood.wasm' },
    'exit/**': { wasi: 'tools/exit.wasm', args: ['3'] },
    'import/**': { wasi: 'tools/missing-import.wasm' },
    'alloc/**': { wasi: 'tools/alloc.wasm' },
  });
  try {
    for (const dir of ['loop', 'grow', 'flood', 'exit', 'import', 'alloc']) mkdirSync(join(root, dir), { recursive: true });
    const started = performance.now();
    const loop = await rt.write({ path: 'loop/a.txt', content: 'x\n' });
    assert.equal(loop.status, 'timeout', loop.line);
    const grow = await rt.write({ path: 'grow/a.txt', content: 'x\n' });
    assert.equal(grow.status, 'timeout', grow.line);
    assert.ok(performance.now() - started < 15000, 'both stopped near the 3 s limit');
    const flood = await rt.write({ path: 'flood/a.txt', content: 'x\n' });
    assert.equal(flood.status, 'failed');
    assert.match(flood.line, /wrote more than \d+ bytes to stdout and was stopped/);
    const exit = await rt.write({ path: 'exit/a.txt', content: 'x\n' });
    assert.equal(exit.status, 'failed');
    assert.match(exit.line, /, exit 3\): exit\/a\.txt: exiting with 3$/);
    const missing = await rt.write({ path: 'import/a.txt', content: 'x\n' });
    assert.equal(missing.status, 'refused');
    assert.match(missing.line, /imports env\.steal_secrets \(function\)/);
    // The default cap (256 MiB) stops malloc: the module reports it and exits 3.
    const alloc = await rt.write({ path: 'alloc/a.txt', content: 'x\n' });
    assert.equal(alloc.status, 'failed', alloc.line);
    assert.match(alloc.reason ?? '', /exited with code 3/);
    for (const receipt of [loop, grow, flood, exit, missing, alloc]) assert.equal(readFileSync(join(root, receipt.path), 'utf8'), 'x\n');
    // The worker was replaced: a good module still runs.
    const doctor = await rt.doctor();
    assert.ok(doctor.workers.timeouts >= 2);
  } finally {
    await rt.close();
  }
});

test('a pinned hash that differs, a path outside the root, a symlink out and a missing file are refused', async () => {
  const rt = runtimeWith({
    'pinned/**': { wasi: 'tools/probe.wasm', sha256: '0'.repeat(64) },
    'up/**': { wasi: '../x.wasm' },
    'link/**': { wasi: 'tools/outside.wasm' },
    'gone/**': { wasi: 'tools/none.wasm' },
    'ok/**': { wasi: 'tools/probe.wasm', sha256: sha('tools/probe.wasm') },
  });
  try {
    const expect: Record<string, RegExp> = {
      pinned: /has sha256 [0-9a-f]{12}…, the user config pins 000000000000…/,
      up: /it leaves the project root/,
      link: /outside the project root/,
      gone: /tools\/none\.wasm does not exist/,
    };
    for (const [dir, reason] of Object.entries(expect)) {
      mkdirSync(join(root, dir), { recursive: true });
      const receipt = await rt.write({ path: `${dir}/a.txt`, content: 'x\n' });
      assert.equal(receipt.status, 'refused', `${dir}: ${receipt.line}`);
      assert.match(receipt.reason ?? '', reason);
    }
    mkdirSync(join(root, 'ok'), { recursive: true });
    assert.equal((await rt.write({ path: 'ok/a.txt', content: 'x\n' })).status, 'formatted');
    // doctor names every module with its sha256 and size, or why it would not run.
    const doctor = await rt.doctor();
    const byKey = Object.fromEntries(doctor.wasm.map((m) => [m.namedBy, m]));
    assert.equal(byKey['formatters.ok/**']?.sha256, sha('tools/probe.wasm'));
    assert.equal(byKey['formatters.ok/**']?.bytes, readFileSync(join(root, 'tools/probe.wasm')).length);
    assert.match(byKey['formatters.pinned/**']?.refused ?? '', /pins sha256 000000000000/);
    assert.match(byKey['formatters.link/**']?.refused ?? '', /outside the project root/);
  } finally {
    await rt.close();
  }
});
