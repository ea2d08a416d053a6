/**
 * The file-system port of the Node runtime: safe path resolution inside a root, reads as bytes,
 * and atomic compare-and-swap writes (temp file in the same directory, fsync, rename, mode kept).
 *
 * The compare-and-swap check and the rename run synchronously, with no await between them, so
 * nothing else in this process (another runtime call, an in-process writer) can slip in between.
 * Another process can still write in the few microseconds between the check and the rename;
 * closing that gap needs renameat2(RENAME_EXCHANGE), which Node does not expose.
 */
import { close, closeSync, constants, fchmodSync, fchownSync, fdatasync, fdatasyncSync, fstatSync, lstatSync, openSync, readdirSync, readFileSync, readSync, realpathSync, renameSync, statSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { FormatboxError } from '../core/errors.js';
import { loneSurrogateIndex } from '../tools/index.js';
import { shownPath } from '../core/shown.js';
import { openPinnedDir, swapped, withPinnedFile, type PinnedDir } from './pinned-dir.js';
import { processAlive } from './process-alive.js';
import { macMatches, tempMac } from './temp-key.js';

/** A path the runtime may read and write: inside the root, symlinks followed. */
export interface ResolvedPath {
  /** The path as the caller named it, project-relative POSIX (`src/app.ts`). Used in receipts. */
  rel: string;
  /** The real absolute path (symlinks followed) that is read and written. */
  abs: string;
  /** The real path, project-relative POSIX. Used for formatter selection and locking. */
  realRel: string;
  /** `rel` as shown in messages (control characters escaped, see core/shown.ts). */
  shown: string;
}

/** The file as read: its bytes and the stat the write keeps (mode, owner). */
export interface FileSnapshot {
  bytes: Uint8Array;
  mode: number;
  uid: number;
  gid: number;
}

/** Resolves the root once: it must exist and be a directory. Returns its real path. */
export function resolveRoot(root: string): string {
  let real: string;
  try {
    real = realpathSync(resolve(root));
  } catch (error) {
    throw new FormatboxError('INVALID_REQUEST', `root ${root} does not exist (${codeOf(error)})`);
  }
  if (!statSync(real).isDirectory()) throw new FormatboxError('INVALID_REQUEST', `root ${root} is not a directory`);
  return real;
}

/**
 * Resolves `path` (project-relative, or absolute inside the root) to a file the runtime may touch.
 * Refused: empty paths, NUL bytes, `..` escapes, absolute paths outside the root, symlinks (at any
 * level) that leave the root, directories, devices, FIFOs and sockets. A missing file is allowed
 * (for `write` and `*** Add File`) when its nearest existing ancestor is a directory inside the root.
 */
export function resolveInside(rootReal: string, path: string): ResolvedPath {
  try {
    return resolveInsideOnce(rootReal, path);
  } catch (error) {
    if (error instanceof FormatboxError) throw error;
    // A component vanished or changed between two steps (a directory being moved or swapped).
    throw refused(path, `it changed while it was being resolved (${codeOf(error)})`);
  }
}

function resolveInsideOnce(rootReal: string, path: string): ResolvedPath {
  if (typeof path !== 'string' || path.trim() === '') throw refused(String(path), 'the path is empty');
  if (path.includes('\0')) throw refused(path, 'the path contains a NUL byte');
  // A lone surrogate would reach the file system as U+FFFD: the file named would not be the file touched.
  if (loneSurrogateIndex(path) >= 0) throw refused(path, 'the path is not well-formed Unicode (a lone surrogate)');
  const lexical = resolve(rootReal, path);
  if (!isInside(lexical, rootReal)) {
    const why = isAbsolute(path) ? 'it is outside the project root' : 'it leaves the project root';
    throw refused(path, why);
  }
  const rel = toPosix(relative(rootReal, lexical));
  if (rel === '') throw refused(path, 'it is the project root, a directory');
  const plain = resolvePlain(rootReal, lexical, rel);
  if (plain) return plain;

  let stats: Stats | undefined;
  try {
    stats = lstatSync(lexical);
  } catch (error) {
    if (codeOf(error) !== 'ENOENT' && codeOf(error) !== 'ENOTDIR') throw refused(path, `it cannot be read (${codeOf(error)})`);
  }

  if (stats) {
    let real: string;
    try {
      real = realpathSync(lexical);
    } catch (error) {
      // A dangling symlink: writing through it would create a file wherever it points.
      throw refused(path, `it is a symlink to a missing target (${codeOf(error)})`);
    }
    if (!isInside(real, rootReal) || real === rootReal) throw refused(path, 'it resolves (through a symlink) to outside the project root');
    const target = statSync(real);
    if (!target.isFile()) throw refused(path, `it is ${kindOf(target)}, not a regular file`);
    return { rel, abs: real, realRel: toPosix(relative(rootReal, real)), shown: shownPath(rel) };
  }

  // Missing: the nearest existing ancestor must be a directory inside the root (after symlinks).
  let ancestor = dirname(lexical);
  const missing: string[] = [basename(lexical)];
  for (;;) {
    let ancestorStats: Stats | undefined;
    try {
      ancestorStats = statSync(ancestor);
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') throw refused(path, `its directory cannot be read (${codeOf(error)})`);
    }
    if (ancestorStats) {
      if (!ancestorStats.isDirectory()) throw refused(path, `${toPosix(relative(rootReal, ancestor))} is not a directory`);
      break;
    }
    missing.unshift(basename(ancestor));
    ancestor = dirname(ancestor);
  }
  const realAncestor = realpathSync(ancestor);
  if (!isInside(realAncestor, rootReal) && realAncestor !== rootReal) {
    throw refused(path, 'its directory resolves (through a symlink) to outside the project root');
  }
  const abs = join(realAncestor, ...missing);
  return { rel, abs, realRel: toPosix(relative(rootReal, abs)), shown: shownPath(rel) };
}

/**
 * The common case in one `lstat` per component below the root: every directory on the way is a
 * real directory and the file a regular file, none a symlink, so the real path is the lexical one
 * (the root is real: resolved once, and every file operation checks again, through the pinned
 * directory, that the directory is exactly where it was resolved). Undefined for anything else
 * (a symlink, a missing component, another kind of file), which the full resolution handles.
 */
function resolvePlain(rootReal: string, lexical: string, rel: string): ResolvedPath | undefined {
  const names = relative(rootReal, lexical).split(sep);
  let current = rootReal;
  for (const [index, name] of names.entries()) {
    current = join(current, name);
    let stats: Stats | undefined;
    try {
      stats = lstatSync(current, { throwIfNoEntry: false });
    } catch {
      return undefined; // ENOTDIR, EACCES, …: the full resolution says which
    }
    if (!stats || !(index === names.length - 1 ? stats.isFile() : stats.isDirectory())) return undefined;
  }
  return { rel, abs: lexical, realRel: rel, shown: shownPath(rel) };
}

export interface ReadOptions {
  /**
   * Refuse a file with more than one hard link (untrusted mode): another name of it may be a file
   * outside the project, whose content would then end up in the receipt.
   */
  refuseHardLinks?: boolean;
  /**
   * Keep the file open until this settles (then close it in the thread pool): the write that
   * replaces it then does not have to free it inside its rename (see WriteOptions.holdOpenUntil).
   */
  holdOpenUntil?: Promise<unknown>;
}

/**
 * Reads the file as bytes, or null when it does not exist. The file is opened through its pinned
 * directory with O_NOFOLLOW (never through a symlink swapped in after resolution) and O_NONBLOCK
 * (a FIFO swapped in does not block); what was opened must be a regular file.
 */
export async function readSnapshot(abs: string, shown: string, options: ReadOptions = {}): Promise<FileSnapshot | null> {
  // Synchronous: a source file is read from the page cache in microseconds; thread-pool hops cost more.
  let fd: number;
  try {
    fd = withPinnedFile(abs, shown, (dir, name) => openSync(dir.at(name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK));
  } catch (error) {
    if (error instanceof FormatboxError) throw error;
    if (codeOf(error) === 'ENOENT') return null;
    if (codeOf(error) === 'ELOOP') throw swapped(shown, 'it is now a symlink');
    if (codeOf(error) === 'EISDIR') throw refused(shown, 'it is a directory, not a regular file');
    throw new FormatboxError('PATH_REFUSED', `cannot read ${shown}: ${describeErrno(error)}`);
  }
  let snapshot: FileSnapshot;
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw refused(shown, `it is ${kindOf(stats)}, not a regular file`);
    if (options.refuseHardLinks && stats.nlink > 1) throw hardLinkRefusal(shown, stats.nlink);
    const bytes = readOpenFile(fd, stats.size);
    snapshot = { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), mode: stats.mode & 0o7777, uid: stats.uid, gid: stats.gid };
  } catch (error) {
    closeSync(fd);
    if (error instanceof FormatboxError) throw error;
    throw new FormatboxError('PATH_REFUSED', `cannot read ${shown}: ${describeErrno(error)}`);
  }
  if (options.holdOpenUntil) closeAfter(fd, options.holdOpenUntil);
  else closeSync(fd);
  return snapshot;
}

/** Untrusted mode's answer to a file with several hard links (see docs/security.md). */
export function hardLinkRefusal(shown: string, links: number): FormatboxError {
  return refused(shown, `it has ${links} hard links, and another of its names may be a file outside the project; untrusted mode does not read it (trust the project to allow hard-linked files)`);
}

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
}

/** `flushed`: the new bytes are on disk (at once, unless `syncLater`). */
export interface WriteDone {
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
  const staged = stageWrite(abs, { shown: options.shown, create: options.expect === null, ...(options.keep ? { keep: options.keep } : {}) });
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
  /**
   * The directory is checked to be where it was, the disk against `expect` (MODIFIED_SINCE_READ
   * when it differs), then the rename; the directory is fsync'ed in the background.
   */
  commit(expect: Uint8Array | null, holdOpenUntil?: Promise<unknown>): WriteDone;
  release(): void;
}

export function stageWrite(abs: string, options: StageOptions): StagedWrite {
  const { shown } = options;
  let dir: PinnedDir;
  try {
    dir = openPinnedDir(dirname(abs), shown, options.create === true);
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
    dir.close();
    throw writeFailed(shown, error);
  }
  const file = fd;
  let flushed = false;
  /** With `flushAtCommit`: the pool's fdatasync started by `fill` (the fd stays open until it is done). */
  let started: Promise<unknown> | undefined;
  let poolFlushed = false;
  let state: 'staged' | 'committed' | 'released' = 'staged';
  const closeFiles = (): void => {
    if (syncFd !== undefined) closeQuietly(syncFd);
    if (started) closeAfter(file, started);
    else closeQuietly(file);
  };
  return {
    async fill(data, fillOptions = {}) {
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
      if (flushed) {
        closeFiles();
        done = { flushed: Promise.resolve() };
      } else {
        if (syncFd !== undefined) closeQuietly(syncFd);
        done = { flushed: flushLater(file, holdOpenUntil) };
      }
      syncDirectoryLater(dir);
      return done;
    },
    release() {
      if (state === 'staged') {
        closeFiles();
        unlinkQuietly(temp);
        dir.close();
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

/**
 * Closes `fd` in the thread pool once `after` settles and the caller's synchronous work is done
 * (closing the last fd of a replaced file frees it).
 */
function closeAfter(fd: number, after: Promise<unknown>): void {
  const closeLater = () => void setImmediate(() => close(fd, () => undefined));
  after.then(closeLater, closeLater);
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

/**
 * The bytes of an open regular file whose size was just taken from `fstat`: what `readFileSync(fd)`
 * reads (up to that size, less if it shrank), without a second `fstat`.
 */
function readOpenFile(fd: number, size: number): Buffer {
  if (size === 0) return readFileSync(fd); // empty, or a size the file system does not report
  const buffer = Buffer.allocUnsafeSlow(size); // its own ArrayBuffer, as readFileSync gives
  const filled = readUpTo(fd, buffer, size);
  return filled === size ? buffer : buffer.subarray(0, filled);
}

/** Reads from `fd`'s current position into `buffer` until `length` bytes or the end of the file; returns how many. */
export function readUpTo(fd: number, buffer: Uint8Array, length: number): number {
  let filled = 0;
  while (filled < length) {
    const read = readSync(fd, buffer, filled, length - filled, null);
    if (read === 0) break;
    filled += read;
  }
  return filled;
}

export function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  return a.byteLength === b.byteLength && Buffer.compare(a, b) === 0;
}

// ---------------------------------------------------------------------------
// Temp files: `.<name>.formatbox-<pid>-<nonce>-<mac>.tmp`, next to the file they replace. The mac
// is an HMAC of the rest of the name under a per-user key that no repository can read
// (temp-key.ts): a file is swept only when it carries a valid mac, so a repo file named like a
// temp file is never deleted.

const TEMP_NAME = /^\..*\.formatbox-(\d+)-[0-9a-f]{12}-([0-9a-f]{16})\.tmp$/;

/** A fresh temp name for the file `name` (base name), owned by process `pid`. */
export function tempNameFor(name: string, pid = process.pid): string {
  const stem = `.${name.slice(0, 180)}.formatbox-${pid}-${randomBytes(6).toString('hex')}`;
  return `${stem}-${tempMac(stem)}.tmp`;
}

export function tempPathFor(abs: string, pid = process.pid): string {
  return join(dirname(abs), tempNameFor(basename(abs), pid));
}

/** True for a name formatbox made (valid mac), whatever process made it. */
export function isTempName(name: string): boolean {
  const match = TEMP_NAME.exec(name);
  return match !== null && macMatches(name.slice(0, name.length - '-'.length - 16 - '.tmp'.length), match[2]!);
}

/**
 * Removes temp files left by a process that died mid-write (SIGKILL, power loss). A temp file is
 * stale when formatbox made it (its mac checks out) and its process is gone. This process's own
 * temp files are never touched (a write may be in flight). Returns the removed paths.
 */
export function sweepTemps(dir: string): string[] {
  const removed: string[] = [];
  let pinned: PinnedDir;
  try {
    pinned = openPinnedDir(dir, dir);
  } catch {
    return removed;
  }
  try {
    let names: string[];
    try {
      names = readdirSync(pinned.at(''));
    } catch {
      return removed;
    }
    for (const name of names) {
      const match = TEMP_NAME.exec(name);
      if (!match || !isTempName(name)) continue;
      const pid = Number(match[1]);
      if (pid === process.pid || processAlive(pid)) continue;
      try {
        const stats = lstatSync(pinned.at(name));
        if (stats.isFile() && stats.nlink === 1) {
          unlinkSync(pinned.at(name));
          removed.push(join(dir, name));
        }
      } catch {
        // Another sweeper got there first.
      }
    }
  } finally {
    pinned.close();
  }
  return removed;
}

/**
 * Sweeps the root and its subdirectories (skipping `.git` and `node_modules`, never following a
 * symlink), visiting at most `maxDirs` directories so a huge tree does not stall startup.
 * Directories beyond the bound are swept when the runtime first writes into them. `visited`, when
 * given, receives every directory swept, so the caller need not sweep them again.
 */
export function sweepTree(rootReal: string, maxDirs = 2000, visited?: Set<string>): string[] {
  const removed: string[] = [];
  const queue = [rootReal];
  let count = 0;
  while (queue.length > 0 && count < maxDirs) {
    const dir = queue.shift()!;
    count++;
    removed.push(...sweepTemps(dir));
    visited?.add(dir);
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.isDirectory() && entry.name !== '.git' && entry.name !== 'node_modules') queue.push(join(dir, entry.name));
    }
  }
  return removed;
}


// ---------------------------------------------------------------------------

/** True when `path` is `root` or below it (both absolute and normalised; no symlinks are followed here). */
export function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** `realpath`, or undefined when the path does not resolve. */
export function safeRealpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

function refused(path: string, why: string): FormatboxError {
  return new FormatboxError('PATH_REFUSED', `refused ${shownPath(path)}: ${why}`, { path });
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // not there
  }
}

export function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? 'EUNKNOWN';
}

const ERRNO_TEXT: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
  EEXIST: 'already exists',
  ENAMETOOLONG: 'name too long',
  EIO: 'input/output error',
  ENOENT: 'no such file or directory (it was removed meanwhile)',
  EFBIG: 'file too large',
};

function describeErrno(error: unknown): string {
  const code = codeOf(error);
  const text = ERRNO_TEXT[code];
  return text ? `${text} (${code})` : error instanceof Error ? error.message : String(error);
}
