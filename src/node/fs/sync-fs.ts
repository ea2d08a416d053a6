/**
 * One flush for a batch of writes: `sync -f` (coreutils), which is syncfs(2) on the file system
 * holding a path. A project-wide `--write` renames thousands of files; an fdatasync of each (and an
 * fsync of each directory) costs a thread-pool round trip and a wake-up per file, where one syncfs
 * after the batch's renames makes all of them, data and names, durable at once. Linux only: where
 * there is no such `sync`, or it fails, the caller flushes each file itself.
 */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';

/** coreutils' `sync`, by absolute path (never looked up on PATH). */
const SYNC_BINARIES = ['/usr/bin/sync', '/bin/sync'];

let syncBinary: string | null | undefined;

function findSyncBinary(): string | null {
  if (syncBinary !== undefined) return syncBinary;
  syncBinary = null;
  if (process.platform !== 'linux') return syncBinary;
  for (const candidate of SYNC_BINARIES) {
    try {
      if (statSync(candidate).isFile()) return (syncBinary = candidate);
    } catch {
      // not there
    }
  }
  return syncBinary;
}

/**
 * Flushes the whole file system that holds `path` (a directory the process opened and checked):
 * true when `sync -f` exited 0, which syncfs(2) does only when every dirty page and the journal
 * reached the disk and no writeback error was recorded since the call before (Linux ≥ 5.8).
 * False when there is no such `sync` here or it failed; then nothing is known to be durable.
 */
export function syncFileSystem(path: string): Promise<boolean> {
  const binary = findSyncBinary();
  if (!binary) return Promise.resolve(false);
  return new Promise((resolve) => {
    const child = spawn(binary, ['-f', '--', path], { stdio: 'ignore', env: {} });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
}

/** For tests: whether `syncFileSystem` can flush here. */
export function canSyncFileSystem(): boolean {
  return findSyncBinary() !== null;
}
