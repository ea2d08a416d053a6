/**
 * The per-user secret that authenticates Claude Code's `http` hook to the daemon's loopback port.
 * Any local user can connect to 127.0.0.1, so the port answers only a request that carries a secret
 * another user can neither read nor guess: 32 random bytes, kept in a 0600 file inside the daemon's
 * private 0700 directory (daemon-paths.ts), handed to Claude Code through its settings' `env` and
 * the hook's `allowedEnvVars` header interpolation. Its own file, apart from the socket handshake's
 * secret: a secret written into an agent's settings must grant nothing but this port.
 */
import { randomBytes, createHash, timingSafeEqual } from 'node:crypto';
import { readOrCreateSecretFile } from './user-secret.js';

const FILE = 'hook-secret';
const SECRET_PATTERN = /^[0-9a-f]{64}$/;

/** A new secret: 32 random bytes as hex. */
export function newSecret(): string {
  return randomBytes(32).toString('hex');
}

/**
 * The http hook's secret (hex), kept in `<dir>/hook-secret` and created when missing, under the
 * checks of every per-user secret (user-secret.ts).
 */
export function readOrCreateSecret(dir: string, uid: number = process.getuid?.() ?? -1): string {
  return readOrCreateSecretFile(dir, FILE, uid).toString('hex');
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
