/**
 * The per-user key that makes formatbox's temp-file names unforgeable. A temp name ends in an HMAC
 * of the rest of the name under this key; sweeping deletes only names whose HMAC checks out, so a
 * repository file that merely looks like a temp file (`.x.formatbox-<pid>-<hex>.tmp`) is never
 * deleted: the repository cannot compute the HMAC without the key.
 *
 * The key is 32 random bytes in `$XDG_STATE_HOME/formatbox/temp-key` (default
 * `~/.local/state/formatbox/temp-key`, mode 0600), created on first use. When it cannot be read or
 * created, the key is this process's own random key: temp files of other processes are then never
 * swept (left behind rather than risk deleting someone's file).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, constants, fstatSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const KEY_BYTES = 32;
let key: Buffer | undefined;

/** Where the key lives (exported for doctor/tests). */
function tempKeyPath(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME && env.XDG_STATE_HOME.startsWith('/') ? env.XDG_STATE_HOME : join(homedir(), '.local', 'state');
  return join(state, 'formatbox', 'temp-key');
}

function loadKey(): Buffer {
  if (key) return key;
  const path = tempKeyPath();
  key = readKey(path) ?? createKey(path) ?? readKey(path) ?? randomBytes(KEY_BYTES);
  return key;
}

function readKey(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    // Ours only: a regular file of the right size that nobody else can read or replace.
    if (!stats.isFile() || stats.size !== KEY_BYTES || (stats.mode & 0o077) !== 0 || stats.uid !== process.getuid?.()) return undefined;
    const buffer = Buffer.alloc(KEY_BYTES);
    return readSync(fd, buffer, 0, KEY_BYTES, 0) === KEY_BYTES ? buffer : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function createKey(path: string): Buffer | undefined {
  try {
    mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
    const fresh = randomBytes(KEY_BYTES);
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, fresh);
    } finally {
      closeSync(fd);
    }
    return fresh;
  } catch {
    return undefined; // EEXIST (another process made it: read it) or a read-only home
  }
}

/** 16 hex digits of HMAC-SHA256(key, stem). */
export function tempMac(stem: string): string {
  return createHmac('sha256', loadKey()).update(stem).digest('hex').slice(0, 16);
}

export function macMatches(stem: string, mac: string): boolean {
  const expected = Buffer.from(tempMac(stem), 'utf8');
  const given = Buffer.from(mac, 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given);
}
