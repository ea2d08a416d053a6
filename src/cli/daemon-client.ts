/**
 * The thin side of the per-user daemon: find it, start it when nobody answers, send one request,
 * read one reply. Loads no formatter and no engine (Node builtins only), so a hooked edit costs
 * Node's start, a connect and the warm daemon's work.
 *
 * Starting: the first caller that takes the lock file (O_EXCL) spawns `formatbox daemon run`
 * detached; every other caller waits for the socket to answer. A lock left by a dead process is
 * broken. A stale socket (the daemon was killed) is removed by the lock holder before it starts a
 * new daemon. Every request carries the caller's version; a daemon of another version answers
 * `mismatch` without acting and exits, and the caller starts its own.
 */
import { closeSync, lstatSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { processAlive } from '../node/process-alive.js';
import { preparePrivateDir, type DaemonPaths } from './daemon-paths.js';
import { authenticateServer, checkSocketPath, PeerRefused } from './socket-auth.js';
import { readOrCreateUserSecret } from './user-secret.js';
import { defaultUserConfigPath, flagOverrides, userConfigNamed, type FlagOverrides } from '../node/service/user-config-path.js';

/** The caller's settings, sent with every request: the daemon keeps state per (root, config, trust). */
export interface DaemonSettings {
  /** The user config as this caller sees it: its file and text, or why it could not be read. */
  config?: { file: string; text?: string; error?: string };
  trust?: 'trusted';
  /** The caller's `--mode` and `--timeout-ms`, over its user config (user-config.ts `withFlagOverrides`). */
  overrides?: FlagOverrides;
}

/** One line from client to daemon. */
export interface DaemonEnvelope {
  /** The client's formatbox version; a daemon of another version does not act on the request. */
  v: string;
  op: 'status' | 'stop' | 'request' | 'hook' | 'session';
  settings?: DaemonSettings;
  /** The caller's --root or cwd (requests arrive placed in their root by the thin entry: request-root.ts). */
  root?: string;
  /** op 'request': a CLI request (see requests.ts). */
  request?: unknown;
  /** op 'hook': the agent (its name in src/agents/registry.ts), its hook event, and the caller's cwd and $CLAUDE_PROJECT_DIR. */
  hook?: { agent: string; event: unknown; cwd: string; projectDir?: string };
  /** op 'session': a Claude Code session that uses the http hook (daemon-http.ts): its port, its secret, its process. */
  session?: { port?: number; secret?: string; pid?: number };
}

/** One line from daemon to client. */
export type DaemonReply = { ok: unknown } | { error: { code: string; message: string } } | { mismatch: { version: string } };

const MAX_SOCKET_PATH_BYTES = 103;

/** No daemon could be reached or started: nothing was sent, so the caller may work in-process. */
export class DaemonUnavailable extends Error {
  override name = 'DaemonUnavailable';
}

interface CallOptions {
  paths: DaemonPaths;
  /** How to start the daemon: argv after the Node binary (the CLI entry, `daemon run`, …). */
  startArgs: string[];
  /** How long to wait for a reply once the request is sent. */
  replyTimeoutMs?: number;
  /** How long starting (or replacing) the daemon may take. */
  startTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/** What the caller's flags and environment say the settings are. */
export function settingsFor(flags: { config?: string; trusted?: boolean; mode?: FlagOverrides['mode']; timeoutMs?: number }, env: NodeJS.ProcessEnv = process.env): DaemonSettings {
  const file = resolve(flags.config ?? defaultUserConfigPath(env));
  let config: DaemonSettings['config'];
  try {
    config = { file, text: readFileSync(file, 'utf8') };
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    if (!missing || userConfigNamed(flags.config, env)) config = { file, error: `cannot read the user config ${file}: ${(error as Error).message}` };
  }
  const overrides = flagOverrides(flags);
  return { ...(config ? { config } : {}), ...(flags.trusted ? { trust: 'trusted' as const } : {}), ...(overrides ? { overrides } : {}) };
}

/**
 * Sends `envelope` to the daemon, starting or replacing it as needed. Throws DaemonUnavailable when
 * no daemon could be reached (nothing was sent); any other error means the request may have run.
 */
export async function callDaemon(envelope: DaemonEnvelope, options: CallOptions): Promise<DaemonReply> {
  const { paths } = options;
  // Unix socket paths are limited to about 104 bytes; a longer one could never be listened on.
  if (Buffer.byteLength(paths.socket) > MAX_SOCKET_PATH_BYTES) throw new DaemonUnavailable(`the socket path ${paths.socket} is too long for a Unix socket`);
  let secret: Buffer;
  try {
    preparePrivateDir(paths.dir);
    secret = readOrCreateUserSecret(paths.dir);
  } catch (error) {
    throw new DaemonUnavailable((error as Error).message);
  }
  const deadline = Date.now() + (options.startTimeoutMs ?? 15_000);
  for (;;) {
    const socket = (await tryConnect(paths.socket)) ?? (await startAndConnect(options, deadline));
    const reply = await exchange(socket, envelope, options.replyTimeoutMs ?? 120_000, secret);
    if (!('mismatch' in reply)) return reply;
    // A daemon of another version: it has not acted and is exiting. Wait for it to go, then start ours.
    if (Date.now() > deadline) throw new DaemonUnavailable(`a formatbox ${reply.mismatch.version} daemon on ${paths.socket} did not make way for ${envelope.v}`);
    await waitUntilUnreachable(paths.socket, deadline);
  }
}

/** Only connects: never starts a daemon (`daemon status`, `daemon stop`). Undefined when none answers. */
export async function askRunningDaemon(envelope: DaemonEnvelope, paths: DaemonPaths, timeoutMs = 10_000): Promise<DaemonReply | undefined> {
  const socket = await tryConnect(paths.socket);
  if (!socket) return undefined;
  try {
    return await exchange(socket, envelope, timeoutMs, readOrCreateUserSecret(paths.dir));
  } catch (error) {
    socket.destroy();
    throw error;
  }
}

/** Connects when the path passes checkSocketPath (else DaemonUnavailable); undefined when nothing answers. */
function tryConnect(path: string): Promise<Socket | undefined> {
  // Nothing there (no daemon yet, perhaps not even its directory): nothing answers.
  if (!lstatSync(path, { throwIfNoEntry: false })) return Promise.resolve(undefined);
  try {
    checkSocketPath(path);
  } catch (error) {
    return Promise.reject(new DaemonUnavailable((error as Error).message));
  }
  return new Promise((done) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      done(socket);
    });
    socket.once('error', () => done(undefined));
  });
}

async function startAndConnect(options: CallOptions, deadline: number): Promise<Socket> {
  const { paths } = options;
  while (Date.now() < deadline) {
    if (takeLock(paths.lock)) {
      try {
        const already = await tryConnect(paths.socket);
        if (already) return already;
        removeStaleSocket(paths.socket);
        const started = await spawnDaemon(options);
        const socket = await connectWhenUp(paths.socket, deadline, started);
        if (socket) return socket;
        if (started.exited) throw new DaemonUnavailable(`the formatbox daemon exited as it started; see ${paths.log}`);
      } finally {
        releaseLock(paths.lock);
      }
      break;
    }
    const socket = await tryConnect(paths.socket);
    if (socket) return socket;
    breakStaleLock(paths.lock);
    await sleep(15);
  }
  throw new DaemonUnavailable(`the formatbox daemon did not start in time; see ${paths.log}`);
}

/** Whether the daemon process this caller spawned has exited (it exits at once when it cannot listen). */
interface Started {
  exited: boolean;
}

async function spawnDaemon(options: CallOptions): Promise<Started> {
  // Loaded only here: every call but the first needs no child_process (about 1.5 ms of Node's start).
  const { spawn } = await import('node:child_process');
  const log = openSync(options.paths.log, 'a', 0o600);
  try {
    const child = spawn(process.execPath, [...process.execArgv, ...options.startArgs, '--socket', options.paths.socket], {
      detached: true,
      stdio: ['ignore', log, log],
      cwd: '/',
      env: options.env ?? process.env,
    });
    const started: Started = { exited: false };
    child.once('exit', () => (started.exited = true));
    child.once('error', () => (started.exited = true));
    child.unref();
    return started;
  } finally {
    closeSync(log);
  }
}

async function connectWhenUp(path: string, deadline: number, started: Started): Promise<Socket | undefined> {
  while (Date.now() < deadline) {
    const exitedBefore = started.exited;
    const socket = await tryConnect(path);
    if (socket) return socket;
    if (exitedBefore) return undefined; // It exited and nobody else answers: it will not come up.
    await sleep(10);
  }
  return undefined;
}

async function waitUntilUnreachable(path: string, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    const socket = await tryConnect(path);
    if (!socket) return;
    socket.destroy();
    await sleep(10);
  }
}

/** A socket file nobody answers on is left by a killed daemon; anything that is not a socket is left alone. */
function removeStaleSocket(path: string): void {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (stats?.isSocket()) unlinkSync(path);
}

function takeLock(path: string): boolean {
  try {
    const fd = openSync(path, 'wx', 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch {
    return false;
  }
}

function releaseLock(path: string): void {
  try {
    if (readFileSync(path, 'utf8') === String(process.pid)) unlinkSync(path);
  } catch {
    // gone already
  }
}

/** A lock whose holder is gone (or older than 30 s: a reused pid) is removed. */
function breakStaleLock(path: string): void {
  try {
    const holder = Number(readFileSync(path, 'utf8'));
    const age = Date.now() - statSync(path).mtimeMs;
    if (age > 30_000 || (holder > 0 && !processAlive(holder)) || (!holder && age > 1_000)) unlinkSync(path);
  } catch {
    // gone already
  }
}


/** The handshake (the daemon proves it runs as this user), then one envelope and its reply. */
async function exchange(socket: Socket, envelope: DaemonEnvelope, timeoutMs: number, secret: Buffer): Promise<DaemonReply> {
  let other: unknown;
  try {
    ({ other } = await authenticateServer(socket, secret, { v: envelope.v }));
  } catch (error) {
    socket.destroy();
    // Nothing but the hello reached the peer: the caller may format in-process.
    if (error instanceof PeerRefused) throw new DaemonUnavailable(`refusing the daemon on its socket: ${error.message}`);
    throw error;
  }
  if (other !== undefined) {
    socket.destroy();
    const mismatch = (other as { mismatch?: { version?: unknown } }).mismatch;
    if (mismatch && typeof mismatch.version === 'string') return { mismatch: { version: mismatch.version } };
    throw new DaemonUnavailable('the daemon answered the handshake with something else');
  }
  return sendEnvelope(socket, envelope, timeoutMs);
}

function sendEnvelope(socket: Socket, envelope: DaemonEnvelope, timeoutMs: number): Promise<DaemonReply> {
  return new Promise((done, fail) => {
    let buffer = '';
    const timer = setTimeout(() => finish(new Error(`no answer from the formatbox daemon within ${timeoutMs} ms`)), timeoutMs);
    const finish = (error: Error | undefined, reply?: DaemonReply): void => {
      clearTimeout(timer);
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.destroy();
      if (error) fail(error);
      else done(reply as DaemonReply);
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf('\n');
      if (end < 0) return;
      try {
        finish(undefined, JSON.parse(buffer.slice(0, end)) as DaemonReply);
      } catch (error) {
        finish(new Error(`the formatbox daemon sent a bad reply: ${(error as Error).message}`));
      }
    });
    socket.on('error', (error) => finish(error));
    socket.on('close', () => finish(new Error('the formatbox daemon closed the connection before answering')));
    socket.write(JSON.stringify(envelope) + '\n');
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
