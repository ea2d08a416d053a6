/**
 * A child process run under a time and a memory bound, for the hostile surface tests: GNU time
 * (`/usr/bin/time -f %M`) reports the child's peak RSS, a timer kills it at the time bound. Each test
 * asserts the peak against its bound, so a case that blows up in memory fails instead of passing slowly.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const GNU_TIME = '/usr/bin/time';

export interface BoundedRun {
  code: number;
  stdout: string;
  stderr: string;
  /** Peak resident set of the child, in KiB (undefined without GNU time outside CI). */
  maxRssKiB: number | undefined;
  timedOut: boolean;
}

export interface Bounds {
  timeoutMs: number;
  /** The child's peak RSS may not exceed this (MiB). */
  maxRssMiB: number;
}

/** The default bound of one CLI call: one Node process with a formatter's wasm loaded. */
export const CLI_BOUNDS: Bounds = { timeoutMs: 60_000, maxRssMiB: 768 };

export function haveGnuTime(): boolean {
  return existsSync(GNU_TIME);
}

/** Runs `command args` with `bounds`; throws when either bound is exceeded. */
export async function runBounded(command: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd: string; input?: string; bounds?: Bounds }): Promise<BoundedRun> {
  const bounds = options.bounds ?? CLI_BOUNDS;
  if (!haveGnuTime() && process.env.CI) throw new Error(`${GNU_TIME} is missing (the time package); CI installs it`);
  const dir = mkdtempSync(join(tmpdir(), 'fb-bounded-'));
  const report = join(dir, 'rss');
  const [file, argv] = haveGnuTime() ? [GNU_TIME, ['-f', '%M', '-o', report, command, ...args]] : [command, args];
  const run = await new Promise<BoundedRun>((done) => {
    // Its own process group: the bound kills GNU time and the command under it together (killing
    // time alone would leave the command holding the pipes open, and the run would never end).
    const child = spawn(file, argv, { env: options.env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, bounds.timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code: code ?? (signal ? -1 : -2), stdout, stderr, maxRssKiB: undefined, timedOut });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
  try {
    const text = existsSync(report) ? readFileSync(report, 'utf8').trim().split('\n').pop() : undefined;
    run.maxRssKiB = text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (run.timedOut) throw new Error(`${command} ${args.join(' ')} ran over its time bound of ${bounds.timeoutMs} ms\n${run.stderr}`);
  if (run.maxRssKiB !== undefined && run.maxRssKiB > bounds.maxRssMiB * 1024) {
    throw new Error(`${command} ${args.join(' ')} peaked at ${Math.round(run.maxRssKiB / 1024)} MiB, over its bound of ${bounds.maxRssMiB} MiB`);
  }
  return run;
}
