/**
 * `formatbox daemon run`: the per-user daemon the thin client starts (daemon-client.ts). One
 * process serves every root: state is kept per (config, trust) as request handlers, and per root
 * inside each handler, over shared worker pools, so the wasm stays warm for everyone. Each request
 * carries its caller's settings; one caller's config or trust never applies to another's request.
 *
 * It exits after `idleMs` without a request (default 15 minutes, `$FORMATBOX_DAEMON_IDLE_MS`), on
 * SIGTERM/SIGINT, on `daemon stop`, and when a client of another version asks (that client then
 * starts its own). It removes its socket only while the file is still the one it created.
 */
import { createPinnedFormatters, type PinnedFormatters } from '../node/pinned-formatters.js';
import { createHash } from 'node:crypto';
import { lstatSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { DEFAULT_LIMITS } from '../core/engine.js';
import { FormatboxError, messageOf } from '../core/errors.js';
import type { UserConfig } from '../core/types.js';
import { createWorkerPool, type WorkerPool } from '../node/index.js';
import type { DaemonEnvelope, DaemonReply, DaemonSettings } from './daemon-client.js';
import { checkPrivateDir } from './daemon-paths.js';
import { claudeCodeHook, type ClaudeCodeHookInput } from './hook-claude-code.js';
import { createRequestHandler, errorReply, type RequestHandler } from './requests.js';
import { listenPrivately, reachable } from './socket.js';
import { parseUserConfig } from './user-config.js';

/** 15 minutes. */
export const DEFAULT_IDLE_MS = 15 * 60 * 1000;
/** Most (config, trust) combinations kept at once; the least recently used is closed first. */
const MAX_SETTINGS = 8;

export interface DaemonOptions {
  socket: string;
  /** The package version (shown by `daemon status`). */
  version: string;
  /** What clients must match (the version and the build, see formatboxBuildId). */
  build: string;
  idleMs: number;
}

interface SettingsState {
  handler: RequestHandler;
  config?: UserConfig;
}

/** Runs until idle, stopped or replaced. Resolves once the socket is closed and removed. */
export async function runDaemon(options: DaemonOptions): Promise<void> {
  checkPrivateDir(dirname(options.socket));
  if (await reachable(options.socket)) {
    process.stderr.write(`formatbox daemon: one already answers on ${options.socket}\n`);
    return;
  }
  if (lstatSync(options.socket, { throwIfNoEntry: false })?.isSocket()) unlinkSync(options.socket);

  const pools = new Map<number, WorkerPool>();
  /** One store of pinned versions for every root and settings (per call timeout, as the pools). */
  const pinnedByTimeout = new Map<number, PinnedFormatters>();
  const states = new Map<string, SettingsState>();
  const started = Date.now();
  let requests = 0;
  let active = 0;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let stopping: Promise<void> | undefined;
  let stopped!: () => void;
  const done = new Promise<void>((resolve) => (stopped = resolve));

  const server: Server = createServer((socket) => serve(socket));
  await listenPrivately(server, options.socket);
  const ownInode = lstatSync(options.socket).ino;
  process.stderr.write(`formatbox daemon ${options.build} (pid ${process.pid}): serving on ${options.socket}, idle exit after ${options.idleMs} ms\n`);
  armIdle();
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));

  function armIdle(): void {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = active === 0 ? setTimeout(() => void stop(`idle for ${options.idleMs} ms`), options.idleMs) : undefined;
    idleTimer?.unref();
  }

  function serve(socket: Socket): void {
    active++;
    armIdle();
    const lines = createInterface({ input: socket, crlfDelay: Infinity });
    let queue = Promise.resolve();
    lines.on('line', (line) => {
      if (line.trim() === '') return;
      queue = queue.then(async () => {
        const reply = await answer(line);
        if (!socket.destroyed) socket.write(JSON.stringify(reply) + '\n');
      });
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      active--;
      armIdle();
    });
  }

  async function answer(line: string): Promise<DaemonReply> {
    let envelope: DaemonEnvelope;
    try {
      envelope = JSON.parse(line) as DaemonEnvelope;
      if (!envelope || typeof envelope !== 'object') throw new Error('not an object');
    } catch (error) {
      return { error: { code: 'INVALID_REQUEST', message: `not a daemon request: ${messageOf(error)}` } };
    }
    if (envelope.v !== options.build) {
      // Another formatbox install: act on nothing, make way for a daemon of the caller's version.
      setImmediate(() => void stop(`replaced by formatbox ${String(envelope.v)}`));
      return { mismatch: { version: options.build } };
    }
    requests++;
    try {
      switch (envelope.op) {
        case 'status':
          return { ok: status() };
        case 'stop':
          setImmediate(() => void stop('daemon stop'));
          return { ok: { stopping: true, pid: process.pid } };
        case 'hook':
          return { ok: await hook(envelope) };
        case 'request': {
          const state = stateFor(envelope.settings);
          const request = envelope.request && typeof envelope.request === 'object' && !Array.isArray(envelope.request)
            ? { root: envelope.root, ...(envelope.request as object) }
            : envelope.request;
          return { ok: await state.handler.handle(request) };
        }
        default:
          throw new FormatboxError('INVALID_REQUEST', `unknown daemon op ${JSON.stringify(envelope.op)}`);
      }
    } catch (error) {
      return { error: errorReply(undefined, error).error };
    }
  }

  async function hook(envelope: DaemonEnvelope): Promise<unknown> {
    const state = stateFor(envelope.settings);
    const { event, cwd, projectDir } = envelope.hook ?? { event: undefined, cwd: '/' };
    if (!event || typeof event !== 'object' || Array.isArray(event)) return {};
    const withCwd = { cwd, ...(event as ClaudeCodeHookInput) };
    const maxDiffChars = state.config?.maxDiffChars ?? DEFAULT_LIMITS.maxDiffChars;
    const output = await claudeCodeHook(withCwd, state.handler, projectDir ? { CLAUDE_PROJECT_DIR: projectDir } : {}, { maxDiffChars });
    return output ? { output } : {};
  }

  function stateFor(settings: DaemonSettings | undefined): SettingsState {
    const config = settings?.config;
    if (config?.error) throw new FormatboxError('INVALID_CONFIG', config.error);
    const trust = settings?.trust === 'trusted' ? 'trusted' : 'untrusted';
    const key = createHash('sha256').update(JSON.stringify([config?.text ?? null, trust])).digest('hex');
    const existing = states.get(key);
    if (existing) {
      states.delete(key);
      states.set(key, existing);
      return existing;
    }
    const parsed = config?.text !== undefined ? parseUserConfig(config.text, config.file) : undefined;
    const timeoutMs = parsed?.timeoutMs ?? DEFAULT_LIMITS.timeoutMs;
    let pool = pools.get(timeoutMs);
    if (!pool && trust !== 'trusted') pools.set(timeoutMs, (pool = createWorkerPool({ timeoutMs })));
    let pinned = pinnedByTimeout.get(timeoutMs);
    if (!pinned) pinnedByTimeout.set(timeoutMs, (pinned = createPinnedFormatters({ timeoutMs })));
    const handler = createRequestHandler({
      defaultRoot: '/',
      pinned,
      ...(parsed ? { config: parsed } : {}),
      trust,
      ...(pool ? { pool } : {}),
    });
    const state: SettingsState = { handler, ...(parsed ? { config: parsed } : {}) };
    states.set(key, state);
    while (states.size > MAX_SETTINGS) {
      const [oldestKey, oldest] = states.entries().next().value as [string, SettingsState];
      states.delete(oldestKey);
      void oldest.handler.close();
    }
    return state;
  }

  function status(): Record<string, unknown> {
    return {
      version: options.version,
      build: options.build,
      pid: process.pid,
      socket: options.socket,
      uptimeMs: Date.now() - started,
      idleExitMs: options.idleMs,
      requests,
      settings: states.size,
      pools: pools.size,
    };
  }

  function stop(why: string): Promise<void> {
    stopping ??= (async () => {
      process.stderr.write(`formatbox daemon (pid ${process.pid}): stopping: ${why}\n`);
      if (idleTimer) clearTimeout(idleTimer);
      removeOwnSocket();
      // In-flight requests finish; a client that never hangs up does not keep the daemon alive.
      await Promise.race([new Promise<void>((resolve) => server.close(() => resolve())), new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref())]);
      for (const state of states.values()) await state.handler.close();
      for (const pool of pools.values()) await pool.close();
      for (const pinned of pinnedByTimeout.values()) await pinned.close();
      stopped();
    })();
    return stopping;
  }

  function removeOwnSocket(): void {
    try {
      if (lstatSync(options.socket).ino === ownInode) unlinkSync(options.socket);
    } catch {
      // gone already
    }
  }

  await done;
}
