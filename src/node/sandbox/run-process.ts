/**
 * Spawns a sandbox launcher (bwrap, sandbox-exec) and collects its output within bounds:
 * stdin written then closed, stdout capped (the run is killed past the cap), stderr kept up to
 * a bound and drained beyond it, a timeout that kills the whole process group, and optional extra
 * pipes (fd 3…) for launcher protocols. Shared by the backends; never used without a sandbox.
 */
import { spawn, type StdioOptions } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';

interface LaunchRequest {
  command: string;
  args: readonly string[];
  /** Environment of the launcher itself (kept minimal: it is visible in /proc/<pid>/environ). */
  env: Record<string, string>;
  cwd: string;
  stdin?: Uint8Array;
  /** Extra pipes, fd 3 upwards: `write` pipes get the given bytes then EOF; `read` pipes are collected. */
  extra?: readonly ExtraPipe[];
  timeoutMs: number;
  maxStdoutBytes: number;
  maxStderrBytes: number;
  /** Receives stdout as it arrives instead of collecting it (the result's `stdout` is then empty). */
  onStdout?: (chunk: Uint8Array) => void;
  /** Called once the process exists (before any data flows), e.g. to move it into a cgroup. May be async. */
  onSpawn?: (pid: number, control: LaunchControl) => void | Promise<void>;
  /** Extra tree kill on timeout/overflow/abort (e.g. kill everything in a cgroup). */
  killTree?: () => void;
  /** Kills the tree when it aborts; the result is then `aborted`. */
  signal?: AbortSignal;
}

export type ExtraPipe =
  | { kind: 'write'; data: Uint8Array }
  | { kind: 'read'; maxBytes: number }
  /** A pipe the caller drives itself in `onSpawn`. */
  | { kind: 'manual' };

export interface LaunchControl {
  /** The stream for extra pipe `index` (0 = fd 3). */
  pipe(index: number): Readable & Writable;
}

type LaunchResult =
  | { kind: 'exit'; code: number; stdout: Uint8Array; stderr: string; extra: (Uint8Array | undefined)[]; ms: number }
  | { kind: 'timeout'; ms: number; stderr: string }
  | { kind: 'output-limit'; ms: number; bytes: number; stderr: string }
  | { kind: 'aborted'; ms: number }
  | { kind: 'error'; message: string; ms: number };

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGILL: 4, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15 };

export function launch(request: LaunchRequest): Promise<LaunchResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise<LaunchResult>((resolve) => {
    const extra = request.extra ?? [];
    let child;
    let devNull: number | undefined;
    try {
      devNull = openSync('/dev/null', 'r');
      child = spawn(request.command, [...request.args], {
        cwd: request.cwd,
        env: request.env,
        // Own process group, so a timeout can kill the launcher and everything in its group.
        detached: true,
        stdio: launcherStdio(extra.length, devNull),
      });
    } catch (error) {
      resolve({ kind: 'error', message: `could not start ${request.command}: ${(error as Error).message}`, ms: elapsed() });
      return;
    } finally {
      // The child has its own copies (dup2'ed before exec); ours is not needed any more.
      if (devNull !== undefined) closeSync(devNull);
    }

    let settled = false;
    let setupError: string | undefined;
    let stopped: 'timeout' | 'output-limit' | 'aborted' | undefined;
    let overflowBytes = 0;
    const stdout = new Collector(request.maxStdoutBytes);
    const stderr = new Collector(request.maxStderrBytes);
    const extraCollectors = extra.map((pipe) => (pipe.kind === 'read' ? new Collector(pipe.maxBytes) : undefined));

    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      try {
        request.killTree?.();
      } catch {
        // best effort; the process group kill above already ends the sandbox
      }
    };
    const stop = (why: 'timeout' | 'output-limit' | 'aborted', bytes = 0) => {
      if (stopped) return;
      stopped = why;
      overflowBytes = bytes;
      kill();
    };
    const timer = setTimeout(() => stop('timeout'), request.timeoutMs);
    const onAbort = () => stop('aborted');
    request.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (result: LaunchResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    if (request.signal?.aborted) stop('aborted');

    child.on('error', (error) => {
      clearTimeout(timer);
      kill();
      finish({ kind: 'error', message: `could not start ${request.command}: ${error.message}`, ms: elapsed() });
    });

    child.stdout!.on('data', (chunk: Buffer) => {
      if (!stdout.push(chunk, request.onStdout === undefined)) stop('output-limit', stdout.seen);
      else request.onStdout?.(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr.push(chunk); // past the bound: drained and dropped
    });
    const stdio = child.stdio as unknown as (Readable & Writable)[];
    extra.forEach((pipe, index) => {
      const stream = stdio[3 + index]!;
      stream.on('error', () => undefined);
      if (pipe.kind === 'write') {
        stream.end(Buffer.from(pipe.data.buffer, pipe.data.byteOffset, pipe.data.byteLength));
      } else if (pipe.kind === 'read') {
        const collector = extraCollectors[index]!;
        stream.on('data', (chunk: Buffer) => {
          if (!collector.push(chunk)) stop('output-limit', collector.seen);
        });
      }
    });

    child.stdin!.on('error', () => undefined); // EPIPE: the formatter need not read all of stdin
    const feedStdin = () => {
      if (request.stdin && request.stdin.byteLength > 0) {
        child.stdin!.end(Buffer.from(request.stdin.buffer, request.stdin.byteOffset, request.stdin.byteLength));
      } else {
        child.stdin!.end();
      }
    };

    if (request.onSpawn && child.pid !== undefined) {
      const control: LaunchControl = { pipe: (index) => stdio[3 + index]! };
      Promise.resolve()
        .then(() => request.onSpawn!(child.pid!, control))
        .then(feedStdin, (error: unknown) => {
          // Reported when the launcher has exited, with its own message if it printed one.
          setupError = `sandbox setup failed: ${(error as Error).message ?? String(error)}`;
          kill();
        });
    } else {
      feedStdin();
    }

    child.on('close', (code, signal) => {
      const ms = elapsed();
      if (stopped === 'timeout') return finish({ kind: 'timeout', ms, stderr: stderr.text() });
      if (stopped === 'aborted') return finish({ kind: 'aborted', ms });
      if (setupError) {
        const said = stderr.text().split('\n')[0];
        return finish({ kind: 'error', message: said ? `${setupError} (${said})` : setupError, ms });
      }
      if (stopped === 'output-limit') return finish({ kind: 'output-limit', ms, bytes: overflowBytes, stderr: stderr.text() });
      const exitCode = code ?? 128 + (signal ? (SIGNALS[signal] ?? 0) : 0);
      finish({ kind: 'exit', code: exitCode, stdout: stdout.bytes(), stderr: stderr.text(), extra: extraCollectors.map((c) => c?.bytes()), ms });
    });
  });
}

/** Collects chunks up to a byte bound; `push` returns false once the bound is passed. */
class Collector {
  private chunks: Buffer[] = [];
  private kept = 0;
  seen = 0;
  constructor(private readonly max: number) {}
  /** Counts `chunk`, and keeps it (up to the bound) when `keep`. False once past the bound. */
  push(chunk: Buffer, keep = true): boolean {
    this.seen += chunk.byteLength;
    if (keep && this.kept < this.max) {
      const room = this.max - this.kept;
      const part = chunk.byteLength <= room ? chunk : chunk.subarray(0, room);
      this.chunks.push(part);
      this.kept += part.byteLength;
    }
    return this.seen <= this.max;
  }
  bytes(): Uint8Array {
    return new Uint8Array(Buffer.concat(this.chunks));
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** O_CLOEXEC in /proc/<pid>/fdinfo `flags:` (octal; the same value on every Linux architecture Node runs on). */
const O_CLOEXEC = 0o2000000;

/**
 * The launcher's fd table, slot by slot: 0–2 pipes, then `extraPipes` pipes (fd 3…), then every fd
 * of this process that the launcher would otherwise inherit (no close-on-exec: held by the
 * embedding program, inherited from its parent, opened by a native addon) replaced by /dev/null.
 * So nothing of the host reaches the sandbox by fd: no directory (`/proc/self/fd/N/..` walks the
 * host file system), no pipe, no socket. Node's own fds are close-on-exec and stay out anyway.
 */
function launcherStdio(extraPipes: number, devNull: number): StdioOptions {
  const slots: Array<'pipe' | 'ignore' | number> = ['pipe', 'pipe', 'pipe'];
  for (let i = 0; i < extraPipes; i++) slots.push('pipe');
  const inherited = inheritableFds();
  const last = Math.max(slots.length - 1, ...inherited);
  for (let fd = slots.length; fd <= last; fd++) slots.push(inherited.includes(fd) ? devNull : 'ignore');
  return slots;
}

/** Fds above 2 that a child process would inherit. Where that cannot be told, every open fd above 2. */
function inheritableFds(): number[] {
  const listing = process.platform === 'linux' ? '/proc/self/fd' : '/dev/fd';
  let names: string[];
  try {
    names = readdirSync(listing);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    if (process.platform !== 'linux') {
      out.push(fd);
      continue;
    }
    let flags: number;
    try {
      flags = parseInt(/^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1] ?? 'x', 8);
    } catch {
      continue; // closed meanwhile (the listing's own fd)
    }
    if (Number.isNaN(flags) || (flags & O_CLOEXEC) === 0) out.push(fd);
  }
  return out.sort((a, b) => a - b);
}
