// Serving a worker directory with real workerd (`workerd serve`), and timing how long it takes from
// spawn to the first answered request: the isolate start (script parse, module compile) plus a fixed
// process cost that an empty worker, measured the same way, shows on its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const WORKERD = join(process.cwd(), 'node_modules/.bin/workerd');

export interface ServedWorker {
  origin: string;
  /** Milliseconds from spawning workerd to the first answered `GET /`. */
  startMs: number;
  /** CPU milliseconds workerd used until then (user + system, from /proc; less noisy on a shared machine). */
  startCpuMs: number;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Serves `dir/config.capnp` (its socket named "http") on a free port; resolves once `GET /` answers. */
export async function serveWorker(dir: string, timeoutMs = 60_000): Promise<ServedWorker> {
  const port = await freePort();
  const started = performance.now();
  const child: ChildProcess = spawn(WORKERD, ['serve', 'config.capnp', '--socket-addr', `http=127.0.0.1:${port}`], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const origin = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  while (performance.now() - started < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`workerd exited with ${child.exitCode}: ${output.slice(-3000)}`);
    try {
      const response = await fetch(`${origin}/`);
      await response.arrayBuffer();
      if (response.ok) return { origin, startMs: performance.now() - started, startCpuMs: cpuMsOf(child.pid), stop };
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await stop();
  throw new Error(`workerd did not answer within ${timeoutMs} ms: ${output.slice(-3000)}`);
}

/** User + system CPU time of a process, in ms (Linux /proc, 100 ticks a second); NaN elsewhere. */
function cpuMsOf(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** A directory holding a worker with no code to speak of: the anchor for start times. */
export function emptyWorkerDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'formatbox-empty-worker-'));
  writeFileSync(join(dir, 'worker.js'), "export default { fetch() { return new Response('{}'); } };\n");
  writeFileSync(
    join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:8787", http = (), service = "main") ],
);
const worker :Workerd.Worker = ( modules = [ (name = "worker.js", esModule = embed "worker.js") ], compatibilityDate = "2024-09-01" );
`,
  );
  return dir;
}

/** Median wall and CPU start times of `runs` fresh workerd processes serving `dir`. */
export async function medianStart(dir: string, runs: number): Promise<{ wallMs: number; cpuMs: number }> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const served = await serveWorker(dir);
    wall.push(served.startMs);
    cpu.push(served.startCpuMs);
    await served.stop();
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return { wallMs: median(wall), cpuMs: median(cpu) };
}
