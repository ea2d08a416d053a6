/**
 * Atomic compare-and-swap writes: a temp file in the same directory, fsync, rename, mode and owner
 * kept; removal under the same check.
 *
 * The compare-and-swap check and the rename run synchronously, with no await between them, so
 * nothing else in this process (another runtime call, an in-process writer) can slip in between.
 * Another process can still write in the few microseconds between the check and the rename;
 * closing that gap needs renameat2(RENAME_EXCHANGE), which Node does not expose.
 */
import { close, closeSync, constants, fchmodSync, fchownSync, fdatasync, fdatasyncSync, fstatSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { FormatboxError } from '../../core/errors.js';
import { openPinnedDir, swapped, withPinnedFile, type PinnedDir } from '../pinned-dir.js';
import { codeOf, describeErrno, kindOf } from './errno.js';
import { closeAfter, readOpenFile, readUpTo, type FileSnapshot } from './read.js';
import { tempNameFor } from './sweep.js';

export interface WriteOptions {
  /**
   * What must be on disk right before the rename (compare-and-swap): the exact bytes, or null for
   * "must not exist". When the disk differs, nothing is written and MODIFIED_SINCE_READ is thrown.
   */
  expect: Uint8Array | null;
  /** Mode and owner to keep (from the snapshot of the file being replaced). */
  keep?: Pick<FileSnapshot, 'mode' | 'uid' | 'gid'>;
  /** How the file is named in messages. */
  shown: string;
  /** Test-only: runs between the temp file's fsync and the compare-and-swap. */
  beforeSwap?: () => void;
  /**
   * For W, which F usually replaces a few milliseconds later: rename without waiting for the disk
   * and flush in the background (`flushed`). A killed process still leaves the old or the new
   * bytes (the page cache outlives it); whoever keeps W as the final bytes awaits `flushed`.
   */
  syncLater?: boolean;
  /**
   * With `syncLater`: the file's fd stays open until this settles too (e.g. until F has replaced
   * W). Renaming over a file whose last fd is closed frees it inside the rename; with an fd still
   * open that work moves to the fd's close, which runs in the thread pool, after the caller's.
   */
  holdOpenUntil?: Promise<unknown>;
  /** See StageOptions.directorySync. */
  directorySync?: (dir: PinnedDir) => void;
  /** See StageOptions.directory. */
  directory?: PinnedDir;
}

/** `flushed`: the new bytes are on disk (at once, unless `syncLater`). */
interface WriteDone {
  flushed: Promise<void>;
}

/**
 * Writes `bytes` to `abs` atomically: a temp file in the same directory (O_EXCL, never followed
 * through a symlink) written and fsync'ed off the main thread, then — synchronously, with nothing
 * in between — the compare-and-swap against `expect` and the rename. The directory is fsync'ed in
 * the background (`flushDirectorySyncs` waits for it). On any failure the temp file is removed
 * and the original is untouched.
 */
export async function writeAtomic(abs: string, bytes: Uint8Array, options: WriteOptions): Promise<WriteDone> {
  const staged = stageWrite(abs, { shown: options.shown, create: options.expect === null, ...(options.keep ? { keep: options.keep } : {}), ...(options.directorySync ? { directorySync: options.directorySync } : {}), ...(options.directory ? { directory: options.directory } : {}) });
  try {
    await staged.fill(bytes, { syncLater: options.syncLater === true });
    options.beforeSwap?.();
    return staged.commit(options.expect, options.holdOpenUntil);
  } finally {
    staged.release();
  }
}

export interface StageOptions {
  shown: string;
  /** Mode and owner to keep (from the snapshot of the file being replaced). */
  keep?: Pick<FileSnapshot, 'mode' | 'uid' | 'gid'>;
  /** Create missing directories (a new file). */
  create?: boolean;
  /**
   * Finish the flush on this thread, at `commit`: `fill` starts the fdatasync in the thread pool and
   * returns; `commit` calls fdatasync again, through a second descriptor of the temp file opened at
   * staging, and it returns as soon as the disk has the bytes (the journal commit the first call
   * started, or one it starts itself when the pool thread has not run yet). For an edit's F, whose
   * receipt is built in the meantime: the rename then does not wait for a pool thread to be
   * scheduled, twice, under load. A descriptor's fdatasync reports a writeback error once; the
   * second descriptor, open since before any byte was written, reports it even when the first
   * call already did.
   */
  flushAtCommit?: boolean;
  /**
   * Takes the pinned directory after the rename, to fsync it itself (a batch of writes into one
   * directory then syncs it once, not once per file); it must `syncAndClose` it. Default: synced
   * in the background here (`flushDirectorySyncs` waits for it).
   */
  directorySync?: (dir: PinnedDir) => void;
  /**
   * The file's directory, opened by the caller (`openPinnedDir`) and kept for several writes into
   * it: used instead of opening it again, rechecked at the commit like one opened here, and never
   * closed or fsync'ed here (the caller fsyncs it once, after its last rename into it).
   */
  directory?: PinnedDir;
  /**
   * The caller makes this write durable together with many others (see native-biome-write.ts: one
   * syncfs of the temp files before their renames, one after), and says it written only after
   * that: no fdatasync here, and the temp file is closed as soon as `fillNow` has written it.
   */
  flushedByCaller?: boolean;
}

/**
 * An atomic write in two halves, so the first can be done ahead of the bytes (while the formatter
 * runs): `stageWrite` pins the directory (opened without following symlinks, held until `release`)
 * and creates the temp file; `fill` writes the bytes and flushes them; `commit` is the
 * compare-and-swap and the rename, synchronous from the check to the rename. `release` removes the
 * temp file unless it was committed, and must always be called.
 */
export interface StagedWrite {
  /**
   * Writes the bytes and flushes them (fdatasync in the thread pool), unless `syncLater`; with
   * `flushAtCommit` it starts the flush and `commit` waits for it. Once.
   */
  fill(data: Uint8Array | string, options?: { syncLater?: boolean }): Promise<void>;
  /** Writes the bytes at once and closes the temp file, with no flush (`flushedByCaller`). Once, instead of `fill`. */
  fillNow(data: Uint8Array | string): void;
  /**
   * After `fillNow`, for a caller that cannot flush the whole file system: fdatasync of the temp
   * file, opened again through the pinned directory (never through a symlink).
   */
  flushFilled(): Promise<void>;
  /**
   * The directory is checked to be where it was, the disk against `expect` (MODIFIED_SINCE_READ
   * when it differs), then the rename; the directory is fsync'ed in the background.
   */
  commit(expect: Uint8Array | null, holdOpenUntil?: Promise<unknown>): WriteDone;
  release(): void;
}

export function stageWrite(abs: string, options: StageOptions): StagedWrite {
  const { shown } = options;
  const borrowed = options.directory;
  if (borrowed && borrowed.dir !== dirname(abs)) throw new Error('stageWrite: the directory given is not the file\'s');
  let dir: PinnedDir;
  try {
    dir = borrowed ?? openPinnedDir(dirname(abs), shown, options.create === true);
  } catch (error) {
    if (error instanceof FormatboxError) throw error;
    if (codeOf(error) === 'ENOENT' && options.create !== true) {
      throw new FormatboxError('MODIFIED_SINCE_READ', `${shown} was deleted since it was read (its directory is gone); read it again and redo the edit`);
    }
    throw new FormatboxError('WRITE_FAILED', `cannot open the directory of ${shown}: ${describeErrno(error)}`, { errno: codeOf(error) });
  }
  const name = basename(abs);
  const temp = dir.at(tempNameFor(name));
  let fd: number | undefined;
  let syncFd: number | undefined;
  try {
    // Small synchronous calls (page cache); only the flush to disk goes to the thread pool.
    fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, options.keep?.mode ?? 0o666);
    if (options.keep) keepModeAndOwner(fd, options.keep);
    if (options.flushAtCommit) syncFd = reopenSame(temp, fd);
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd);
    if (syncFd !== undefined) closeQuietly(syncFd);
    unlinkQuietly(temp);
    if (!borrowed) dir.close();
    throw writeFailed(shown, error);
  }
  const file = fd;
  let flushed = false;
  /** With `flushAtCommit`: the pool's fdatasync started by `fill` (the fd stays open until it is done). */
  let started: Promise<unknown> | undefined;
  let poolFlushed = false;
  let state: 'staged' | 'committed' | 'released' = 'staged';
  /** With `flushedByCaller`: the temp file was closed once written (a batch holds thousands). */
  let fileClosed = false;
  const closeFiles = (): void => {
    if (fileClosed) return;
    if (syncFd !== undefined) closeQuietly(syncFd);
    if (started) closeAfter(file, started);
    else closeQuietly(file);
  };
  return {
    async fill(data, fillOptions = {}) {
      // After a release the descriptor is closed and its number may be another file's by now.
      if (state !== 'staged') throw new Error('stageWrite: fill after commit or release');
      try {
        writeWhole(file, data);
        // fdatasync: the data and the size reach the disk before the rename makes them visible.
        if (fillOptions.syncLater) return;
        if (syncFd !== undefined) {
          // Its error, if any, is reported again by the commit's own fdatasync (the second descriptor).
          started = datasync(file).then(() => void (poolFlushed = true), () => undefined);
          return;
        }
        await datasync(file);
        flushed = true;
      } catch (error) {
        throw writeFailed(shown, error);
      }
    },
    fillNow(data) {
      if (state !== 'staged') throw new Error('stageWrite: fill after commit or release');
      if (options.flushedByCaller !== true) throw new Error('stageWrite: fillNow is for a write the caller flushes');
      try {
        writeWhole(file, data);
      } catch (error) {
        throw writeFailed(shown, error);
      }
      closeQuietly(file);
      fileClosed = true;
    },
    async flushFilled() {
      if (state !== 'staged' || !fileClosed) throw new Error('stageWrite: flushFilled before fillNow, or after commit or release');
      let again: number;
      try {
        again = openSync(temp, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      } catch (error) {
        throw writeFailed(shown, error);
      }
      try {
        await datasync(again);
      } catch (error) {
        throw writeFailed(shown, error);
      } finally {
        closeQuietly(again);
      }
    },
    commit(expect, holdOpenUntil) {
      if (state !== 'staged') throw new Error('stageWrite: commit after commit or release');
      if (started && syncFd !== undefined) {
        try {
          // Not again when the pool's flush is known done: on ext4 a second fdatasync after a
          // finished journal commit still flushes the disk's cache (0.03 ms here, quiet machine).
          if (!poolFlushed) fdatasyncSync(syncFd);
        } catch (error) {
          throw writeFailed(shown, error);
        }
        flushed = true;
      }
      // Compare-and-swap: synchronous from here to the rename.
      try {
        dir.recheck();
        const found = compareAt(dir.at(name), shown, expect);
        if (found !== 'same') {
          const what = expect === null ? 'was created by someone else' : found === 'missing' ? 'was deleted' : 'was modified';
          throw new FormatboxError('MODIFIED_SINCE_READ', `${shown} ${what} since it was read; read it again and redo the edit`);
        }
        // rename() replaces a name; it never follows a symlink at the destination.
        renameSync(temp, dir.at(name));
      } catch (error) {
        if (error instanceof FormatboxError) throw error;
        throw new FormatboxError('WRITE_FAILED', `cannot replace ${shown}: ${describeErrno(error)}; the file is unchanged`, { errno: codeOf(error) });
      }
      state = 'committed';
      // Wrapped in an object: returned bare, an async caller would wait for the flush.
      let done: { flushed: Promise<void> };
      if (flushed || options.flushedByCaller) {
        closeFiles();
        done = { flushed: Promise.resolve() };
      } else {
        if (syncFd !== undefined) closeQuietly(syncFd);
        done = { flushed: flushLater(file, holdOpenUntil) };
      }
      if (borrowed) return done; // the caller's to fsync
      if (options.flushedByCaller) dir.close(); // the caller's flush covers the rename
      else if (options.directorySync) options.directorySync(dir);
      else syncDirectoryLater(dir);
      return done;
    },
    release() {
      if (state === 'staged') {
        closeFiles();
        unlinkQuietly(temp);
        if (!borrowed) dir.close();
      }
      state = 'released';
    },
  };
}

/**
 * A second open file description of the file just created at `path` (through the pinned
 * directory, never through a symlink), checked to be the same file as `fd`.
 */
function reopenSame(path: string, fd: number): number {
  const again = openSync(path, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  const [a, b] = [fstatSync(fd), fstatSync(again)];
  if (a.ino !== b.ino || a.dev !== b.dev) {
    closeSync(again);
    throw Object.assign(new Error('the temp file was replaced while it was staged'), { code: 'EEXIST' });
  }
  return again;
}

/**
 * Writes all of `data` at the file's position. A string is written as UTF-8 without a copy made
 * here first (Node encodes it on the way: 10 µs less on 60 KB than TextEncoder and a write).
 */
function writeWhole(fd: number, data: Uint8Array | string): void {
  let bytes: Uint8Array;
  let written = 0;
  if (typeof data === 'string') {
    written = writeSync(fd, data, null, 'utf8');
    const total = Buffer.byteLength(data, 'utf8');
    if (written === total) return;
    bytes = Buffer.from(data, 'utf8'); // a short write (a full disk says why on the next one)
  } else bytes = data;
  while (written < bytes.byteLength) written += writeSync(fd, bytes, written, bytes.byteLength - written);
}

function keepModeAndOwner(fd: number, keep: Pick<FileSnapshot, 'mode' | 'uid' | 'gid'>): void {
  const st = fstatSync(fd);
  if ((st.mode & 0o7777) !== keep.mode) fchmodSync(fd, keep.mode);
  if ((st.uid !== keep.uid || st.gid !== keep.gid) && process.getuid?.() === 0) fchownSync(fd, keep.uid, keep.gid);
}

function writeFailed(shown: string, error: unknown): FormatboxError {
  return new FormatboxError('WRITE_FAILED', `cannot write ${shown}: ${describeErrno(error)}; the file is unchanged`, { errno: codeOf(error) });
}

/**
 * fdatasync of a renamed file in the background; `flushDirectorySyncs` waits for it too. The fd is
 * closed (in the thread pool) once that is done and `holdOpenUntil` settled.
 */
function flushLater(fd: number, holdOpenUntil?: Promise<unknown>): Promise<void> {
  const done: Promise<void> = datasync(fd)
    .catch(() => undefined) // as for directories: the rename stands; nothing better to do
    .finally(() => pendingDirectorySyncs.delete(done));
  pendingDirectorySyncs.add(done);
  closeAfter(fd, Promise.allSettled([done, holdOpenUntil]));
  return done;
}

function datasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

const pendingDirectorySyncs = new Set<Promise<void>>();

/**
 * Makes the rename durable without holding up the caller: fsync of the pinned directory, which it
 * then closes, sent to the thread pool once the caller's synchronous work is done.
 */
function syncDirectoryLater(dir: PinnedDir): void {
  const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
    .then(() => dir.syncAndClose())
    .finally(() => pendingDirectorySyncs.delete(done));
  pendingDirectorySyncs.add(done);
}

/** Waits until every rename so far is durable (directory fsync done). */
export async function flushDirectorySyncs(): Promise<void> {
  await Promise.all([...pendingDirectorySyncs]);
}

/**
 * Whether the file holds exactly `expect` now (null: there is no file); through the pinned
 * directory, never through a symlink (a name that is now a symlink, FIFO or directory counts as
 * "not the file we wrote").
 */
export function holdsSync(abs: string, shown: string, expect: Uint8Array | null): boolean {
  try {
    return withPinnedFile(abs, shown, (dir, name) => compareAt(dir.at(name), shown, expect) === 'same');
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return expect === null; // its directory is gone, so is the file
    throw error;
  }
}

/** Removes the file `abs` (the name itself, never a symlink's target) when it holds `expect`. */
export function removeFileSync(abs: string, shown: string, expect: Uint8Array): boolean {
  try {
    return withPinnedFile(abs, shown, (dir, name) => {
      if (compareAt(dir.at(name), shown, expect) !== 'same') return false;
      unlinkSync(dir.at(name));
      return true;
    });
  } catch (error) {
    if (error instanceof FormatboxError) throw error;
    if (codeOf(error) === 'ENOENT') return false;
    throw new FormatboxError('WRITE_FAILED', `cannot remove ${shown}: ${describeErrno(error)}`, { errno: codeOf(error) });
  }
}

/** Compare-and-swap reads land here: the bytes on disk are compared, never kept (each compare is synchronous). */
let scratch = Buffer.allocUnsafeSlow(64 * 1024);
const MAX_SCRATCH_BYTES = 1024 * 1024;

/**
 * Whether the file at `path` (a pinned-directory path, opened without following a symlink) holds
 * exactly `expect`: 'missing' when there is no file, 'different' when it holds anything else (a
 * file of another size is not read; one that grew while it was read is not a match).
 */
function compareAt(path: string, shown: string, expect: Uint8Array | null): 'same' | 'missing' | 'different' {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return expect === null ? 'same' : 'missing';
    if (codeOf(error) === 'ELOOP') throw swapped(shown, 'it is now a symlink');
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw swapped(shown, `it is now ${kindOf(stats)}`);
    if (expect === null || stats.size !== expect.byteLength) return 'different';
    const want = expect.byteLength + 1; // one byte more: a file that grew meanwhile is no match
    if (want > scratch.byteLength) {
      if (want > MAX_SCRATCH_BYTES) return sameBytes(readOpenFile(fd, want), expect) ? 'same' : 'different';
      scratch = Buffer.allocUnsafeSlow(Math.min(MAX_SCRATCH_BYTES, Math.max(want, 2 * scratch.byteLength)));
    }
    const filled = readUpTo(fd, scratch, want);
    return filled === expect.byteLength && scratch.subarray(0, filled).equals(expect) ? 'same' : 'different';
  } finally {
    closeSync(fd);
  }
}

export function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  return a.byteLength === b.byteLength && Buffer.compare(a, b) === 0;
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // not there
  }
}
