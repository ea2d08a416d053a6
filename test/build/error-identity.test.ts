// One error identity across the package's entries: each entry is its own bundle with its own copy
// of FormatboxError, yet an error thrown by formatbox/node is recognised by `isFormatboxError` and
// `instanceof FormatboxError` from formatbox and formatbox/core, and the other
// way round; and `require('formatbox/node')` loads on the Node versions package.json's `engines`
// admits. The entries are the real bundles build.mjs makes, in a private directory.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const REPO = resolve('.');
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { engines: { node: string } };
const dir = mkdtempSync(join(tmpdir(), 'fb-identity-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const install = join(dir, 'node_modules', 'formatbox');
mkdirSync(install, { recursive: true });
const build = (await import(pathToFileURL(join(REPO, 'build.mjs')).href)) as {
  buildUniversalEntries(entries: Record<string, string>, outdir: string): Promise<unknown>;
  buildNode(outdir: string): Promise<void>;
  UNIVERSAL_ENTRIES: Record<string, string>;
};
await build.buildUniversalEntries(build.UNIVERSAL_ENTRIES, join(install, 'dist'));
await build.buildNode(join(install, 'dist'));
writeFileSync(join(install, 'package.json'), readFileSync(join(REPO, 'package.json')));
symlinkSync(join(REPO, 'wasm'), join(install, 'wasm'));
symlinkSync(join(REPO, 'node_modules'), join(install, 'node_modules'));

interface ErrorsEntry {
  FormatboxError: new (code: string, message: string) => Error & { code: string };
  isFormatboxError(value: unknown): boolean;
}

test('an error thrown by one entry is a FormatboxError to every other entry', async () => {
  const entries = Object.fromEntries(
    await Promise.all(['index', 'core', 'node'].map(async (name) => [name, (await import(pathToFileURL(join(install, 'dist', `${name}.js`)).href)) as ErrorsEntry] as const)),
  );
  const classes = new Set(Object.values(entries).map((entry) => entry.FormatboxError));
  // The universal entries share chunks; formatbox/node is a bundle of its own, with its own class.
  assert.ok(classes.size >= 2 && entries.node!.FormatboxError !== entries.index!.FormatboxError, 'more than one class (the case this guards)');
  // A real error from formatbox/node's runtime: a path out of the root.
  const node = entries.node as ErrorsEntry & { createRuntime(options: { root: string }): { format(request: { path: string }): Promise<unknown>; close(): Promise<void> } };
  const runtime = node.createRuntime({ root: dir });
  const thrown = await runtime.format({ path: '../../etc/passwd' }).then(() => undefined, (error: unknown) => error);
  await runtime.close();
  assert.equal((thrown as { code?: string }).code, 'PATH_REFUSED');
  for (const [name, entry] of Object.entries(entries)) {
    assert.ok(entry.isFormatboxError(thrown), `isFormatboxError from ${name}`);
    assert.ok(thrown instanceof entry.FormatboxError, `instanceof FormatboxError from ${name}`);
    for (const [other, made] of Object.entries(entries)) {
      const error = new made.FormatboxError('INVALID_REQUEST', 'x');
      assert.ok(entry.isFormatboxError(error) && error instanceof entry.FormatboxError, `${other}'s error seen from ${name}`);
    }
    // Look-alikes are not: a plain Error with a code, an object with a brand-like name.
    const lookalike = Object.assign(new Error('x'), { code: 'PATH_REFUSED', name: 'FormatboxError' });
    assert.ok(!entry.isFormatboxError(lookalike) && !(lookalike instanceof entry.FormatboxError), `a look-alike from ${name}`);
    assert.ok(!entry.isFormatboxError({ code: 'PATH_REFUSED' }) && !entry.isFormatboxError(undefined), `plain values from ${name}`);
  }
});

test('require("formatbox/node") loads on this Node, which engines admits', () => {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  const admitted = pkg.engines.node.split('||').some((range) => {
    const match = /^\s*(?:\^|>=)(\d+)\.(\d+)\.\d+\s*$/.exec(range);
    return match !== null && (range.includes('^') ? major === Number(match[1]) && minor >= Number(match[2]) : major > Number(match[1]) || (major === Number(match[1]) && minor >= Number(match[2])));
  });
  assert.ok(admitted, `engines ${pkg.engines.node} admits Node ${process.versions.node} (the test runs on it)`);
  const run = spawnSync(process.execPath, ['-e', "const m = require('formatbox/node'); const c = require('formatbox/core'); if (typeof m.createRuntime !== 'function' || !c.isFormatboxError(new m.FormatboxError('INVALID_REQUEST', 'x'))) process.exit(3)"], { cwd: dir, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
});
