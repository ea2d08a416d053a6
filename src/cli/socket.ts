/**
 * `formatbox serve --socket PATH`: the same JSON lines as `serve`, on a Unix socket, so short-lived
 * clients (the Claude Code hook, run once per edit) reach a warm process instead of compiling the
 * formatters' wasm again. The socket is created with mode 0600 in a private directory, and both
 * sides prove they run as the same user before a request is sent (socket-auth.ts); a socket that
 * fails either check is refused, and the hook formats in its own process. A stale socket file left
 * by a dead server is replaced, a live one is an error.
 */
import { existsSync, lstatSync, statSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { FormatboxError } from '../core/errors.js';
import { answerLine, type CliResult, type RequestHandler } from '../node/service/requests.js';
import { authenticateServer, checkSocketPath, serverHandshake } from './socket-auth.js';
import { readOrCreateUserSecret } from './user-secret.js';

/** Listens on `path` until the process is told to stop; resolves when the server has closed. */
export async function serveSocket(path: string, handler: RequestHandler): Promise<void> {
  if (existsSync(path)) {
    if (!lstatSync(path).isSocket()) throw new FormatboxError('INVALID_REQUEST', `${path} exists and is not a socket`);
    if (await reachable(path)) throw new FormatboxError('INVALID_REQUEST', `a formatbox server is already listening on ${path}`);
    unlinkSync(path);
  }
  let secret: Buffer | undefined;
  const server: Server = createServer((socket) => (secret ? serveConnection(socket, handler, secret) : socket.destroy()));
  await listenPrivately(server, path);
  secret = readOrCreateUserSecret(dirname(path));
  process.stderr.write(`formatbox: serving on ${path}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => server.close(() => resolve());
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/**
 * Listens on a Unix socket created with mode 0600. A missing directory or a refused path is a
 * clear INVALID_REQUEST, not a stack trace.
 */
export async function listenPrivately(server: Server, path: string): Promise<void> {
  const dir = dirname(path);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new FormatboxError('INVALID_REQUEST', `cannot listen on ${path}: the directory ${dir} does not exist (create it first, mode 0700)`);
  }
  checkSocketPath(path);
  const previous = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
  } catch (error) {
    throw new FormatboxError('INVALID_REQUEST', `cannot listen on ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  } finally {
    process.umask(previous);
  }
}

/** One connection: requests answered in order, one line each. */
function serveConnection(socket: Socket, handler: RequestHandler, secret: Buffer): void {
  const lines = createInterface({ input: socket, crlfDelay: Infinity });
  const authenticated = serverHandshake(socket, secret);
  let queue = Promise.resolve();
  lines.on('line', (line) => {
    if (line.trim() === '' || !authenticated(line)) return;
    queue = queue.then(async () => {
      const reply = await answerLine(line, handler);
      if (!socket.destroyed) socket.write(JSON.stringify(reply) + '\n');
    });
  });
  socket.on('error', () => socket.destroy());
}

/** Whether something answers a connect on `path`. */
export function reachable(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/**
 * A handler that forwards requests to the server on `path`, or undefined when none answers there or
 * the socket or its peer is refused (said on stderr: the caller then formats in its own process).
 * Error replies come back as FormatboxErrors with the server's code.
 */
export async function connectHandler(path: string, timeoutMs = 60_000): Promise<RequestHandler | undefined> {
  let secret: Buffer;
  try {
    checkSocketPath(path);
    secret = readOrCreateUserSecret(dirname(path));
  } catch (error) {
    process.stderr.write(`formatbox: not using the socket ${path}: ${(error as Error).message}; formatting in this process\n`);
    return undefined;
  }
  const socket = await new Promise<Socket | undefined>((resolve) => {
    const attempt = connect(path);
    attempt.once('connect', () => resolve(attempt));
    attempt.once('error', () => resolve(undefined));
  });
  if (!socket) return undefined;
  try {
    const { other } = await authenticateServer(socket, secret);
    if (other !== undefined) throw new Error('the server answered the handshake with something else');
  } catch (error) {
    socket.destroy();
    process.stderr.write(`formatbox: not using the socket ${path}: ${(error as Error).message}; formatting in this process\n`);
    return undefined;
  }
  const replies = createInterface({ input: socket, crlfDelay: Infinity })[Symbol.asyncIterator]();
  return {
    async handle(request: unknown): Promise<CliResult> {
      socket.write(JSON.stringify(request) + '\n');
      let timer: ReturnType<typeof setTimeout> | undefined;
      const next = await Promise.race([
        replies.next(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new FormatboxError('INVALID_REQUEST', `no answer from ${path} within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]).finally(() => clearTimeout(timer));
      if (next.done) throw new FormatboxError('INVALID_REQUEST', `the server on ${path} closed the connection`);
      const reply = JSON.parse(next.value as string) as CliResult & { error?: { code: string; message: string } };
      if (reply.error) throw new FormatboxError(reply.error.code as never, reply.error.message);
      return reply;
    },
    async close(): Promise<void> {
      socket.end();
    },
  };
}
