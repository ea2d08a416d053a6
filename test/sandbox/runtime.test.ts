/**
 * End to end through `createRuntime`: an agent's edit to a Rust file is written, formatted by the
 * real rustfmt inside bubblewrap with the project's Cargo.toml edition and rustfmt.toml, and the
 * receipt replays; the file on disk equals rustfmt run directly. doctor() reports the sandbox.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../src/node/runtime.js';
import { applyInput } from '../../src/tools/index.js';
import { applyUnifiedDiff } from '../../src/core/diff.js';
import type { SingleFileInput } from '../../src/core/types.js';
import { missing, rustfmt, tempProject } from './helpers.js';

test('runtime.edit on a .rs file: formatted by rustfmt in the sandbox, equal to rustfmt run directly', { skip: missing({ rustfmt: true }) }, async () => {
  const prior = 'pub fn add(a: u32, b: u32) -> u32 {\n\ta + b\n}\n';
  const project = tempProject({
    'Cargo.toml': '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2018"\n',
    'rustfmt.toml': 'hard_tabs = true\nmax_width = 40\n',
    'src/lib.rs': prior,
  });
  const runtime = createRuntime({ root: project.root });
  try {
    const receipt = await runtime.edit({ path: 'src/lib.rs', oldText: 'a + b\n}\n', newText: 'a + b\n}\npub fn mul(first:u32,second:u32)->u32{first*second}\n' });
    const onDisk = readFileSync(join(project.root, 'src/lib.rs'), 'utf8');
    const reference = spawnSync('missing' in rustfmt ? '' : rustfmt.binary, ['--edition', '2018', '--emit', 'stdout'], {
      cwd: project.root,
      input: `${prior}pub fn mul(first:u32,second:u32)->u32{first*second}\n`,
      encoding: 'utf8',
    });
    assert.equal(reference.status, 0, reference.stderr);
    assert.equal(onDisk, reference.stdout);
    assert.match(onDisk, /pub fn mul\(\n\tfirst: u32,\n\tsecond: u32,\n\) -> u32 \{/, 'rustfmt.toml (hard tabs, width 40) took effect');
    assert.equal(receipt.status, 'formatted', receipt.line);
    assert.equal(receipt.content, onDisk);
    assert.deepEqual({ ...receipt.formatter, version: undefined }, { name: 'rustfmt', version: undefined, via: 'sandbox' });
    assert.match(receipt.line, /^formatted \(rustfmt \S+, sandbox\): src\/lib\.rs$/);
    // The reconciliation invariant: replay(P, input), then the diff if any, equals F.
    const replayed = applyInput(prior, receipt.input as SingleFileInput);
    assert.equal(receipt.diff ? applyUnifiedDiff(replayed, receipt.diff) : replayed, onDisk);

    const doctor = await runtime.doctor();
    assert.equal(doctor.sandbox.kind, 'bwrap');
    assert.equal(doctor.sandbox.available, true);
    const rust = doctor.subprocess.find((s) => s.name === 'rustfmt');
    assert.ok(rust?.available, JSON.stringify(doctor.subprocess));
  } finally {
    await runtime.close();
    project.cleanup();
  }
});
