/** Reads as bytes: the file and the stat a later write keeps, from a directory pinned against swaps. */
import { close, closeSync, constants, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { FormatboxError } from '../../core/errors.js';
import { swapped, withPinnedFile } from '../pinned-dir.js';
import { codeOf, describeErrno, kindOf, refused } from './errno.js';

/** The file as read: its bytes and the stat the write keeps (mode, owner). */
export interface FileSnapshot {
  bytes: Uint8Array;
  mode: number;
  uid: number;
  gid: number;
}

interface ReadOptions {
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
function hardLinkRefusal(shown: string, links: number): FormatboxError {
  return refused(shown, `it has ${links} hard links, and another of its names may be a file outside the project; untrusted mode does not read it (trust the project to allow hard-linked files)`);
}

/**
 * The bytes of an open regular file whose size was just taken from `fstat`: what `readFileSync(fd)`
 * reads (up to that size, less if it shrank), without a second `fstat`.
 */
export function readOpenFile(fd: number, size: number): Buffer {
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

/**
 * Closes `fd` in the thread pool once `after` settles and the caller's synchronous work is done
 * (closing the last fd of a replaced file frees it).
 */
export function closeAfter(fd: number, after: Promise<unknown>): void {
  const closeLater = () => void setImmediate(() => close(fd, () => undefined));
  after.then(closeLater, closeLater);
}
