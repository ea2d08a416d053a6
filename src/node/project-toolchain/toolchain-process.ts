/**
 * One sandboxed project-toolchain worker: the user's `node` in bubblewrap running the worker script
 * (worker-source.ts) over the project's own Prettier, kept alive between requests.
 *
 * The sandbox: new user, PID, network, IPC, UTS and cgroup namespaces (no network), uid 65534, no
 * capabilities, no new user namespaces, a new session, death with the parent, a cleared environment;
 * `/usr` (and its links), the Node binary and the project root read-only at their real paths, with
 * credentials inside the root hidden; nothing else of the host (no $HOME, no /etc, no other project:
 * module and config lookups above the root find nothing); a size-bounded private /tmp (Unix sockets
 * work there); the root as working directory. An address-space ceiling (RLIMIT_AS) and, where a pids
 * cgroup is writable, a process-count limit. `modulesDir` (optional): a host directory holding a
 * `node_modules` tree, bound read-only at `<parent of root>/node_modules`, where Node's resolution
 * finds it when the project has none of its own.
 *
 * Everything the worker sends is hostile input: answers are read from a pipe of their own, one JSON
 * line each, bounded in bytes, strict UTF-8, checked field by field; a worker that sends anything
 * else, floods, hangs past the request's time limit or exits is killed (the whole PID namespace goes
 * with its first process) and the request gets an error; the next request starts a fresh worker.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { credentialsInside, hideArgs } from '../sandbox/credentials.js';
import { sandboxEnv } from '../sandbox/env.js';
import { openPidsLimit, type PidsLimit } from '../sandbox/cgroup.js';
import { systemLinks } from '../sandbox/bwrap.js';
import { nodeForSupervisor, readChildPid } from '../sandbox/read-back.js';
import { TOOLCHAIN_WORKER_SOURCE } from './worker-source.js';

export interface ToolchainProcessOptions {
  bwrap: string;
  /** Absolute real path of the project root. */
  root: string;
  /** A host directory holding a `node_modules` tree, bound at `<parent of root>/node_modules`. */
  modulesDir?: string;
  /** Address-space ceiling of the worker (RLIMIT_AS). Node itself needs about 2 GiB of it. */
  maxMemoryBytes: number;
  /** Longest answer line accepted; past it the worker is killed as flooding. */
  maxAnswerBytes: number;
  /** Size of the private /tmp. */
  tmpfsBytes: number;
  /** Processes + threads in the sandbox (pids cgroup, where writable). */
  maxProcesses: number;
  /** Added to the time limit of a request that waits for the worker to start (Prettier and plugins loading). */
  startupMs: number;
}

export interface ToolchainRequest {
  path: string;
  text: string;
  range?: { start: number; end: number };
}

/** What ran for a file: the config file (root-relative) and the plugins, as the project names them. */
export interface ToolchainRan {
  config: string | null;
  plugins: string[];
}

export type ToolchainAnswer =
  | ({ kind: 'ok'; text: string; endOfLine?: string } & ToolchainRan)
  | ({ kind: 'error'; message: string } & Partial<ToolchainRan>)
  | ({ kind: 'unsupported'; reason: string } & ToolchainRan);

/** How a request ended when the worker did not answer it properly: it is then dead. */
export type ToolchainFailure = { kind: 'crashed'; message: string } | { kind: 'timeout'; ms: number };

type Refable = { ref?: () => void; unref?: () => void };

const PRLIMIT = '/usr/bin/prlimit';
const STDERR_TAIL_BYTES = 4096;
const MAX_PLUGINS = 64;
const MAX_NAME_CHARS = 256;

export class ToolchainProcess {
  readonly version: Promise<string>;
  private readonly child: ChildProcess;
  private readonly limit: PidsLimit | undefined;
  private readonly waiting = new Map<number, { resolve: (answer: unknown) => void; reject: (failure: ToolchainFailure) => void }>();
  private nextId = 1;
  private dead: ToolchainFailure | undefined;
  private ready = false;
  /** Plugins load on the first format (Tailwind v3 compiles its config then): until one answer, the start's allowance applies. */
  private answered = false;
  private stderrTail = '';
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** One request at a time: the next starts when the previous one ended. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly streams: Array<Readable & Writable & Refable>;
  private busy = 0;
  private queued = 0;

  constructor(private readonly options: ToolchainProcessOptions) {
    const node = nodeForSupervisor();
    const args = sandboxArgs(options, node.bind);
    this.limit = openPidsLimit(options.maxProcesses);
    const useInfo = this.limit !== undefined;
    if (useInfo) args.unshift('--info-fd', '4', '--block-fd', '5');
    // Wasm's bounds-check trap handler reserves 10 GB of address space per memory: under the ceiling
    // a plugin's wasm (tsx's lexer) would fail to instantiate, so bounds are checked inline instead.
    const wasmFlags = process.allowedNodeEnvironmentFlags.has('--disable-wasm-trap-handler') ? ['--disable-wasm-trap-handler'] : [];
    const command = [PRLIMIT, `--as=${Math.floor(options.maxMemoryBytes)}`, '--', node.node, ...wasmFlags, '--input-type=module', '-e', TOOLCHAIN_WORKER_SOURCE];
    this.child = spawn(options.bwrap, [...args, '--', ...(existsSync(PRLIMIT) ? command : command.slice(3))], {
      env: {}, // the launcher's environment is readable in the sandbox as /proc/1/environ
      cwd: '/',
      stdio: ['pipe', 'pipe', 'pipe', 'pipe', ...(useInfo ? (['pipe', 'pipe'] as const) : [])],
    });
    const stdio = this.child.stdio as unknown as Array<(Readable & Writable) | null>;
    this.streams = stdio.filter((stream): stream is Readable & Writable & Refable => stream !== null);
    this.hold(+1);
    if (useInfo) {
      // bwrap reports its child and waits: both join the pids cgroup before Node starts.
      void readChildPid(stdio[4]!)
        .then((childPid) => {
          this.limit!.add([this.child.pid!, childPid]);
          stdio[5]!.end('1');
        })
        .catch(() => this.fail({ kind: 'crashed', message: 'bwrap did not report its sandbox' }));
    }
    // The project's chatter: drained, only the tail of stderr kept for a crash message.
    this.child.stdout!.on('data', () => undefined);
    this.child.stderr!.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    this.child.stdin!.on('error', () => undefined);
    stdio[3]!.on('data', (chunk: Buffer) => this.receive(chunk));
    this.child.on('error', (error) => this.fail({ kind: 'crashed', message: `the sandbox could not start: ${error.message}` }));
    this.child.on('exit', (code, signal) => {
      const tail = this.stderrTail.trim().split('\n').filter(Boolean).slice(-1)[0];
      this.fail({ kind: 'crashed', message: `the sandboxed Prettier exited (${signal ?? `exit ${code}`})${tail ? `: ${tail.slice(0, 300)}` : ''}` });
    });
    this.version = new Promise<unknown>((resolve, reject) => this.waiting.set(0, { resolve, reject })).then((ready) => {
      const r = ready as { ready?: unknown; version?: unknown; message?: unknown };
      if (r.ready === true && typeof r.version === 'string' && /^\d+\.\d+\.\d+[\w.+-]{0,40}$/.test(r.version)) return r.version;
      const message = r.ready === false && typeof r.message === 'string' ? r.message.slice(0, 500) : 'the sandboxed worker sent a malformed greeting';
      this.kill();
      throw { kind: 'crashed', message } satisfies ToolchainFailure;
    });
    this.version.then(
      () => {
        this.ready = true;
        this.hold(-1);
      },
      () => this.hold(-1),
    );
  }

  /** An idle warm worker never keeps the host process alive; one starting or answering does. */
  private hold(delta: number): void {
    this.busy += delta;
    const method = this.busy > 0 ? 'ref' : 'unref';
    this.child[method]();
    // A stream already ended (bwrap's info and block fds) would queue a listener per call instead.
    for (const stream of this.streams) if (!stream.destroyed) stream[method]?.();
  }

  get alive(): boolean {
    return this.dead === undefined;
  }

  /** Requests queued or in flight (the start counts as one). */
  get load(): number {
    return this.busy + this.queued;
  }

  /** Started and answering nothing now. */
  get idle(): boolean {
    return this.ready && this.busy === 0;
  }

  /** Formats one file; a failure means the worker is dead (and was killed). */
  format(request: ToolchainRequest, timeoutMs: number): Promise<ToolchainAnswer> {
    this.queued++;
    const run = this.queue.then(() => {
      this.queued--;
      return this.send(request, timeoutMs);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  kill(): void {
    this.fail({ kind: 'crashed', message: 'the sandboxed worker was stopped' });
  }

  private async send(request: ToolchainRequest, timeoutMs: number): Promise<ToolchainAnswer> {
    if (this.dead) throw this.dead;
    this.hold(+1);
    const started = performance.now();
    const id = this.nextId++;
    let timer: NodeJS.Timeout | undefined;
    const answer = new Promise<unknown>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      // The first request of a fresh worker gets the start's allowance on top of its limit.
      timer = setTimeout(() => this.fail({ kind: 'timeout', ms: Math.round(performance.now() - started) }), timeoutMs + (this.answered ? 0 : this.options.startupMs));
    });
    try {
      await Promise.race([this.version, new Promise<never>((_, reject) => answer.catch(reject))]);
      this.child.stdin!.write(`${JSON.stringify({ id, ...request })}\n`);
      const parsed = checkAnswer(await answer);
      if (!parsed) {
        this.fail({ kind: 'crashed', message: 'the sandboxed worker sent a malformed answer' });
        throw this.dead;
      }
      this.answered = true;
      return parsed;
    } finally {
      clearTimeout(timer);
      this.waiting.delete(id);
      this.hold(-1);
    }
  }

  private receive(chunk: Buffer): void {
    if (this.dead) return;
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      const line = Buffer.concat([...this.pending, chunk.subarray(start, newline)]);
      this.pending = [];
      this.pendingBytes = 0;
      start = newline + 1;
      if (line.byteLength > this.options.maxAnswerBytes) return this.fail({ kind: 'crashed', message: `the sandboxed worker sent more than ${this.options.maxAnswerBytes} bytes in one answer` });
      if (!this.deliver(line)) return;
    }
    const rest = chunk.subarray(start);
    this.pendingBytes += rest.byteLength;
    if (this.pendingBytes > this.options.maxAnswerBytes) return this.fail({ kind: 'crashed', message: `the sandboxed worker sent more than ${this.options.maxAnswerBytes} bytes in one answer` });
    if (rest.byteLength > 0) this.pending.push(Buffer.from(rest));
  }

  /** One answer line: strict UTF-8 JSON with the id of a request in flight, else the worker is killed. */
  private deliver(line: Buffer): boolean {
    let message: unknown;
    try {
      message = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(line));
    } catch {
      this.fail({ kind: 'crashed', message: 'the sandboxed worker sent an answer that is not UTF-8 JSON' });
      return false;
    }
    const id = (message as { id?: unknown } | null)?.id;
    const waiter = typeof id === 'number' ? this.waiting.get(id) : undefined;
    if (!waiter) {
      this.fail({ kind: 'crashed', message: 'the sandboxed worker sent an answer nobody asked for' });
      return false;
    }
    this.waiting.delete(id as number);
    waiter.resolve(message);
    return true;
  }

  private fail(failure: ToolchainFailure): void {
    if (this.dead) return;
    this.dead = failure;
    // SIGKILL to bwrap: its child (the sandbox's PID 1) dies with it (--die-with-parent), and with
    // PID 1 the kernel kills every process of the namespace. The cgroup catches any straggler.
    try {
      this.child.kill('SIGKILL');
    } catch {
      // already gone
    }
    this.limit?.killAll();
    void this.limit?.close();
    for (const waiter of this.waiting.values()) waiter.reject(failure);
    this.waiting.clear();
    this.pending = [];
  }
}

function sandboxArgs(options: ToolchainProcessOptions, nodeBinds: readonly string[]): string[] {
  const args = [
    '--unshare-all', '--unshare-user', '--disable-userns',
    '--uid', '65534', '--gid', '65534',
    '--die-with-parent', '--new-session', '--cap-drop', 'ALL',
    '--clearenv',
  ];
  for (const [key, value] of Object.entries(sandboxEnv(undefined))) args.push('--setenv', key, value);
  args.push('--ro-bind', '/usr', '/usr', ...systemLinks());
  args.push('--proc', '/proc', '--dev', '/dev', '--remount-ro', '/dev');
  args.push('--size', String(options.tmpfsBytes), '--tmpfs', '/tmp');
  for (const path of nodeBinds) if (!path.startsWith('/usr/')) args.push('--ro-bind', path, path);
  args.push('--ro-bind', options.root, options.root, ...hideArgs(credentialsInside(options.root)));
  if (options.modulesDir) {
    const target = `${dirname(options.root)}/node_modules`.replace(/^\/\//, '/');
    args.push('--ro-bind', options.modulesDir, target);
  }
  args.push('--chdir', options.root, '--remount-ro', '/');
  return args;
}

/** The fields of an answer, checked: anything missing, mistyped or oversized makes it malformed. */
function checkAnswer(message: unknown): ToolchainAnswer | undefined {
  if (message === null || typeof message !== 'object') return undefined;
  const m = message as Record<string, unknown>;
  const ran = (): ToolchainRan | undefined => {
    const config = m.config;
    const plugins = m.plugins;
    if (!(config === null || (typeof config === 'string' && config.length <= MAX_NAME_CHARS && !isAbsolute(config) && !config.split('/').includes('..')))) return undefined;
    if (!Array.isArray(plugins) || plugins.length > MAX_PLUGINS || !plugins.every((p) => typeof p === 'string' && p.length <= MAX_NAME_CHARS)) return undefined;
    return { config, plugins: plugins as string[] };
  };
  switch (m.kind) {
    case 'ok': {
      const r = ran();
      if (typeof m.text !== 'string' || !r || !wellFormed(m.text)) return undefined;
      if (m.endOfLine !== undefined && !['lf', 'crlf', 'cr', 'auto'].includes(m.endOfLine as string)) return undefined;
      return { kind: 'ok', text: m.text, ...(typeof m.endOfLine === 'string' ? { endOfLine: m.endOfLine } : {}), ...r };
    }
    case 'error': {
      const r = m.plugins === undefined ? {} : ran();
      return typeof m.message === 'string' && r ? { kind: 'error', message: m.message.slice(0, 2000), ...r } : undefined;
    }
    case 'unsupported': {
      const r = ran();
      return typeof m.reason === 'string' && r ? { kind: 'unsupported', reason: m.reason.slice(0, 500), ...r } : undefined;
    }
    default:
      return undefined;
  }
}

/** No lone surrogate (JSON can carry one as an escape; it has no UTF-8 form to write). */
function wellFormed(text: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}
