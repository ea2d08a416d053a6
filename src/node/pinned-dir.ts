/**
 * Directory handles that cannot be redirected by a symlink swapped in after a path was resolved.
 *
 * A path the runtime touches was resolved to its real path (no symlinks) and checked to be inside
 * the root. Between that check and the read, temp file or rename, another process may replace a
 * directory on the path with a symlink that leaves the root. So every file operation first opens
 * the file's directory and checks, through `/proc/self/fd/<fd>`, that the kernel's path of what was
 * opened is exactly the real path that was resolved (a followed symlink makes them differ). Missing
 * directories are created from `/`, one component at a time, each opened with O_NOFOLLOW through
 * the previous component's fd (`/proc/self/fd/<fd>/<name>`, which is `openat(fd, name)`). The file
 * itself is then opened, created, renamed or unlinked through that directory fd, with O_NOFOLLOW on
 * the last component. Where `/proc/self/fd` is missing (not Linux), the walk falls
 * back to plain paths with a realpath check before each operation (a narrower race remains there).
 */
import { closeSync, constants, existsSync, fsync, mkdirSync, openSync, readlinkSync, realpathSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { FormatboxError } from '../core/errors.js';

const PROC_FD = '/proc/self/fd';
let procUsable: boolean | undefined;

function useProc(): boolean {
  procUsable ??= process.platform === 'linux' && existsSync(`${PROC_FD}/0`);
  return procUsable;
}

/** An open directory; `at(name)` is a path that names `name` inside exactly that directory. */
export interface PinnedDir {
  readonly dir: string;
  /** `at('')` is the directory itself. */
  at(name: string): string;
  /**
   * For a handle held across an await: throws PATH_REFUSED when the directory is no longer at `dir`
   * (moved, or a component on its path replaced), the check `openPinnedDir` made when it opened it.
   */
  recheck(): void;
  /** fsync of the directory (its renames made durable) in the thread pool, then closed. Replaces `close`. */
  syncAndClose(): Promise<void>;
  close(): void;
}

/**
 * Opens the real directory `dir` (absolute, no symlinks in it) without following any symlink.
 * `create`: missing components are created (mode 0777 & ~umask), each under the fd of its parent.
 * Throws PATH_REFUSED (with `shown`) when a component is now a symlink or not a directory.
 */
export function openPinnedDir(dir: string, shown: string, create = false): PinnedDir {
  if (!useProc()) return fallbackDir(dir, shown, create);
  const direct = openChecked(dir, shown);
  if (direct !== undefined) return pinned(dir, shown, direct);
  if (!create) throw Object.assign(new Error(`ENOENT: no such directory, open '${dir}'`), { code: 'ENOENT' });
  return pinned(dir, shown, openByComponents(dir, shown, create));
}

/**
 * The fast way: open the directory by its path, then ask the kernel where the opened directory is
 * (`/proc/self/fd/<fd>` names its current path). `dir` is a real path, so any symlink followed on the
 * way (a component swapped after resolution) makes the two differ: refused. Undefined when missing.
 */
function openChecked(dir: string, shown: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ENOTDIR' || code === 'ELOOP') throw swapped(shown, 'a directory on its path is now a symlink or not a directory');
    throw error;
  }
  let actual: string;
  try {
    actual = readlinkSync(`${PROC_FD}/${fd}`);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (actual !== dir) {
    closeSync(fd);
    throw swapped(shown, 'a directory on its path is now a symlink (it leads elsewhere)');
  }
  return fd;
}

/** The careful way, for creating missing directories: from `/`, one component at a time, none followed. */
function openByComponents(dir: string, shown: string, create: boolean): number {
  let fd = openSync('/', constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    for (const part of dir.split('/')) {
      if (part === '' || part === '.') continue;
      if (part === '..') throw swapped(shown, 'the path has a .. component');
      const next = `${PROC_FD}/${fd}/${part}`;
      let child: number;
      try {
        child = openSync(next, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' && create) {
          try {
            mkdirSync(next);
          } catch (mkdirError) {
            if ((mkdirError as NodeJS.ErrnoException).code !== 'EEXIST') throw mkdirError;
          }
          child = openSync(next, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
        } else if (code === 'ELOOP' || code === 'ENOTDIR') {
          throw swapped(shown, `${part} on its path is now a symlink or not a directory`);
        } else {
          throw error;
        }
      }
      closeSync(fd);
      fd = child;
    }
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

function pinned(dir: string, shown: string, held: number): PinnedDir {
  let open = true;
  const close = () => {
    if (open) closeSync(held);
    open = false;
  };
  return {
    dir,
    at: (name) => (name === '' ? `${PROC_FD}/${held}` : `${PROC_FD}/${held}/${name}`),
    recheck() {
      if (readlinkSync(`${PROC_FD}/${held}`) !== dir) throw swapped(shown, 'its directory was moved or replaced while the call ran');
    },
    syncAndClose() {
      open = false; // the fd is the sync's now
      return new Promise((resolve) => fsync(held, () => closeQuietly(held, resolve)));
    },
    close,
  };
}

function closeQuietly(fd: number, then: () => void): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
  then();
}

/** Runs `fn` with the file's directory pinned; `name` is the file's base name. */
export function withPinnedFile<T>(abs: string, shown: string, fn: (dir: PinnedDir, name: string) => T, create = false): T {
  const dir = openPinnedDir(dirname(abs), shown, create);
  try {
    return fn(dir, basename(abs));
  } finally {
    dir.close();
  }
}

/** The error for a path that changed under the call (a directory swapped for a symlink, …). */
export function swapped(shown: string, why: string): FormatboxError {
  return new FormatboxError('PATH_REFUSED', `refused ${shown}: ${why} (it changed after it was resolved); nothing was read or written through it`, { path: shown });
}

function fallbackDir(dir: string, shown: string, create: boolean): PinnedDir {
  if (create) mkdirSync(dir, { recursive: true });
  const check = () => {
    let real: string;
    try {
      real = realpathSync(dir);
    } catch {
      return;
    }
    if (real !== dir) throw swapped(shown, 'a directory on its path is now a symlink');
  };
  check();
  return {
    dir,
    at: (name) => {
      check();
      return name === '' ? dir : join(dir, name);
    },
    recheck: check,
    async syncAndClose() {
      let handle: FileHandle | undefined;
      try {
        handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
        await handle.sync();
      } catch {
        // Some file systems refuse fsync on directories; the rename itself is already atomic.
      } finally {
        await handle?.close().catch(() => undefined);
      }
    },
    close() {},
  };
}
