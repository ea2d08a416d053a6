// Reads of files a repository controls take only the bytes they need and never throw out of the
// call: a 200 MB one-line script is skipped by its size, not read whole for its shebang; a
// package.json nested 50,000 levels deep gives a receipt, not a RangeError. The real CLI, each call
// under a time and a memory bound.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { cleanUp, installCopy, isolatedEnv, project } from '../cli/built-cli.js';
import { runBounded, type Bounds } from './bounded.js';

const built = await installCopy();
const iso = isolatedEnv({ FORMATBOX_NO_DAEMON: '1' });
const dirs: string[] = [];
after(() => cleanUp(iso.runtimeDir, built.dir, ...dirs));

/** Node with formatbox's wasm loaded; a 200 MB file read whole (and decoded) would take it past this. */
const SMALL: Bounds = { timeoutMs: 60_000, maxRssMiB: 400 };
const HUGE_BYTES = 200 * 1024 * 1024;

/** A file of `bytes` bytes that starts with `head` (the rest a hole: cheap to make, as costly to read as any). */
function bigFile(path: string, head: string, bytes = HUGE_BYTES): void {
  mkdirSync(join(path, '..'), { recursive: true });
  const fd = openSync(path, 'w');
  writeSync(fd, head);
  ftruncateSync(fd, bytes);
  closeSync(fd);
}

function shellProject(): string {
  const root = project({ '.git/HEAD': 'ref: refs/heads/main\n', '.editorconfig': '[*]\nindent_style = space\nindent_size = 2\ntrim_trailing_whitespace = true\n', 'ok.sh': 'if true; then\n  echo ok  \nfi\n' });
  dirs.push(root);
  return root;
}

async function cli(root: string, args: string[], input?: string, bounds: Bounds = SMALL) {
  return runBounded(process.execPath, [built.cli, ...args], { env: iso.env, cwd: root, ...(input !== undefined ? { input } : {}), bounds });
}

test('case 8: a 200 MB one-line #!/bin/bash script named on the command line is skipped by its size, not read whole', async () => {
  const root = shellProject();
  bigFile(join(root, 'script'), '#!/bin/bash\necho ');
  const run = await cli(root, ['format', '--check', '--json', 'script']);
  assert.match(run.stdout, /"path":"script","status":"skipped","line":"not formatted \(too large: 209715200 bytes > 2097152\): script"/, run.stdout + run.stderr);
});

test('variants: the shebang file found by the walk, with env, in a subdirectory, among formatted files', async () => {
  for (const [name, head] of [['run', '#!/usr/bin/env bash\n'], ['tools/build', '#!/bin/sh\n'], ['deploy', '#! /bin/zsh\n'], ['bin/x', '#!/usr/bin/bash\n']] as const) {
    const root = shellProject();
    bigFile(join(root, ...name.split('/')), head);
    const run = await cli(root, ['format', '--check', '--json', '.']);
    assert.match(run.stdout, new RegExp(`"path":"${name}","status":"skipped","line":"not formatted \\(too large: 209715200 bytes > 2097152\\)`), `${name}: ${run.stdout}${run.stderr}`);
    assert.match(run.stdout, /"path":"ok\.sh","status":"would-change"/, `${name}: the other files are still checked`);
  }
});

/** `package.json` text nested `depth` levels deep inside `wrap` (`[`…`]` or `{"a":`…`}`). */
function deepJson(depth: number, open: string, close: string, fields: Record<string, unknown>): string {
  const head = JSON.stringify(fields).slice(0, -1);
  return `${head},"deep":${open.repeat(depth)}${close.repeat(depth)}}`;
}

async function applyWrite(root: string, path: string, content: string): Promise<{ status: string; line: string }> {
  const run = await cli(root, ['apply', '--json'], JSON.stringify({ root, path, input: { content } }), { timeoutMs: 60_000, maxRssMiB: 768 });
  const answer = JSON.parse(run.stdout) as { status?: string; line?: string; error?: { code: string; message: string } };
  assert.equal(answer.error, undefined, `an error, not a receipt: ${JSON.stringify(answer.error)}`);
  assert.equal(typeof answer.status, 'string');
  return answer as { status: string; line: string };
}

test('case 8: a package.json nested 50,000 levels deep gives a receipt, not a RangeError out of the call', async () => {
  const root = project({ '.git/HEAD': 'ref: refs/heads/main\n', '.prettierrc': '{}\n', 'package.json': deepJson(50_000, '[', ']', { devDependencies: { prettier: '3.3.3' } }) });
  dirs.push(root);
  const receipt = await applyWrite(root, 'a.ts', 'const  x = 1\n');
  assert.match(receipt.line, /package\.json/);
});

test('variants: nested objects; a workspace package\'s package.json; a Biome project\'s .js file (module type); a deep package-lock.json', async () => {
  const cases: Array<{ files: Record<string, string>; path: string }> = [
    { files: { '.prettierrc': '{}\n', 'package.json': deepJson(50_000, '{"a":', '}', { name: 'x' }) }, path: 'a.ts' },
    { files: { '.prettierrc': '{}\n', 'package.json': '{"workspaces":["packages/*"]}', 'packages/a/package.json': deepJson(50_000, '[', ']', { name: 'a' }) }, path: 'packages/a/b.ts' },
    { files: { 'biome.json': '{}\n', 'package.json': deepJson(50_000, '[', ']', { type: 'commonjs' }) }, path: 'a.js' },
    { files: { 'biome.json': '{}\n', 'lib/package.json': deepJson(50_000, '{"a":', '}', { type: 'module' }) }, path: 'lib/a.js' },
    { files: { '.prettierrc': '{}\n', 'package.json': '{"devDependencies":{"prettier":"^3"}}', 'package-lock.json': deepJson(50_000, '[', ']', { lockfileVersion: 3 }) }, path: 'a.ts' },
  ];
  for (const { files, path } of cases) {
    const root = project({ '.git/HEAD': 'ref: refs/heads/main\n', ...files });
    dirs.push(root);
    const receipt = await applyWrite(root, path, 'const  x = 1\n');
    assert.ok(['formatted', 'failed', 'refused', 'skipped'].includes(receipt.status), `${Object.keys(files).join(', ')}: ${receipt.line}`);
  }
});
