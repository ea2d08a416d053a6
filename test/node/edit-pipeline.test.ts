// The warm edit's pipeline: the formatter request goes out before W
// is written, F's temp file is made while the formatter runs and filled while the receipt is built,
// and the config check runs while the formatter runs. What must still hold: every outcome leaves
// no temp file, a config change seen during the call is used, and a directory moved and replaced
// by a symlink out of the root during the formatter call gets nothing written through it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/node/index.js';
import { isFormatboxError } from '../../src/core/errors.js';

const dirs: string[] = [];
const runtimes: Runtime[] = [];
after(async () => {
  await Promise.all(runtimes.map((r) => r.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'fb-pipeline-'));
  dirs.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

function runtime(options: RuntimeOptions): Runtime {
  const rt = createRuntime(options);
  runtimes.push(rt);
  return rt;
}

const SLOW = new URL('./runaway-adapters.ts?as=clang-format:js-slow', import.meta.url);
const temps = (dir: string) => readdirSync(dir).filter((name) => name.includes('.formatbox-'));
const read = (root: string, path: string) => readFileSync(join(root, path), 'utf8');

test('no temp file is left, whatever the outcome: formatted, unchanged, failed, no formatter, concurrent modification', async () => {
  const root = tree({ 'biome.json': '{ "formatter": { "indentStyle": "space" } }\n', 'src/a.ts': 'export const a = 1;\n', 'c/x.c': 'int x;   \n', 'notes.txt': 'one\n' });
  const rt = runtime({ root });
  const formatted = await rt.edit({ path: 'src/a.ts', oldText: 'export const a = 1;', newText: 'export const a=2' });
  assert.equal(formatted.status, 'formatted');
  assert.equal(read(root, 'src/a.ts'), formatted.content);
  const unchanged = await rt.edit({ path: 'src/a.ts', oldText: 'export const a = 2;', newText: 'export const a = 3;' });
  assert.equal(unchanged.status, 'unchanged');
  const failed = await rt.edit({ path: 'src/a.ts', oldText: 'export const a = 3;', newText: 'export const a = (;' });
  assert.equal(failed.status, 'failed');
  assert.equal(read(root, 'src/a.ts'), 'export const a = (;\n', 'W stays when the formatter fails');
  assert.deepEqual(temps(join(root, 'src')), []);
  const none = await rt.edit({ path: 'notes.txt', oldText: 'one', newText: 'two' });
  assert.equal(none.status, 'skipped', 'no formatter for .txt');
  assert.equal(read(root, 'notes.txt'), 'two\n');
  assert.deepEqual(temps(root), []);

  // The file changes on disk while the (slow) formatter runs: F's staged temp file is dropped.
  const slow = runtime({ root, config: { mode: 'always' }, adapterModules: [SLOW], observers: [{ before: () => void setTimeout(() => writeFileSync(join(root, 'c/x.c'), 'int theirs;\n'), 150) }] });
  const concurrent = await slow.edit({ path: 'c/x.c', oldText: 'int x;', newText: 'int y;' });
  assert.equal(concurrent.reason, 'concurrent modification');
  assert.equal(read(root, 'c/x.c'), 'int theirs;\n');
  assert.deepEqual(temps(join(root, 'c')), []);
});

test('a config file changed on disk while the formatter runs is used: the file is formatted again with it', async () => {
  const root = tree({ 'biome.json': '{ "formatter": { "indentStyle": "space" } }\n', 'a.ts': 'export function f() {\n  return 1;\n}\n' });
  // The `before` observer runs before the formatter is called; the config check now runs after
  // the call went out, so this change is only seen by the check made during the call.
  const rt = runtime({ root, observers: [{ before: () => writeFileSync(join(root, 'biome.json'), '{ "formatter": { "indentStyle": "tab" } }\n') }] });
  const receipt = await rt.edit({ path: 'a.ts', oldText: 'return 1;', newText: 'return 2;' });
  assert.equal(receipt.status, 'formatted');
  assert.equal(receipt.content, 'export function f() {\n\treturn 2;\n}\n');
  assert.equal(read(root, 'a.ts'), receipt.content);
  assert.deepEqual(temps(root), []);
});

test("a directory moved and replaced by a symlink out of the root while the formatter runs: F is not written, nothing outside changes", async () => {
  const outside = tree({ 'sub/x.c': 'int x;   \n' });
  const root = tree({ 'sub/x.c': 'int x;   \n' });
  const swap = () => {
    renameSync(join(root, 'sub'), join(root, 'moved'));
    symlinkSync(join(outside, 'sub'), join(root, 'sub'));
  };
  const rt = runtime({ root, config: { mode: 'always' }, adapterModules: [SLOW], observers: [{ before: () => void setTimeout(swap, 150) }] });
  await assert.rejects(rt.edit({ path: 'sub/x.c', oldText: 'int x;', newText: 'int y;' }), (error: unknown) => {
    assert.ok(isFormatboxError(error), String(error));
    assert.equal(error.code, 'PATH_REFUSED');
    assert.match(error.message, /moved or replaced/);
    return true;
  });
  assert.equal(read(outside, 'sub/x.c'), 'int x;   \n', 'the file outside is untouched');
  assert.deepEqual(readdirSync(join(outside, 'sub')), ['x.c'], 'no temp file outside');
  // W went where the file was when it was written; its staged F was removed from there.
  assert.equal(read(root, 'moved/x.c'), 'int y;   \n');
  assert.deepEqual(temps(join(root, 'moved')), []);
  assert.ok(!existsSync(join(outside, 'moved')));
});

test('an edit refused at the write of W while the formatter runs writes nothing when the formatter answers, not even through a descriptor since reused', async () => {
  const root = tree({ 'c/x.c': 'int x;   \n' });
  // The `before` observer changes the file after P was read: W's compare-and-swap refuses the edit,
  // with the (slow) formatter already called and F's temp file already made.
  const rt = runtime({ root, config: { mode: 'always' }, adapterModules: [SLOW], observers: [{ before: () => writeFileSync(join(root, 'c/x.c'), 'int theirs;\n') }] });
  await assert.rejects(rt.edit({ path: 'c/x.c', oldText: 'int x;', newText: 'int y;' }), (error: unknown) => isFormatboxError(error) && error.code === 'MODIFIED_SINCE_READ');
  // The descriptors the refused call closed are handed out again, lowest first, to the next opens.
  const others = Array.from({ length: 8 }, (_, i) => join(root, `other${i}.txt`));
  const fds = others.map((file) => openSync(file, 'w+'));
  for (const fd of fds) writeSync(fd, 'mine\n');
  await new Promise((resolve) => setTimeout(resolve, 800)); // the formatter's answer arrives meanwhile
  fds.forEach((fd) => closeSync(fd));
  for (const file of others) assert.equal(readFileSync(file, 'utf8'), 'mine\n', `${file}: nothing else was written to it`);
  assert.equal(read(root, 'c/x.c'), 'int theirs;\n');
  assert.deepEqual(temps(join(root, 'c')), []);
});
