// The symlink race (issue 9, class 3): a worker thread flips the project's directories between real
// directories and symlinks to look-alike directories outside the root, as fast as it can, while the
// runtime does edits, writes, patches, afterWrites and formats on files in them. The files outside
// hold a secret line and share the inside files' other lines (so every edit would apply to either).
// Asserted: nothing outside the root is ever read (the secret is in no receipt, content, note or
// error) and nothing is written there (the outside tree is byte-identical, no new names), and
// every operation ends in a receipt or a typed error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createRuntime } from '../../src/node/index.js';
import { isFormatboxError } from '../../src/core/errors.js';

const OPERATIONS = Number(process.env.FORMATBOX_RACE_OPS ?? (process.env.FORMATBOX_LONG ? 50_000 : 10_000));
const CONCURRENCY = 8;
const SECRET = `SECRET-${Math.random().toString(36).slice(2)}-OUTSIDE`;
const DIRS = ['a', 'b', 'c/d'];
const FILES = ['x.txt', 'y.md', 'z.json', 'w.ts'];

const COMMON: Record<string, string> = {
  'x.txt': 'common line\nsecond\n',
  'y.md': '# Title\n\ncommon line\n',
  'z.json': '{"common": "line", "n": [1,2,3]}\n',
  'w.ts': 'const common = "line";\nexport {common}\n',
};

/** Flips each directory: real → (moved away) → symlink out of root → (removed) → real, forever. */
const FLIPPER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const { root, outside, dirs, stop } = workerData;
const flag = new Int32Array(stop);
let flips = 0;
const real = (d) => path.join(root, path.dirname(d), '.real-' + path.basename(d));
function attempt(fn) { try { fn(); } catch {} }
function makeReal(d) {
  const p = path.join(root, d);
  attempt(() => { if (fs.lstatSync(p).isSymbolicLink()) fs.unlinkSync(p); });
  // A write may have created a fresh directory at the name meanwhile: drop it, put the real one back.
  attempt(() => { if (fs.lstatSync(real(d)).isDirectory()) { attempt(() => fs.rmSync(p, { recursive: true, force: true })); fs.renameSync(real(d), p); } });
}
while (Atomics.load(flag, 0) === 0) {
  for (const d of dirs) {
    const p = path.join(root, d);
    attempt(() => fs.renameSync(p, real(d)));
    attempt(() => { fs.rmSync(p, { recursive: true, force: true }); fs.symlinkSync(path.join(outside, d), p); });
    makeReal(d);
    flips++;
  }
}
for (const d of dirs) makeReal(d);
parentPort.postMessage(flips);
`;

function treeDigest(dir: string): string {
  const hash = createHash('sha256');
  const walk = (path: string, rel: string) => {
    for (const name of readdirSync(path).sort()) {
      const full = join(path, name);
      const stats = statSync(full);
      hash.update(`${rel}/${name}:${stats.mode}:`);
      if (stats.isDirectory()) walk(full, `${rel}/${name}`);
      else hash.update(readFileSync(full));
    }
  };
  walk(dir, '');
  return hash.digest('hex');
}

test(`symlink race: ${OPERATIONS} operations while a thread flips directories to symlinks out of root; nothing outside is read or written`, { timeout: 600_000 }, async () => {
  const base = mkdtempSync(join(tmpdir(), 'fb-race-'));
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  for (const dir of DIRS) {
    mkdirSync(join(root, dir), { recursive: true });
    mkdirSync(join(outside, dir), { recursive: true });
    for (const file of FILES) {
      writeFileSync(join(root, dir, file), COMMON[file]!);
      writeFileSync(join(outside, dir, file), `${COMMON[file]!}${file.endsWith('.json') ? '' : `${SECRET}\n`}`);
    }
    writeFileSync(join(outside, dir, 'secret.json'), `{"secret": "${SECRET}"}\n`);
  }
  writeFileSync(join(outside, 'z.json'), `{"secret": "${SECRET}"}\n`);
  // Declared formatters (Prettier for .md/.json/.ts): formats run, not only file operations.
  writeFileSync(join(root, '.prettierrc.json'), '{}\n');
  const outsideBefore = treeDigest(outside);

  const runtime = createRuntime({ root });
  await runtime.write({ path: 'warm.json', content: '{}' });
  const stop = new SharedArrayBuffer(4);
  const worker = new Worker(FLIPPER, { eval: true, workerData: { root, outside, dirs: DIRS, stop } });
  const flipsDone = new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });

  const outcomes = new Map<string, number>();
  const leaks: string[] = [];
  const count = (key: string) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  const inspect = (what: string, text: string) => {
    if (text.includes(SECRET)) leaks.push(`${what}: ${text.slice(0, 300)}`);
  };

  let done = 0;
  let index = 0;
  const started = performance.now();
  const one = async (i: number): Promise<void> => {
    const dir = DIRS[i % DIRS.length]!;
    const file = FILES[Math.floor(i / DIRS.length) % FILES.length]!;
    const path = `${dir}/${file}`;
    const kind = i % 6;
    try {
      let receipt: unknown;
      if (kind === 0) receipt = await runtime.edit({ path, oldText: 'common', newText: 'common' });
      else if (kind === 1) receipt = await runtime.write({ path, content: COMMON[file]! });
      else if (kind === 2) receipt = await runtime.applyPatch({ patch: `*** Begin Patch\n*** Update File: ${path}\n@@\n-${COMMON[file]!.split('\n')[0]}\n+${COMMON[file]!.split('\n')[0]}\n*** End Patch\n` });
      else if (kind === 3) receipt = await runtime.format({ path });
      else if (kind === 4) receipt = await runtime.afterWrite({ path, input: { content: COMMON[file]! } });
      else receipt = await runtime.write({ path: `${dir}/new-${i % 7}.txt`, content: `new ${i}\n` });
      inspect(`${path} receipt`, JSON.stringify(receipt));
      count(`ok ${(receipt as { status?: string }).status ?? "patch"}${(receipt as { reason?: string }).reason ? ` (${(receipt as { reason?: string }).reason})` : ""}`);
    } catch (error) {
      inspect(`${path} error`, `${(error as Error).message} ${JSON.stringify((error as { details?: unknown }).details ?? {})}`);
      if (process.env.FORMATBOX_RACE_DEBUG && isFormatboxError(error)) console.log(error.code, error.message);
      count(isFormatboxError(error) ? `error ${error.code}` : `untyped ${(error as Error).message.slice(0, 80)}`);
    }
    done++;
  };
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (index < OPERATIONS) await one(index++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  Atomics.store(new Int32Array(stop), 0, 1);
  const flips = await flipsDone;
  await worker.terminate();
  await runtime.close();

  const summary = [...outcomes.entries()].sort().map(([k, v]) => `${k} ${v}`).join(', ');
  console.log(`  race: ${done} operations in ${seconds.toFixed(1)} s against ${flips} directory flips; ${summary}`);
  assert.equal(done, OPERATIONS);
  assert.deepEqual(leaks.slice(0, 5), [], 'content from outside the root reached a receipt or an error');
  assert.equal(treeDigest(outside), outsideBefore, 'the tree outside the root changed');
  assert.deepEqual([...outcomes.keys()].filter((k) => k.startsWith('untyped')), [], 'every failure is a typed error');
  assert.ok(flips > 100, `the flipper made only ${flips} flips`);
  assert.ok((outcomes.get('error PATH_REFUSED') ?? 0) > 0, 'no operation met a swapped directory (the race was not exercised)');
  rmSync(base, { recursive: true, force: true });
});
