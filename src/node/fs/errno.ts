/** The file-system modules' errors: refusals, and errno codes in words for messages. */
import type { Stats } from 'node:fs';
import { FormatboxError } from '../../core/errors.js';
import { shownPath } from '../../core/shown.js';

export function refused(path: string, why: string): FormatboxError {
  return new FormatboxError('PATH_REFUSED', `refused ${shownPath(path)}: ${why}`, { path });
}

export function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
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

export function describeErrno(error: unknown): string {
  const code = codeOf(error);
  const text = ERRNO_TEXT[code];
  return text ? `${text} (${code})` : error instanceof Error ? error.message : String(error);
}
