/**
 * `formatbox daemon run`: the per-user daemon the thin client starts (daemon-client.ts). One
 * process serves every root: state is kept per (config, trust) as request handlers, and per root
 * inside each handler, over shared worker pools, so the wasm stays warm for everyone. Each request
 * carries its caller's settings; one caller's config or trust never applies to another's request.
 *
 * It exits after `idleMs` without a request (default 15 minutes, `$FORMATBOX_DAEMON_IDLE_MS`), on
 * SIGTERM/SIGINT, on `daemon stop`, and when a client of another version asks (that client then
 * starts its own). It removes its socket only while the file is still the one it created.
 *
 * It also answers Claude Code's `http` hook on a loopback port (daemon-http.ts), once a session
 * asks for it: the SessionStart command hook sends `op: 'session'` with the port, the secret its
 * settings hand the http hook and the Claude Code process's pid. The daemon then accepts that
 * secret (with that caller's settings) besides its own (hook-secret.ts), and does not exit idle
 * while a registered session's process lives, so the http hook never finds the port closed.
 */
import { createPinnedFormatters, type PinnedFormatters } from '../node/pinned-formatters.js';
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { resolveLimits } from '../config/limits.js';
import { FormatboxError, messageOf } from '../core/errors.js';
import type { UserConfig } from '../core/types.js';
import { createWorkerPool, type WorkerPool } from '../node/index.js';
import { settingsFor, type DaemonEnvelope, type DaemonReply, type DaemonSettings } from './daemon-client.js';
import { hookAgentNames, hookOf } from '../agents/registry.js';
import { flagOverrides, type FlagOverrides } from '../node/service/user-config-path.js';
import { createHttpHooks, type HttpHooks } from './daemon-http.js';
import { checkPrivateDir } from './daemon-paths.js';
import { isSecretShaped, readOrCreateSecret, sameSecret } from './hook-secret.js';
import { createRequestHandler, errorReply, type RequestHandler } from '../node/service/requests.js';
import { listenPrivately, reachable } from './socket.js';
import { serverHandshake } from './socket-auth.js';
import { readOrCreateUserSecret } from './user-secret.js';
import { parseUserConfig } from '../node/service/user-config.js';
import { stopIdleProjectToolchains } from '../node/project-toolchain/index.js';

/** 15 minutes. */
export const DEFAULT_IDLE_MS = 15 * 60 * 1000;
/** Most (config, trust) combinations kept at once; the least recently used is closed first. */
const MAX_SETTINGS = 8;
/** Most http-hook secrets registered at once (sessions with their own settings). */
const MAX_GRANTS = 32;
/**
 * The daemon's memory ceiling (RSS): above it, after a request, every idle (config, trust) state but
 * the latest is closed with its runtimes, and a worker pool no state uses any more with it.
 * `$FORMATBOX_DAEMON_MAX_RSS_MB` sets it.
 */
export const DEFAULT_MAX_RSS_MB = 1024;

interface DaemonOptions {
  socket: string;
  /** The package version (shown by `daemon status`). */
  version: string;
  /** What clients must match (the version and the build, see formatboxBuildId). */
  build: string;
  idleMs: number;
  /** The memory ceiling (MB of RSS); default DEFAULT_MAX_RSS_MB. */
  maxRssMb?: number;
}

interface SettingsState {
  handler: RequestHandler;
  config?: UserConfig;
  /** The shared worker pool it uses (its timeout), when untrusted. */
  poolKey?: number;
  /** Requests running on it: a state is closed only when none is. */
  inFlight: number;
}

/** What an http-hook secret grants: the settings of the session that registered it, and its processes. */
interface Grant {
  secret: string;
  settings: DaemonSettings | undefined;
  pids: Set<number>;
}

/** Runs until idle, stopped or replaced. Resolves once the socket is closed and removed. */
export async function runDaemon(options: DaemonOptions): Promise<void> {
  checkPrivateDir(dirname(options.socket));
  // Clients prove they run as this user before any request is read (socket-auth.ts).
  const secret = readOrCreateUserSecret(dirname(options.socket));
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
  const maxRssMb = options.maxRssMb ?? DEFAULT_MAX_RSS_MB;
  let evictions = 0;
  let requests = 0;
  let active = 0;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let stopping: Promise<void> | undefined;
  let stopped!: () => void;
  const done = new Promise<void>((resolve) => (stopped = resolve));

  const grants: Grant[] = [];
  const ownSecret = readOrCreateSecret(dirname(options.socket));
  grants.push({ secret: ownSecret, settings: settingsFor({}), pids: new Set() });
  const http: HttpHooks = createHttpHooks<Grant>({
    authorize: (token) => grants.find((grant) => sameSecret(token, grant.secret)),
    answer: async (event, grant, projectDir) => {
      const cwd = event && typeof event === 'object' && typeof (event as { cwd?: unknown }).cwd === 'string' ? (event as { cwd: string }).cwd : '/';
      // The command hook gets $CLAUDE_PROJECT_DIR; an http hook gets it only where Claude Code can
      // interpolate it into the header, else the session's cwd stands for it (files outside: silence).
      const dir = projectDir ?? (cwd.startsWith('/') && cwd !== '/' ? cwd : undefined);
      return (await hook({ v: options.build, op: 'hook', ...(grant.settings ? { settings: grant.settings } : {}), hook: { agent: 'claude-code', event, cwd, ...(dir ? { projectDir: dir } : {}) } }) as { output?: unknown }).output ?? {};
    },
    busy: (delta) => {
      active += delta;
      if (delta === 1) requests++;
      armIdle();
    },
  });

  const server: Server = createServer((socket) => serve(socket));
  await listenPrivately(server, options.socket);
  const ownInode = lstatSync(options.socket).ino;
  process.stderr.write(`formatbox daemon ${options.build} (pid ${process.pid}): serving on ${options.socket}, idle exit after ${options.idleMs} ms\n`);
  armIdle();
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));

  function armIdle(): void {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = active === 0 ? setTimeout(idleFor, options.idleMs) : undefined;
    idleTimer?.unref();
  }

  function idleFor(): void {
    // A Claude Code session that uses the http hook has no process to start the daemon again.
    if (sessionsAlive()) return armIdle();
    void stop(`idle for ${options.idleMs} ms`);
  }

  function sessionsAlive(): boolean {
    let alive = false;
    for (const grant of grants) {
      for (const pid of grant.pids) {
        try {
          process.kill(pid, 0);
          alive = true;
        } catch {
          grant.pids.delete(pid);
        }
      }
    }
    return alive;
  }

  /** `op: 'session'`: accept the session's secret (with its settings), serve its port, watch its process. */
  async function session(envelope: DaemonEnvelope): Promise<unknown> {
    const { port, secret, pid } = envelope.session ?? {};
    let grant = grants[0]!;
    if (secret !== undefined) {
      if (!isSecretShaped(secret)) throw new FormatboxError('INVALID_REQUEST', 'the hook secret is not one formatbox made (64 hex digits)');
      const known = grants.find((g) => sameSecret(secret, g.secret));
      if (known) {
        known.settings = envelope.settings;
        grant = known;
      } else {
        grant = { secret, settings: envelope.settings, pids: new Set() };
        grants.push(grant);
        while (grants.length > MAX_GRANTS) grants.splice(1, 1); // the oldest registered, never the daemon's own
      }
    }
    if (typeof pid === 'number' && Number.isInteger(pid) && pid > 1) grant.pids.add(pid);
    return { http: port === undefined ? { ports: http.ports() } : await http.listen(port) };
  }

  function serve(socket: Socket): void {
    active++;
    armIdle();
    const lines = createInterface({ input: socket, crlfDelay: Infinity });
    const authenticated = serverHandshake(socket, secret, (hello) => {
      if (hello.v === options.build) return undefined;
      // Another formatbox install (with or without the handshake): act on nothing, make way for it.
      setImmediate(() => void stop(`replaced by formatbox ${String(hello.v)}`));
      return { mismatch: { version: options.build } };
    });
    let queue = Promise.resolve();
    lines.on('line', (line) => {
      if (line.trim() === '' || !authenticated(line)) return;
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
        case 'session':
          return { ok: await session(envelope) };
        case 'request': {
          const state = stateFor(envelope.settings);
          const request = envelope.request && typeof envelope.request === 'object' && !Array.isArray(envelope.request)
            ? { root: envelope.root, ...(envelope.request as object) }
            : envelope.request;
          return { ok: await using(state, () => state.handler.handle(request)) };
        }
        default:
          throw new FormatboxError('INVALID_REQUEST', `unknown daemon op ${JSON.stringify(envelope.op)}`);
      }
    } catch (error) {
      return { error: errorReply(undefined, error).error };
    }
  }

  /** Runs `work` on `state`, which is then not closed until it is done; the ceiling is checked after. */
  async function using<T>(state: SettingsState, work: () => Promise<T>): Promise<T> {
    state.inFlight++;
    try {
      return await work();
    } finally {
      state.inFlight--;
      enforceCeiling(state);
    }
  }

  /** Over the memory ceiling: close every idle state but `keep` (and the pools left unused). */
  function enforceCeiling(keep: SettingsState): void {
    const rssMb = process.memoryUsage.rss() / (1024 * 1024);
    if (rssMb <= maxRssMb) return;
    let closed = 0;
    for (const [key, state] of [...states.entries()]) {
      if (state === keep || state.inFlight > 0) continue;
      retire(key, state);
      closed++;
    }
    // The sandboxed project toolchains (processes of their own) that no request is using go too.
    const toolchains = stopIdleProjectToolchains();
    process.stderr.write(`formatbox daemon: RSS ${Math.round(rssMb)} MB is over its ceiling of ${maxRssMb} MB; closed ${closed} idle settings and their runtimes${toolchains > 0 ? ` and ${toolchains} sandboxed project toolchains` : ''}\n`);
  }

  /** Closes `state` (its runtimes) and the worker pool no other state uses. */
  function retire(key: string, state: SettingsState): void {
    states.delete(key);
    evictions++;
    const poolKey = state.poolKey;
    const poolUnused = poolKey !== undefined && ![...states.values()].some((other) => other.poolKey === poolKey);
    const pool = poolUnused ? pools.get(poolKey) : undefined;
    if (poolUnused) pools.delete(poolKey);
    void (async () => {
      await state.handler.close();
      await pool?.close();
    })();
  }

  async function hook(envelope: DaemonEnvelope): Promise<unknown> {
    const state = stateFor(envelope.settings);
    const { agent, event, cwd, projectDir } = envelope.hook ?? { agent: undefined, event: undefined, cwd: '/' };
    const translate = hookOf(agent);
    if (!translate) throw new FormatboxError('INVALID_REQUEST', `usage: formatbox hook ${hookAgentNames().join('|')}`);
    if (!event || typeof event !== 'object' || Array.isArray(event)) return {};
    const { maxDiffChars } = resolveLimits(state.config);
    const output = await using(state, () => translate(event, { handler: state.handler, cwd, ...(projectDir ? { projectDir } : {}), maxDiffChars }));
    return output ? { output } : {};
  }

  function stateFor(settings: DaemonSettings | undefined): SettingsState {
    const config = settings?.config;
    if (config?.error) throw new FormatboxError('INVALID_CONFIG', config.error);
    const trust = settings?.trust === 'trusted' ? 'trusted' : 'untrusted';
    // The caller's flags over its config: checked here too (a daemon client is a peer, not trusted to be well-formed).
    const overrides = checkedOverrides(settings?.overrides);
    const key = createHash('sha256').update(JSON.stringify([config?.text ?? null, trust, overrides ?? null])).digest('hex');
    const existing = states.get(key);
    if (existing) {
      states.delete(key);
      states.set(key, existing);
      return existing;
    }
    const fromFile = config?.text !== undefined ? parseUserConfig(config.text, config.file) : undefined;
    const parsed = overrides ? { ...fromFile, ...overrides } : fromFile;
    const { timeoutMs } = resolveLimits(parsed);
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
    const state: SettingsState = { handler, ...(parsed ? { config: parsed } : {}), ...(pool ? { poolKey: timeoutMs } : {}), inFlight: 0 };
    states.set(key, state);
    // The least recently used idle states go first, each with the pool only it used.
    for (const [oldestKey, oldest] of [...states.entries()]) {
      if (states.size <= MAX_SETTINGS) break;
      if (oldest !== state && oldest.inFlight === 0) retire(oldestKey, oldest);
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
      httpPorts: http.ports(),
      ...threadCount(),
      rssBytes: process.memoryUsage.rss(),
      maxRssMb,
      evictions,
    };
  }

  function stop(why: string): Promise<void> {
    stopping ??= (async () => {
      process.stderr.write(`formatbox daemon (pid ${process.pid}): stopping: ${why}\n`);
      if (idleTimer) clearTimeout(idleTimer);
      removeOwnSocket();
      await http.close();
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

/** The process's threads (Linux: /proc/self/status), for `daemon status`; nothing elsewhere. */
function threadCount(): { threads?: number } {
  try {
    const match = /^Threads:\s+(\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? { threads: Number(match[1]) } : {};
  } catch {
    return {};
  }
}

/** The overrides a client sent, when well-formed; anything else is INVALID_REQUEST. */
function checkedOverrides(value: unknown): FlagOverrides | undefined {
  if (value === undefined) return undefined;
  const { mode, timeoutMs, ...rest } = (value && typeof value === 'object' ? value : { bad: true }) as Record<string, unknown>;
  const modeOk = mode === undefined || mode === 'project' || mode === 'always';
  const timeoutOk = timeoutMs === undefined || (typeof timeoutMs === 'number' && Number.isInteger(timeoutMs) && timeoutMs > 0);
  if (!modeOk || !timeoutOk || Object.keys(rest).length > 0) throw new FormatboxError('INVALID_REQUEST', 'the settings\' overrides are malformed');
  return flagOverrides({ ...(mode ? { mode: mode as FlagOverrides['mode'] } : {}), ...(timeoutMs !== undefined ? { timeoutMs: timeoutMs as number } : {}) });
}
