// The universal engine in Deno (npm's `deno` binary), with read access to the wasm directory only:
// every built-in formatter, the shared cases of test/runtimes/cases.ts, receipts equal to Node's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILTIN_WASM, resolvePackageFile } from '../../src/node/builtins.js';
import { BUILTIN_WASM_FILES } from '../../src/formatters/builtins.js';
import { bundleForHost, nodeReceipts, resultsIn } from './hosts.js';

const DENO = 'node_modules/.bin/deno';
const skip = existsSync(DENO) || process.env['CI'] ? false : 'deno is not installed (npm ci installs it)';
if (skip) console.log(`# skipping the Deno run: ${skip}`);

const ENTRY = `
import * as formatbox from './src/index.ts';
import { runCases } from './test/runtimes/cases.ts';
const dir = new URL('./wasm/', import.meta.url);
const wasm = Object.fromEntries(Object.entries(formatbox.BUILTIN_WASM_FILES).map(([name, file]) => [name, () => Deno.readFile(new URL(file, dir))]));
const results = await runCases(formatbox, () => formatbox.createFormatters(wasm));
console.log('RESULTS ' + JSON.stringify(results));
`;

test('Deno: the whole engine with every built-in formatter gives Node\'s receipts', { skip, timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'formatbox-deno-'));
  try {
    await bundleForHost(ENTRY, join(dir, 'main.js'), { conditions: ['browser', 'deno'] });
    mkdirSync(join(dir, 'wasm'));
    for (const [name, file] of Object.entries(BUILTIN_WASM_FILES)) copyFileSync(resolvePackageFile(BUILTIN_WASM[name]!), join(dir, 'wasm', file));
    writeFileSync(join(dir, 'deno.json'), '{}');
    const run = spawnSync(join(process.cwd(), DENO), ['run', '--no-config', '--no-prompt', `--allow-read=${join(dir, 'wasm')}`, join(dir, 'main.js')], {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, DENO_DIR: join(dir, '.deno'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
    });
    const output = `${run.stdout}\n${run.stderr}`;
    assert.equal(run.status, 0, output.slice(-3000));
    const inDeno = resultsIn<unknown[]>(output);
    const inNode = await nodeReceipts();
    assert.deepEqual(inDeno, inNode);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
