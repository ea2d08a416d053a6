import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isFormatboxError } from '../../src/core/errors.js';
import { readSnapshot } from '../../src/node/fs/read.js';
import { resolveInside, resolveRoot } from '../../src/node/fs/paths.js';
import { stageWrite, writeAtomic } from '../../src/node/fs/staged-write.js';
import { sweepTemps, tempPathFor } from '../../src/node/fs/sweep.js';
import { canSyncFileSystem, syncFileSystem } from '../../src/node/fs/sync-fs.js';

function tempRoot(): string {
  return resolveRoot(mkdtempSync(join(tmpdir(), 'fb-fs-')));
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(isFormatboxError(error), String(error));
    assert.equal(error.code, 'PATH_REFUSED');
    return error.message;
  }
  assert.fail('expected a PATH_REFUSED error');
}

test('bad paths are refused with a clear reason', () => {
  const root = tempRoot();
  const outside = mkdtempSync(join(tmpdir(), 'fb-outside-'));
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'ok.ts'), 'x');
  symlinkSync(join(outside, 'secret.txt'), join(root, 'link-out.txt'));
  symlinkSync(outside, join(root, 'dir-out'));
  symlinkSync(join(root, 'missing-target'), join(root, 'dangling'));
  symlinkSync('/dev/null', join(root, 'devnull'));
  spawnSync('mknod', [join(root, 'dev0'), 'c', '1', '3']);
  spawnSync('mkfifo', [join(root, 'fifo')]);

  assert.match(refusal(() => resolveInside(root, '../x.ts')), /leaves the project root/);
  assert.match(refusal(() => resolveInside(root, 'src/../../x.ts')), /leaves the project root/);
  assert.match(refusal(() => resolveInside(root, join(outside, 'secret.txt'))), /outside the project root/);
  assert.match(refusal(() => resolveInside(root, '/etc/passwd')), /outside the project root/);
  assert.match(refusal(() => resolveInside(root, 'link-out.txt')), /through a symlink\) to outside/);
  assert.match(refusal(() => resolveInside(root, 'dir-out/secret.txt')), /through a symlink\) to outside/);
  assert.match(refusal(() => resolveInside(root, 'dir-out/new.txt')), /directory resolves \(through a symlink\) to outside/);
  assert.match(refusal(() => resolveInside(root, 'dangling')), /symlink to a missing target/);
  assert.match(refusal(() => resolveInside(root, 'devnull')), /outside the project root/);
  assert.match(refusal(() => resolveInside(root, 'src')), /a directory, not a regular file/);
  assert.match(refusal(() => resolveInside(root, '.')), /project root/);
  assert.match(refusal(() => resolveInside(root, '')), /empty/);
  assert.match(refusal(() => resolveInside(root, 'a\0b')), /NUL/);
  assert.match(refusal(() => resolveInside(root, 'src/ok.ts/x')), /not a directory/);
  if (existsSync(join(root, 'dev0'))) assert.match(refusal(() => resolveInside(root, 'dev0')), /a device, not a regular file/);
  if (existsSync(join(root, 'fifo'))) assert.match(refusal(() => resolveInside(root, 'fifo')), /a FIFO, not a regular file/);
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

test('paths inside the root resolve, through symlinks that stay inside', () => {
  const root = tempRoot();
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'a.ts'), 'x');
  symlinkSync('src/a.ts', join(root, 'alias.ts'));
  symlinkSync('src', join(root, 'lib'));
  assert.deepEqual(resolveInside(root, 'src/a.ts'), { rel: 'src/a.ts', abs: join(root, 'src/a.ts'), realRel: 'src/a.ts', shown: 'src/a.ts' });
  assert.deepEqual(resolveInside(root, join(root, 'src/a.ts')).realRel, 'src/a.ts');
  assert.deepEqual(resolveInside(root, 'alias.ts'), { rel: 'alias.ts', abs: join(root, 'src/a.ts'), realRel: 'src/a.ts', shown: 'alias.ts' });
  assert.equal(resolveInside(root, 'lib/new/deeper.ts').abs, join(root, 'src/new/deeper.ts'));
  assert.equal(resolveInside(root, './src/./a.ts').rel, 'src/a.ts');
  rmSync(root, { recursive: true, force: true });
});

test('atomic write keeps the mode, refuses when the disk is not what was read, and leaves no temp file', async () => {
  const root = tempRoot();
  const file = join(root, 'run.sh');
  writeFileSync(file, 'echo 1\n');
  chmodSync(file, 0o751);
  const snapshot = (await readSnapshot(file, 'run.sh'))!;
  await writeAtomic(file, new TextEncoder().encode('echo 2\n'), { expect: snapshot.bytes, keep: snapshot, shown: 'run.sh' });
  assert.equal(readFileSync(file, 'utf8'), 'echo 2\n');
  assert.equal(statSync(file).mode & 0o7777, 0o751);

  // Compare-and-swap: the disk no longer holds what was read.
  await assert.rejects(
    () => writeAtomic(file, new TextEncoder().encode('echo 3\n'), { expect: snapshot.bytes, keep: snapshot, shown: 'run.sh' }),
    (error: unknown) => isFormatboxError(error) && error.code === 'MODIFIED_SINCE_READ' && /run.sh was modified since it was read/.test(error.message),
  );
  assert.equal(readFileSync(file, 'utf8'), 'echo 2\n');
  // Creating a file that appeared meanwhile is refused too.
  await assert.rejects(() => writeAtomic(file, new Uint8Array([1]), { expect: null, shown: 'run.sh' }), /was created by someone else/);
  assert.deepEqual(readdirSync(root), ['run.sh']);
  rmSync(root, { recursive: true, force: true });
});

test('a staged write whose flush finishes at the commit (an edit\'s F): written, mode kept, refused on a changed disk, no temp file or descriptor left', async () => {
  const root = tempRoot();
  const file = join(root, 'run.sh');
  writeFileSync(file, 'echo 1\n');
  chmodSync(file, 0o751);
  const snapshot = (await readSnapshot(file, 'run.sh'))!;
  const openFds = () => readdirSync('/proc/self/fd').length;
  const fdsBefore = openFds();

  const staged = stageWrite(file, { shown: 'run.sh', keep: snapshot, flushAtCommit: true });
  await staged.fill(new TextEncoder().encode('echo 2\n'));
  staged.commit(snapshot.bytes);
  staged.release();
  assert.equal(readFileSync(file, 'utf8'), 'echo 2\n');
  assert.equal(statSync(file).mode & 0o7777, 0o751);

  // Compare-and-swap at the commit: the disk no longer holds what was read; nothing is replaced.
  const again = stageWrite(file, { shown: 'run.sh', keep: snapshot, flushAtCommit: true });
  await again.fill(new TextEncoder().encode('echo 3\n'));
  assert.throws(() => again.commit(snapshot.bytes), (error: unknown) => isFormatboxError(error) && error.code === 'MODIFIED_SINCE_READ');
  again.release();
  assert.equal(readFileSync(file, 'utf8'), 'echo 2\n');

  // Released before its bytes were written (the formatter failed): nothing is left either, and bytes
  // that come after the release are refused, not written to a descriptor another file may hold now.
  const released = stageWrite(file, { shown: 'run.sh', flushAtCommit: true });
  released.release();
  await assert.rejects(released.fill('echo 4\n'), /fill after commit or release/);
  assert.deepEqual(readdirSync(root), ['run.sh']);
  assert.equal(readFileSync(file, 'utf8'), 'echo 2\n');
  // The first descriptor is closed once the thread pool's flush is done; the second at once.
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(openFds(), fdsBefore);
  rmSync(root, { recursive: true, force: true });
});

test('a staged write the caller flushes (a batch): closed once written, flushed on request, renamed at the commit, refused on a changed disk', async () => {
  const root = tempRoot();
  const file = join(root, 'a.ts');
  writeFileSync(file, 'let a=1\n');
  chmodSync(file, 0o640);
  const snapshot = (await readSnapshot(file, 'a.ts'))!;
  const openFds = () => readdirSync('/proc/self/fd').length;
  const fdsBefore = openFds();

  const staged = stageWrite(file, { shown: 'a.ts', keep: snapshot, flushedByCaller: true });
  staged.fillNow('let a = 1;\n');
  // Written and closed, not yet renamed (a batch holds thousands of these at once): only its pinned directory is open.
  assert.equal(openFds(), fdsBefore + 1);
  assert.equal(readFileSync(file, 'utf8'), 'let a=1\n');
  await staged.flushFilled();
  staged.commit(snapshot.bytes);
  staged.release();
  assert.equal(readFileSync(file, 'utf8'), 'let a = 1;\n');
  assert.equal(statSync(file).mode & 0o7777, 0o640);
  assert.deepEqual(readdirSync(root), ['a.ts']);

  const stale = stageWrite(file, { shown: 'a.ts', keep: snapshot, flushedByCaller: true });
  stale.fillNow('let a = 2;\n');
  assert.throws(() => stale.commit(snapshot.bytes), (error: unknown) => isFormatboxError(error) && error.code === 'MODIFIED_SINCE_READ');
  stale.release();
  assert.deepEqual(readdirSync(root), ['a.ts']);
  assert.equal(readFileSync(file, 'utf8'), 'let a = 1;\n');
  const unflushed = stageWrite(file, { shown: 'a.ts' });
  assert.throws(() => unflushed.fillNow('x'), /fillNow is for a write the caller flushes/);
  unflushed.release();
  assert.deepEqual(readdirSync(root), ['a.ts']);
  assert.equal(openFds(), fdsBefore);
  rmSync(root, { recursive: true, force: true });
});

test('syncfs through coreutils sync: true for a directory here, false for one that is gone', { skip: !canSyncFileSystem() && process.env.CI !== 'true' ? 'no coreutils sync -f on this machine' : false }, async () => {
  const root = tempRoot();
  assert.equal(await syncFileSystem(root), true);
  assert.equal(await syncFileSystem(join(root, 'missing')), false);
  rmSync(root, { recursive: true, force: true });
});

test('stale temp files of dead processes are swept; live ones and lookalikes without a valid mac are kept', () => {
  const root = tempRoot();
  const file = join(root, 'a.ts');
  const mine = tempPathFor(file);
  writeFileSync(mine, 'in flight');
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const stale = tempPathFor(file, Number(dead.stdout));
  writeFileSync(stale, 'half');
  writeFileSync(join(root, '.a.ts.formatbox-notes.tmp'), 'not ours');
  // Named exactly like a temp file of a dead process, but without a valid mac: a repo file.
  const lookalike = join(root, `.a.ts.formatbox-${dead.stdout}-0123456789ab-0123456789abcdef.tmp`);
  const oldStyle = join(root, `.a.ts.formatbox-${dead.stdout}-0123456789ab.tmp`);
  writeFileSync(lookalike, 'repo file');
  writeFileSync(oldStyle, 'repo file');
  assert.deepEqual(sweepTemps(root), [stale]);
  assert.ok(existsSync(mine));
  assert.ok(existsSync(join(root, '.a.ts.formatbox-notes.tmp')));
  assert.ok(existsSync(lookalike));
  assert.ok(existsSync(oldStyle));
  rmSync(root, { recursive: true, force: true });
});

test('full disk: a write into a 64 KiB tmpfs fails with WRITE_FAILED and the original is intact', (t) => {
  const bwrap = spawnSync('bwrap', ['--version']);
  if (bwrap.error) {
    if (process.env.CI) assert.fail('bwrap is required in CI');
    t.skip('bwrap not installed');
    return;
  }
  const mount = mkdtempSync(join(tmpdir(), 'fb-full-'));
  const child = new URL('./full-disk-child.ts', import.meta.url).pathname;
  const result = spawnSync(
    'bwrap',
    ['--dev-bind', '/', '/', '--size', String(64 * 1024), '--tmpfs', mount, '--', process.execPath, '--import', 'tsx', child, mount],
    { encoding: 'utf8', cwd: new URL('../..', import.meta.url).pathname, timeout: 60_000 },
  );
  assert.equal(result.status, 0, result.stderr);
  const report = JSON.parse(result.stdout.trim().split('\n').pop()!);
  console.log(`  full disk: ${report.error}`);
  assert.equal(report.code, 'WRITE_FAILED');
  assert.match(report.error, /no space left on device \(ENOSPC\); the file is unchanged/);
  assert.equal(report.stagedCode, 'WRITE_FAILED');
  assert.equal(report.intact, true);
  assert.deepEqual(report.leftovers, []);
  rmSync(mount, { recursive: true, force: true });
});
