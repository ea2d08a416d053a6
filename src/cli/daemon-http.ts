/**
 * The daemon's loopback HTTP endpoint for Claude Code's `"type": "http"` hooks: Claude Code POSTs
 * the PostToolUse event JSON to `http://127.0.0.1:PORT/hook/claude-code` and reads the same JSON a
 * command hook prints, with no process started per edit.
 *
 * Every local user can reach 127.0.0.1, so nothing is answered without `Authorization: Bearer
 * <secret>` naming a secret the daemon knows (hook-secret.ts); the token is checked before the body
 * is read. The Host header must be the loopback address itself (a web page that rebinds a DNS name
 * to 127.0.0.1 cannot pass). Bodies are bounded; a bad body is answered `{}` (say nothing, never
 * block the edit).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { messageOf } from '../core/errors.js';
import { HTTP_HOOK_PATH } from '../agents/claude-code/wire.js';
import { bearerToken } from './hook-secret.js';

/** An event carries the file before and after the edit; formatbox refuses inputs over 2 MiB anyway. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Ports one daemon serves at most (one per settings file that names its own). */
const MAX_PORTS = 4;

type ListenResult = { port: number; listening: true } | { port: number; listening: false; error: string };

interface HttpHookOptions<Grant> {
  /** What a token grants (the caller's settings), or undefined: refused. */
  authorize(token: string): Grant | undefined;
  /** The hook's JSON answer for one event (`{}` for nothing to say). */
  answer(event: unknown, grant: Grant, projectDir: string | undefined): Promise<unknown>;
  /** +1 when a request starts, -1 when it ends (the daemon's idle clock). */
  busy(delta: 1 | -1): void;
}

export interface HttpHooks {
  listen(port: number): Promise<ListenResult>;
  ports(): number[];
  close(): Promise<void>;
}

export function createHttpHooks<Grant>(options: HttpHookOptions<Grant>): HttpHooks {
  const servers = new Map<number, Server>();

  function listen(port: number): Promise<ListenResult> {
    if (!Number.isInteger(port) || port < 1 || port > 65535) return Promise.resolve({ port, listening: false, error: `not a port: ${port}` });
    if (servers.has(port)) return Promise.resolve({ port, listening: true });
    if (servers.size >= MAX_PORTS) return Promise.resolve({ port, listening: false, error: `this daemon already serves ${MAX_PORTS} ports` });
    const server = createServer((request, response) => void serve(request, response, port));
    server.requestTimeout = 120_000;
    return new Promise((done) => {
      server.once('error', (error) => done({ port, listening: false, error: messageOf(error) }));
      server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
        server.removeAllListeners('error');
        server.on('error', () => undefined);
        servers.set(port, server);
        done({ port, listening: true });
      });
    });
  }

  async function serve(request: IncomingMessage, response: ServerResponse, port: number): Promise<void> {
    options.busy(1);
    try {
      const path = (request.url ?? '').split('?')[0];
      if (request.method !== 'POST' || path !== HTTP_HOOK_PATH) return reply(response, 404, { error: 'not found' });
      const host = request.headers.host ?? '';
      if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) return reply(response, 403, { error: 'the Host must be 127.0.0.1' });
      const token = bearerToken(request.headers.authorization);
      const grant = token === undefined ? undefined : options.authorize(token);
      if (grant === undefined) return reply(response, 401, { error: 'a formatbox hook secret is needed (Authorization: Bearer $FORMATBOX_HOOK_SECRET)' });
      const body = await readBody(request);
      if (body === undefined) return reply(response, 413, { error: `the event is over ${MAX_BODY_BYTES} bytes` });
      let event: unknown;
      try {
        event = JSON.parse(body);
      } catch {
        return reply(response, 200, {}); // not an event: say nothing
      }
      const projectDir = request.headers['x-formatbox-project-dir'];
      const dir = typeof projectDir === 'string' && projectDir.startsWith('/') ? projectDir : undefined;
      return reply(response, 200, await options.answer(event, grant, dir));
    } catch (error) {
      // Claude Code shows a non-2xx answer as a hook error and goes on: the edit is never blocked.
      return reply(response, 500, { error: messageOf(error) });
    } finally {
      options.busy(-1);
    }
  }

  return {
    listen,
    ports: () => [...servers.keys()],
    async close() {
      await Promise.all([...servers.values()].map((server) => new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      })));
      servers.clear();
    },
  };
}

function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_BODY_BYTES) {
        request.destroy();
        done(undefined);
      } else chunks.push(chunk);
    });
    request.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
    request.on('error', fail);
  });
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), connection: 'keep-alive' });
  response.end(text);
}
