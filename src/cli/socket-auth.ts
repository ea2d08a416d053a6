/**
 * Every Unix socket formatbox listens on or connects to (the daemon's, `serve --socket`, the hook's
 * `--socket` / `$FORMATBOX_SOCKET`) is held to one line:
 * - the path: the socket is not a symlink and is this user's with no access for others, and its
 *   directory is a real directory of this user's with mode 0700 (checkPrivateDir);
 * - the peer: before any request is sent or read, each side proves it knows the per-user secret
 *   (user-secret.ts), so another local user can neither pose as the server (and read edits, `prior`
 *   included, or forge replies) nor talk to it.
 *
 * Handshake, one JSON line each way before the requests:
 *   client → `{auth: 1, nonce: C, ...hello}`; server → `{nonce: S, proof: HMAC("server", C, S)}`;
 *   client → `{proof: HMAC("client", C, S)}`, then its requests. A server that cannot answer the
 *   hello as asked (another version) may reply otherwise; the client hands that reply back unread.
 */
import { lstatSync } from 'node:fs';
import type { Socket } from 'node:net';
import { dirname } from 'node:path';
import { FormatboxError } from '../core/errors.js';
import { checkPrivateDir } from './daemon-paths.js';
import { freshNonce, proofMatches, secretProof } from './user-secret.js';

/** Longest handshake line read (a nonce and a proof are ~130 bytes). */
const MAX_HANDSHAKE_BYTES = 4096;
const HANDSHAKE_TIMEOUT_MS = 5_000;

/** Throws PATH_REFUSED unless `path` is a socket of this user's (not a symlink, mode 0600) in a private directory. */
export function checkSocketPath(path: string, uid: number = process.getuid?.() ?? -1): void {
  checkPrivateDir(dirname(path), uid);
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (!stats) return; // Nothing there yet: connecting fails, listening creates it.
  if (stats.isSymbolicLink()) throw new FormatboxError('PATH_REFUSED', `the socket ${path} is a symlink; refusing it`);
  if (!stats.isSocket()) throw new FormatboxError('PATH_REFUSED', `${path} is not a socket`);
  if (stats.uid !== uid) throw new FormatboxError('PATH_REFUSED', `the socket ${path} belongs to uid ${stats.uid}, not to you (uid ${uid}); refusing it`);
  if ((stats.mode & 0o077) !== 0) throw new FormatboxError('PATH_REFUSED', `the socket ${path} has mode ${(stats.mode & 0o777).toString(8)}; it must be 0600`);
}

/** The peer did not prove it is this user's: nothing was sent to it but the hello. */
export class PeerRefused extends Error {
  override name = 'PeerRefused';
}

/**
 * The client's side. Resolves `{}` once the server has proved itself and the client's proof is sent;
 * `{other}` when the server answered the hello with something else (not trusted: only shown to the
 * caller, which decides); rejects with PeerRefused when the proof is wrong or missing.
 */
export async function authenticateServer(socket: Socket, secret: Buffer, hello: Record<string, unknown> = {}, timeoutMs = HANDSHAKE_TIMEOUT_MS): Promise<{ other?: unknown }> {
  const nonce = freshNonce();
  socket.write(JSON.stringify({ ...hello, auth: 1, nonce }) + '\n');
  const line = await readLine(socket, timeoutMs);
  let answer: { nonce?: unknown; proof?: unknown };
  try {
    answer = JSON.parse(line) as typeof answer;
  } catch {
    throw new PeerRefused('the server\'s handshake is not JSON');
  }
  if (!answer || typeof answer !== 'object') throw new PeerRefused('the server\'s handshake is not an object');
  if (answer.proof === undefined && answer.nonce === undefined) return { other: answer };
  if (typeof answer.nonce !== 'string' || !/^[0-9a-f]{32}$/.test(answer.nonce)) throw new PeerRefused('the server sent no valid nonce');
  if (!proofMatches(secretProof(secret, 'server', nonce, answer.nonce), answer.proof)) {
    throw new PeerRefused('the server could not prove it runs as you (it does not know your per-user secret)');
  }
  socket.write(JSON.stringify({ proof: secretProof(secret, 'client', nonce, answer.nonce) }) + '\n');
  return {};
}

/**
 * The server's side, fed the connection's lines in order. `onHello` may answer a hello itself (a
 * version mismatch); the connection then ends. Returns for each line whether it is a request to act on.
 */
export function serverHandshake(socket: Socket, secret: Buffer, onHello?: (hello: Record<string, unknown>) => unknown): (line: string) => boolean {
  let state: 'hello' | 'proof' | 'ready' | 'refused' = 'hello';
  let clientNonce = '';
  let serverNonce = '';
  const timer = setTimeout(() => refuse(), HANDSHAKE_TIMEOUT_MS);
  timer.unref();
  function refuse(): void {
    state = 'refused';
    clearTimeout(timer);
    socket.destroy();
  }
  return (line: string): boolean => {
    if (state === 'ready') return true;
    if (state === 'refused') return false;
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
      if (!message || typeof message !== 'object' || Array.isArray(message)) throw new Error('not an object');
    } catch {
      refuse();
      return false;
    }
    if (state === 'hello') {
      // First, so that a client of another version (which may not know the handshake) is told so.
      const answer = onHello?.(message);
      if (answer !== undefined) {
        clearTimeout(timer);
        state = 'refused';
        socket.end(JSON.stringify(answer) + '\n');
        return false;
      }
      if (message.auth !== 1 || typeof message.nonce !== 'string' || !/^[0-9a-f]{32}$/.test(message.nonce)) {
        refuse();
        return false;
      }
      clientNonce = message.nonce;
      serverNonce = freshNonce();
      state = 'proof';
      socket.write(JSON.stringify({ nonce: serverNonce, proof: secretProof(secret, 'server', clientNonce, serverNonce) }) + '\n');
      return false;
    }
    if (!proofMatches(secretProof(secret, 'client', clientNonce, serverNonce), message.proof)) {
      refuse();
      return false;
    }
    clearTimeout(timer);
    state = 'ready';
    return false;
  };
}

/** One line from `socket` (the handshake), at most MAX_HANDSHAKE_BYTES; data after it is not expected. */
function readLine(socket: Socket, timeoutMs: number): Promise<string> {
  return new Promise((done, fail) => {
    let buffer = '';
    const finish = (error: Error | undefined, line?: string): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', onClose);
      if (error) fail(error);
      else done(line as string);
    };
    const onData = (chunk: Buffer | string): void => {
      buffer += chunk.toString();
      const end = buffer.indexOf('\n');
      if (end >= 0) finish(undefined, buffer.slice(0, end));
      else if (buffer.length > MAX_HANDSHAKE_BYTES) finish(new PeerRefused('the server\'s handshake is too long'));
    };
    const onError = (error: Error): void => finish(error);
    const onClose = (): void => finish(new PeerRefused('the server closed the connection during the handshake'));
    const timer = setTimeout(() => finish(new PeerRefused(`no handshake from the server within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', onData);
    socket.on('error', onError);
    socket.on('close', onClose);
  });
}
