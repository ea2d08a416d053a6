/**
 * Where the per-user daemon's socket lives, and the checks that make it safe to connect to:
 * `$XDG_RUNTIME_DIR/formatbox`, else `<tmpdir>/formatbox-<uid>`. The directory must be a real
 * directory (not a symlink), owned by this user, with no access for group or others (0700).
 * Anything else is refused: a socket another user can create or replace would see every edit.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { FormatboxError } from '../core/errors.js';
import { checkOwnedDir, currentUid } from '../node/fs/owned.js';

export interface DaemonPaths {
  dir: string;
  socket: string;
  /** Held (O_EXCL) by the one client that starts the daemon. */
  lock: string;
  /** The daemon's stderr. */
  log: string;
}

/** The paths for this user and environment (nothing is created or checked). */
export function daemonPaths(env: NodeJS.ProcessEnv = process.env, uid: number = currentUid()): DaemonPaths {
  const runtimeDir = env.XDG_RUNTIME_DIR;
  const dir = runtimeDir && isAbsolute(runtimeDir) ? join(runtimeDir, 'formatbox') : join(tmpdir(), `formatbox-${uid}`);
  return { dir, socket: join(dir, 'daemon.sock'), lock: join(dir, 'daemon.lock'), log: join(dir, 'daemon.log') };
}

/** Creates the directory (0700) when missing, then checks it; throws PATH_REFUSED when it is not private. */
export function preparePrivateDir(dir: string, uid: number = currentUid()): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new FormatboxError('PATH_REFUSED', `cannot create the daemon directory ${dir}: ${(error as Error).message}`);
    }
  }
  checkPrivateDir(dir, uid);
}

/** Throws PATH_REFUSED unless `dir` is a directory (not a symlink) owned by `uid` with mode 0700 or stricter. */
export function checkPrivateDir(dir: string, uid: number = currentUid()): void {
  checkOwnedDir(dir, { what: 'the daemon directory', private: true, uid });
}
