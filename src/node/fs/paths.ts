/**
 * Safe path resolution inside a root: a path the runtime may read and write resolves inside the
 * root's real path with symlinks followed, and anything else (outside, a device, a lone surrogate
 * in the name) is refused with PATH_REFUSED.
 */
import { lstatSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { FormatboxError } from '../../core/errors.js';
import { loneSurrogateIndex } from '../../tools/index.js';
import { shownPath } from '../../core/shown.js';
import { swapped } from '../pinned-dir.js';
import { codeOf, kindOf, refused } from './errno.js';
import { isInside } from './inside.js';

export { isInside };

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
