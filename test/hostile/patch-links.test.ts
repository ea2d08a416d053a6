// Issue 9, class 4: Delete or Move of a symlink must never act on its target. Decision: Delete,
// Move (either end) and replacing an existing file (Add File over it) refuse a path that is a
// symlink or lies under one (PATH_REFUSED); nothing on disk changes, the link and its target stay.
// (An Update without a move edits the file a link inside the root leads to, like edit does.)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime } from '../../src/node/index.js';
import { isFormatboxError } from '../../src/core/errors.js';

const roots: string[] = [];
const runtimes: Runtime[] = [];
after(async () => {
  await Promise.all(runtimes.map((r) => r.close()));
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

const CORE = 'export const core = 1;\n';

/** src/core.ts, notes.md -> src/core.ts, docs -> src (a directory link), and a plain file. */
function project(): { root: string; rt: Runtime } {
  const root = mkdtempSync(join(tmpdir(), 'fb-links-'));
  roots.push(root);
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src/core.ts'), CORE);
  writeFileSync(join(root, 'plain.txt'), 'plain\n');
  symlinkSync('src/core.ts', join(root, 'notes.md'));
  symlinkSync('src', join(root, 'docs'));
  const rt = createRuntime({ root });
  runtimes.push(rt);
  return { root, rt };
}

async function refused(rt: Runtime, patch: string): Promise<string> {
  try {
    await rt.applyPatch({ patch });
  } catch (error) {
    assert.ok(isFormatboxError(error), String(error));
    assert.equal(error.code, 'PATH_REFUSED', error.message);
    return error.message;
  }
  assert.fail(`expected PATH_REFUSED for:\n${patch}`);
}

function untouched(root: string): void {
  assert.equal(readFileSync(join(root, 'src/core.ts'), 'utf8'), CORE, 'the target is intact');
  assert.ok(lstatSync(join(root, 'notes.md')).isSymbolicLink(), 'the link is still there');
  assert.equal(readlinkSync(join(root, 'notes.md')), 'src/core.ts');
  assert.equal(readFileSync(join(root, 'plain.txt'), 'utf8'), 'plain\n');
}

const wrap = (body: string): string => `*** Begin Patch\n${body}\n*** End Patch\n`;

test('Delete File of a symlink is refused; the target survives', { timeout: 20_000 }, async () => {
  const { root, rt } = project();
  assert.match(await refused(rt, wrap('*** Delete File: notes.md')), /notes\.md is a symlink or lies under one .*src\/core\.ts.*does not delete through a link/);
  untouched(root);
});

test('Delete File through a directory link is refused', { timeout: 20_000 }, async () => {
  const { root, rt } = project();
  await refused(rt, wrap('*** Delete File: docs/core.ts'));
  untouched(root);
});

test('Update with Move to, from a symlink, is refused; neither link nor target moves', { timeout: 20_000 }, async () => {
  const { root, rt } = project();
  await refused(rt, wrap('*** Update File: notes.md\n*** Move to: moved.md\n@@\n-export const core = 1;\n+export const core = 2;'));
  untouched(root);
  assert.equal(existsSync(join(root, 'moved.md')), false);
});

test('Move onto a symlink, and Add File over one, are refused (they would write through it)', { timeout: 20_000 }, async () => {
  const { root, rt } = project();
  await refused(rt, wrap('*** Update File: plain.txt\n*** Move to: notes.md\n@@\n-plain\n+x'));
  await refused(rt, wrap('*** Add File: notes.md\n+overwritten'));
  await refused(rt, wrap('*** Add File: docs/core.ts\n+overwritten'));
  untouched(root);
});

test('a unified diff deleting or renaming a symlink is refused too', { timeout: 20_000 }, async () => {
  const { root, rt } = project();
  await refused(rt, 'diff --git a/notes.md b/notes.md\ndeleted file mode 120000\n--- a/notes.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-export const core = 1;\n');
  await refused(rt, 'diff --git a/notes.md b/other.md\nsimilarity index 100%\nrename from notes.md\nrename to other.md\n');
  untouched(root);
});

test('a refused link in a multi-file patch leaves the other files untouched (all or nothing)', { timeout: 20_000 }, async () => {
  const { root, rt } = project();
  await refused(rt, wrap('*** Update File: plain.txt\n@@\n-plain\n+changed\n*** Delete File: notes.md'));
  untouched(root);
});
