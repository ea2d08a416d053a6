/**
 * The macOS profile cannot run here (no sandbox-exec on Linux); this checks what can be checked:
 * it is well-formed, denies by default, closes network and fork, and uses exactly the parameters
 * the backend passes. The README says the backend itself is untested.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sandboxExecSandbox } from '../../src/node/sandbox/sandbox-exec.js';

const profile = readFileSync(new URL('../../src/node/sandbox/formatbox.sb', import.meta.url), 'utf8');
const code = profile.replace(/;.*$/gm, '').replace(/"(?:[^"\\]|\\.)*"/g, '""');

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
  const writes = profile.slice(profile.indexOf('(allow file-write*'), profile.indexOf(')\n', profile.indexOf('(allow file-write*')) + 1);
  assert.doesNotMatch(writes, /ROOT|TOOL|\/usr|\/System|HOME/);
});

test('on Linux the sandbox-exec backend reports itself unavailable instead of running anything', async () => {
  if (process.platform === 'darwin') return;
  const sandbox = sandboxExecSandbox();
  assert.equal(sandbox.unavailable, 'sandbox-exec is not available');
  assert.deepEqual(await sandbox.run({ argv: ['/usr/bin/true'], timeoutMs: 1000, maxStdoutBytes: 1, maxStderrBytes: 1 }), { kind: 'refused', reason: 'sandbox-exec is not available' });
});
