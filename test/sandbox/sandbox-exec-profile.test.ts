/**
 * The macOS profile cannot run here (no sandbox-exec on Linux); this checks what can be checked:
 * it is well-formed, denies by default, closes network and fork, and uses exactly the parameters
 * the backend passes. docs/security.md says the backend itself is untested.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sandboxExecSandbox } from '../../src/node/sandbox/sandbox-exec.js';

const profile = readFileSync(new URL('../../src/node/sandbox/formatbox.sb', import.meta.url), 'utf8');
const code = profile.replace(/;.*$/gm, '').replace(/"(?:[^"\\]|\\.)*"/g, '""');

/** The whole s-expression that starts at `start`. */
function form(text: string, start: string): string {
  const from = text.indexOf(start);
  assert.ok(from >= 0, start);
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    if (text[i] === '(') depth++;
    if (text[i] === ')' && --depth === 0) return text.slice(from, i + 1);
  }
  throw new Error(`unbalanced ${start}`);
}

test('the sandbox-exec profile is balanced and closes network, fork and writes outside the scratch dir', () => {
  let depth = 0;
  for (const c of code) {
    if (c === '(') depth++;
    if (c === ')') depth--;
    assert.ok(depth >= 0, 'unbalanced )');
  }
  assert.equal(depth, 0, 'unbalanced (');
  assert.match(profile, /^\(version 1\)$/m);
  assert.match(profile, /^\(deny default\)$/m);
  assert.match(profile, /^\(deny network\*\)$/m);
  assert.match(profile, /^\(deny process-fork\)$/m);
  const params = new Set([...profile.matchAll(/\(param "([A-Z]+)"\)/g)].map((m) => m[1]));
  assert.deepEqual([...params].sort(), ['BINARY', 'ROOT', 'SCRATCH', 'TOOL']);
  // The only file-write* allowance is the scratch dir and the null/dtrace devices.
  const writes = form(profile, '(allow file-write*');
  assert.match(writes, /\(subpath \(param "SCRATCH"\)\)/);
  assert.doesNotMatch(writes, /ROOT|TOOL|BINARY|\/usr|\/System|HOME|\/tmp|\/private/);
  assert.equal([...profile.matchAll(/\(allow file-write/g)].length, 1);
});

test('on Linux the sandbox-exec backend reports itself unavailable instead of running anything', async () => {
  if (process.platform === 'darwin') return;
  const sandbox = sandboxExecSandbox();
  assert.equal(sandbox.unavailable, 'sandbox-exec is not available');
  assert.deepEqual(await sandbox.run({ argv: ['/usr/bin/true'], timeoutMs: 1000, maxStdoutBytes: 1, maxStderrBytes: 1 }), { kind: 'refused', reason: 'sandbox-exec is not available' });
});
