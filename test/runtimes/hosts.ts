// Node-side helpers for the tests that run formatbox in another host (workerd, Deno, Chromium):
// bundle an entry for the host, read the receipts it prints, and compute Node's receipts to compare.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { build } from 'esbuild';
import * as formatbox from '../../src/index.js';
import { createBuiltinAdapters } from '../../src/node/builtins.js';
import { runCases } from './cases.js';

/** Bundles `contents` (an ES module importing from the repository) into one file for a non-Node host. */
export async function bundleForHost(contents: string, outfile: string, options: { conditions: string[]; external?: string[] }): Promise<void> {
  await build({
    stdin: { contents, resolveDir: process.cwd(), sourcefile: 'host-entry.js', loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['browser', 'module', 'main'],
    conditions: options.conditions,
    ...(options.external ? { external: options.external } : {}),
    outfile,
    logLevel: 'silent',
  });
}

/** Runs `workerd test config.capnp` in `dir`; its stdout and stderr, after asserting it passed. */
export function runWorkerd(dir: string): string {
  const run = spawnSync(join(process.cwd(), 'node_modules/.bin/workerd'), ['test', 'config.capnp'], { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const output = `${run.stdout}\n${run.stderr}`;
  assert.equal(run.status, 0, output.slice(-3000));
  return output;
}

/** The JSON a host printed after `RESULTS ` (workerd prefixes its log lines, so anywhere in a line). */
export function resultsIn<T>(output: string): T {
  const line = output.split('\n').find((l) => l.includes('RESULTS '));
  assert.ok(line, output.slice(-3000));
  return JSON.parse(line.slice(line.indexOf('RESULTS ') + 'RESULTS '.length)) as T;
}

/** The shared cases' receipts in Node, with the built-in adapters reading their wasm from the packages. */
export function nodeReceipts(): Promise<unknown[]> {
  return runCases(formatbox, () => createBuiltinAdapters());
}
