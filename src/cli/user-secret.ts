/**
 * A per-user secret: 32 random bytes in a 0600 file inside a private (0700, owned, not a symlink)
 * directory. Node has no SO_PEERCRED, so this stands in for it: whoever can read the file is this
 * user (or root), and a peer that proves it knows the secret (an HMAC over both sides' nonces,
 * never the secret itself) is one of this user's processes. Used by the socket handshake
 * (socket-auth.ts); generic, for any local endpoint that must only answer its own user.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readOrCreateSecretFile } from '../node/fs/secret-file.js';

export { readOrCreateSecretFile };

const SECRET_FILE = 'user.secret';

/** The socket handshake's secret in `dir`: see readOrCreateSecretFile. */
export function readOrCreateUserSecret(dir: string, uid: number = process.getuid?.() ?? -1): Buffer {
  return readOrCreateSecretFile(dir, SECRET_FILE, uid);
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
