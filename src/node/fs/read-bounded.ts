/**
 * The one way to read a file that a repository or a model controls (configs, pins, an agent's prior,
 * a shebang): opened with O_NOFOLLOW (the last component is never followed as a link) and O_NONBLOCK
 * (a FIFO does not block the opener), checked with fstat to be a regular file (never a device,
 * FIFO, socket or directory), and read up to `maxBytes` only: a file bigger than what is needed is
 * never read whole.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { FormatboxError } from '../../core/errors.js';
import { shownPath } from '../../core/shown.js';
import { codeOf, describeErrno, kindOf } from './errno.js';

export interface BoundedRead {
  /** At most `maxBytes` bytes from the file's start. */
  bytes: Uint8Array;
  /** The file's size as fstat reported it. */
  size: number;
  /** True when the file holds more than `maxBytes` bytes (only the first `maxBytes` were read). */
  truncated: boolean;
}

/**
 * Up to `maxBytes` of the regular file at `path`, or null when nothing is there. Throws PATH_REFUSED
 * (with `details.reason`: `symlink`, `not-regular` or `unreadable`) when the last component is a
 * symlink, when it is not a regular file, or when it cannot be opened or read.
 */
export function readBoundedNoFollow(path: string, maxBytes: number): BoundedRead | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'ELOOP') throw refusal(path, 'it is a symlink', 'symlink', code);
    if (code === 'EISDIR') throw refusal(path, 'it is a directory, not a regular file', 'not-regular', code);
    throw refusal(path, `it cannot be opened: ${describeErrno(error)}`, 'unreadable', code);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw refusal(path, `it is ${kindOf(stats)}, not a regular file`, 'not-regular');
    // One byte more than allowed tells a file that holds more from one that fits; the size fstat
    // gives is only a first guess (a file may grow meanwhile, a pseudo-file reports 0).
    const limit = maxBytes + 1;
    let buffer = new Uint8Array(Math.min(limit, Math.max(stats.size + 1, 4096)));
    let filled = 0;
    for (;;) {
      if (filled === buffer.length) {
        if (buffer.length >= limit) break;
        const grown = new Uint8Array(Math.min(limit, buffer.length * 2));
        grown.set(buffer);
        buffer = grown;
      }
      const read = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    const truncated = filled > maxBytes;
    return { bytes: buffer.subarray(0, Math.min(filled, maxBytes)), size: stats.size, truncated };
  } catch (error) {
    if (error instanceof FormatboxError) throw error;
    throw refusal(path, `it cannot be read: ${describeErrno(error)}`, 'unreadable', codeOf(error));
  } finally {
    closeSync(fd);
  }
}

/** readBoundedNoFollow's bytes as UTF-8 text (a leading BOM kept), or null when absent. */
export function readBoundedText(path: string, maxBytes: number): { text: string; size: number; truncated: boolean } | null {
  const read = readBoundedNoFollow(path, maxBytes);
  if (!read) return null;
  return { text: new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(read.bytes), size: read.size, truncated: read.truncated };
}

function refusal(path: string, why: string, reason: string, errno?: string): FormatboxError {
  return new FormatboxError('PATH_REFUSED', `refused ${shownPath(path)}: ${why}`, { path, reason, ...(errno ? { errno } : {}) });
}

/** The refusal's kind (`symlink`, `not-regular`, `unreadable`) and errno code, when `error` is one of readBoundedNoFollow's. */
export function boundedReadRefusal(error: unknown): { reason: string; errno?: string } | undefined {
  if (!(error instanceof FormatboxError) || error.code !== 'PATH_REFUSED' || typeof error.details?.reason !== 'string') return undefined;
  return { reason: error.details.reason, ...(typeof error.details.errno === 'string' ? { errno: error.details.errno } : {}) };
}
