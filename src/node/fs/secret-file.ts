/**
 * A secret file: 32 random bytes in a 0600 file inside a private directory (0700, owned, not a
 * symlink), created on first use. Whoever can read it is this user (or root). The per-user socket
 * handshake's and http hook's secrets (src/cli/user-secret.ts) and the formatter store's key are each
 * one such file.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { FormatboxError } from '../../core/errors.js';
import { checkOwnedDir } from './owned.js';

const SECRET_BYTES = 32;

/**
 * The secret kept in `dir/name` (the directory must be private: see checkPrivateDir), created on
 * first use. Throws PATH_REFUSED when the directory or the file is not private: a symlink, another
 * owner, a mode open to group or others, more than one hard link, or not exactly the secret's size.
 * Each purpose has its own file, so a secret handed to another program (the http hook's) grants
 * nothing else.
 */
export function readOrCreateSecretFile(dir: string, name: string, uid: number = process.getuid?.() ?? -1, dirWhat = 'the daemon directory'): Buffer {
  checkOwnedDir(dir, { what: dirWhat, private: true, uid });
  const file = join(dir, name);
  let fd: number;
  let created = false;
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    created = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw refused(file, (error as Error).message);
    try {
      fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (opening) {
      throw refused(file, (opening as NodeJS.ErrnoException).code === 'ELOOP' ? 'it is a symlink' : (opening as Error).message);
    }
  }
  try {
    if (created) {
      const secret = randomBytes(SECRET_BYTES);
      writeSync(fd, secret);
      return secret;
    }
    let stats = fstatSync(fd);
    // Another process may have created the file an instant ago and not written it yet.
    for (let wait = 0; stats.isFile() && stats.size < SECRET_BYTES && wait < 40; wait++) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      stats = fstatSync(fd);
    }
    if (!stats.isFile()) throw refused(file, 'it is not a regular file');
    if (stats.uid !== uid) throw refused(file, `it belongs to uid ${stats.uid}, not to you (uid ${uid})`);
    if ((stats.mode & 0o077) !== 0) throw refused(file, `it has mode ${(stats.mode & 0o777).toString(8)}; it must be 0600`);
    if (stats.nlink !== 1) throw refused(file, `it has ${stats.nlink} hard links`);
    if (stats.size !== SECRET_BYTES) throw refused(file, `it holds ${stats.size} bytes, not ${SECRET_BYTES} (remove it: a new one is made)`);
    const secret = Buffer.alloc(SECRET_BYTES);
    if (readSync(fd, secret, 0, SECRET_BYTES, 0) !== SECRET_BYTES) throw refused(file, 'it could not be read whole');
    return secret;
  } finally {
    closeSync(fd);
  }
}

function refused(file: string, why: string): FormatboxError {
  return new FormatboxError('PATH_REFUSED', `the per-user secret ${file} is refused: ${why}`);
}
