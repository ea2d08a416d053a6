/**
 * A per-user secret: 32 random bytes in a 0600 file inside a private (0700, owned, not a symlink)
 * directory. Node has no SO_PEERCRED, so this stands in for it: whoever can read the file is this
 * user (or root), and a peer that proves it knows the secret (an HMAC over both sides' nonces,
 * never the secret itself) is one of this user's processes. Used by the socket handshake
 * (socket-auth.ts); generic, for any local endpoint that must only answer its own user.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { FormatboxError } from '../core/errors.js';
import { checkPrivateDir } from './daemon-paths.js';

const SECRET_FILE = 'user.secret';
const SECRET_BYTES = 32;

/** The socket handshake's secret in `dir`: see readOrCreateSecretFile. */
export function readOrCreateUserSecret(dir: string, uid: number = process.getuid?.() ?? -1): Buffer {
  return readOrCreateSecretFile(dir, SECRET_FILE, uid);
}

/**
 * The secret kept in `dir/name` (the directory must be private: see checkPrivateDir), created on
 * first use. Throws PATH_REFUSED when the directory or the file is not private: a symlink, another
 * owner, a mode open to group or others, more than one hard link, or not exactly the secret's size.
 * Each purpose has its own file, so a secret handed to another program (the http hook's) grants
 * nothing else.
 */
export function readOrCreateSecretFile(dir: string, name: string, uid: number = process.getuid?.() ?? -1): Buffer {
  checkPrivateDir(dir, uid);
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

/** A fresh nonce (hex) for one handshake. */
export function freshNonce(): string {
  return randomBytes(16).toString('hex');
}

/** The proof that one side knows `secret`: an HMAC over who proves (`role`) and both nonces. */
export function secretProof(secret: Buffer, role: string, ...nonces: string[]): string {
  return createHmac('sha256', secret).update([role, ...nonces].join('\0')).digest('hex');
}

/** Whether `given` is the expected proof (constant time; anything not a string of its length is not). */
export function proofMatches(expected: string, given: unknown): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(expected), Buffer.from(given));
}

function refused(file: string, why: string): FormatboxError {
  return new FormatboxError('PATH_REFUSED', `the per-user secret ${file} is refused: ${why}`);
}
