/**
 * The per-user secret that authenticates Claude Code's `http` hook to the daemon's loopback port.
 * Any local user can connect to 127.0.0.1, so the port answers only a request that carries a secret
 * another user can neither read nor guess: 32 random bytes, kept in a 0600 file inside the daemon's
 * private 0700 directory (daemon-paths.ts), handed to Claude Code through its settings' `env` and
 * the hook's `allowedEnvVars` header interpolation. Kept apart from the daemon so that one module
 * reads and checks every daemon secret.
 */
import { randomBytes, createHash, timingSafeEqual } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, writeSync, constants } from 'node:fs';
import { join } from 'node:path';
import { FormatboxError } from '../core/errors.js';
import { checkPrivateDir } from './daemon-paths.js';

/** The environment variable the hook's header interpolates (listed in its `allowedEnvVars`). */
export const HOOK_SECRET_ENV = 'FORMATBOX_HOOK_SECRET';
const FILE = 'hook-secret';
const SECRET_PATTERN = /^[0-9a-f]{64}$/;

/** A new secret: 32 random bytes as hex. */
export function newSecret(): string {
  return randomBytes(32).toString('hex');
}

/**
 * The secret in `<dir>/hook-secret`, created (O_EXCL, 0600) when missing. Throws PATH_REFUSED when
 * the directory is not private or the file is not a regular file of this user's with mode 0600.
 */
export function readOrCreateSecret(dir: string, uid: number = process.getuid?.() ?? -1): string {
  checkPrivateDir(dir, uid);
  const path = join(dir, FILE);
  try {
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      const secret = newSecret();
      writeSync(fd, `${secret}\n`);
      return secret;
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new FormatboxError('PATH_REFUSED', `cannot create ${path}: ${(error as Error).message}`);
  }
  return readSecretFile(path, uid);
}

function readSecretFile(path: string, uid: number): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    throw new FormatboxError('PATH_REFUSED', `cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new FormatboxError('PATH_REFUSED', `${path} is not a regular file`);
    if (stats.uid !== uid) throw new FormatboxError('PATH_REFUSED', `${path} belongs to uid ${stats.uid}, not to you`);
    if ((stats.mode & 0o077) !== 0) throw new FormatboxError('PATH_REFUSED', `${path} has mode ${(stats.mode & 0o777).toString(8)}; it must be 0600`);
    const secret = readFileSync(fd, 'utf8').trim();
    if (!SECRET_PATTERN.test(secret)) throw new FormatboxError('PATH_REFUSED', `${path} does not hold a formatbox secret`);
    return secret;
  } finally {
    closeSync(fd);
  }
}

/** True when `value` looks like a secret formatbox made (so a typo is named, not sent). */
export function isSecretShaped(value: string | undefined): value is string {
  return value !== undefined && SECRET_PATTERN.test(value);
}

/** Constant-time comparison (of digests, so lengths leak nothing either). */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(value);
  return match?.[1];
}
