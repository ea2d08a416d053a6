// The hostile suite's module-loader spy must be able to fail: it sees ESM imports, CommonJS
// requires and imports inside worker threads, from any directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

test('the spy logs ESM, CommonJS and worker-thread module loads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'formatbox-spy-'));
  try {
    writeFileSync(join(dir, 'esm.mjs'), 'export const a = 1;\n');
    writeFileSync(join(dir, 'cjs.cjs'), 'module.exports = 2;\n');
    writeFileSync(join(dir, 'in-worker.mjs'), 'export const b = 3;\n');
    writeFileSync(
      join(dir, 'main.mjs'),
      [
        "import { createRequire } from 'node:module';",
        "import { Worker } from 'node:worker_threads';",
        "await import('./esm.mjs');",
        "createRequire(import.meta.url)('./cjs.cjs');",
        `const worker = new Worker(${JSON.stringify(`import(${JSON.stringify(pathToFileURL(join(dir, 'in-worker.mjs')).href)})`)}, { eval: true });`,
        "await new Promise((resolve) => worker.on('exit', resolve));",
      ].join('\n'),
    );
    const log = join(dir, 'spy.log');
    const run = spawnSync(process.execPath, ['--import', join(REPO, 'test/hostile/spy.mjs'), join(dir, 'main.mjs')], { env: { ...process.env, FORMATBOX_SPY_LOG: log }, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const lines = readFileSync(log, 'utf8').split('\n');
    for (const name of ['esm.mjs', 'cjs.cjs', 'in-worker.mjs']) {
      const url = pathToFileURL(join(dir, name)).href;
      assert.ok(lines.some((line) => line.endsWith(` ${url}`)), `${name} not in the log:\n${lines.join('\n')}`);
    }
    assert.ok(lines.some((line) => /^thread \d+$/.test(line)), 'the worker thread was not spied on');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
