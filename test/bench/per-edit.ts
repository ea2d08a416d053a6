/**
 * Per-edit cost for every way formatbox is called, on the same edits of a ~1,100-line TypeScript
 * file in a Biome project, beside its anchors, with the goals of the daemon issue:
 *   (a) `node_modules/.bin/biome format --write`, a process per edit (today's hooks; the anchor)
 *   (b) the native Biome binary, called directly
 *   (c) `formatbox apply --json --no-daemon`, a process per edit (cold: Node, runtime, wasm compile)
 *   (d) `formatbox hook claude-code`, a process per edit, through the auto-started daemon (thin client)
 *   (e) inside the warm daemon: one receipt per request on an open connection, against the runtime's
 *       own `edit` receipt measured in this process (alternating, both warm)
 *   (f) bare `node -e 0`
 *   (g) the first call, including the daemon's start (fresh runtime dir each time)
 * Goals: (d) ≤ 90 ms median and ≤ 0.9× (a); (g) ≤ 1.0 s; (e) server ≤ 1.2× runtime edit.
 *
 *   node --import tsx test/bench/per-edit.ts [edits=20]
 * Uses the built bin (dist/cli.js); builds it first when missing. Each part uses its own
 * XDG_RUNTIME_DIR, so no user daemon is touched.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { createRuntime, createWorkerPool } from '../../src/node/index.js';
import { authenticateServer } from '../../src/cli/socket-auth.js';
import { readOrCreateUserSecret } from '../../src/cli/user-secret.js';

const EDITS = Number(process.argv[2] ?? 20);
const REPO = resolve('.');
const CLI = join(REPO, 'dist/cli.js');
const BIOME_BIN = join(REPO, 'node_modules/.bin/biome');
const require = createRequire(import.meta.url);
const BIOME_NATIVE = join(require.resolve('@biomejs/biome/package.json'), '..', '..', 'cli-linux-x64', 'biome');
if (!existsSync(CLI)) spawnSync(process.execPath, ['build.mjs'], { cwd: REPO, stdio: 'inherit' });
const rxjs = join(require.resolve('rxjs/package.json'), '..', 'src', 'internal');
const corpus = ['Observable.ts', 'ajax/ajax.ts'].map((f) => readFileSync(join(rxjs, f), 'utf8')).join('\n').replace(/^import .*$/gm, '').replace(/^export \* from .*$/gm, '');
const cleanup: string[] = [];

function isolatedEnv(): NodeJS.ProcessEnv {
  const runtimeDir = mkdtempSync(join(tmpdir(), 'fb-bench-xdg-'));
  cleanup.push(runtimeDir);
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_RUNTIME_DIR: runtimeDir, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(runtimeDir, 'none') };
  delete env.FORMATBOX_NO_DAEMON;
  delete env.FORMATBOX_SOCKET;
  delete env.CLAUDE_PROJECT_DIR;
  return env;
}

function project(): string {
  const root = mkdtempSync(join(tmpdir(), 'fb-bench-edit-'));
  cleanup.push(root);
  writeFileSync(join(root, 'biome.json'), '{ "formatter": { "indentStyle": "space" } }\n');
  writeFileSync(join(root, 'big.ts'), `${corpus}\nconst marker = 0;\n`);
  spawnSync(BIOME_BIN, ['format', '--write', 'big.ts'], { cwd: root });
  return root;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const editFor = (i: number) => ({ oldText: `const marker = ${i};`, newText: `const marker=${i + 1}` });

/** Writes edit i into the file as the agent's tool would, and returns P. */
function writeEdit(root: string, i: number): string {
  const file = join(root, 'big.ts');
  const prior = readFileSync(file, 'utf8');
  const { oldText, newText } = editFor(i);
  writeFileSync(file, prior.replace(oldText, newText));
  return prior;
}

function timeProcess(command: string, args: string[], options: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv }, check: (stdout: string, status: number | null) => boolean): number {
  const t = performance.now();
  const run = spawnSync(command, args, { ...options, encoding: 'utf8' });
  const ms = performance.now() - t;
  if (!check(run.stdout, run.status)) throw new Error(`${command} ${args.join(' ')}: ${run.status} ${run.stdout.slice(0, 300)} ${run.stderr.slice(0, 300)}`);
  return ms;
}

/** CPU time (user + system, all threads) the daemon has used so far: what its work costs without waiting for a core. */
function daemonCpuMs(env: NodeJS.ProcessEnv): number {
  const { pid } = JSON.parse(spawnSync(process.execPath, [CLI, 'daemon', 'status', '--json'], { env, encoding: 'utf8' }).stdout) as { pid: number };
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in clock ticks (100 Hz)
}

function stopDaemon(env: NodeJS.ProcessEnv): void {
  spawnSync(process.execPath, [CLI, 'daemon', 'stop'], { env });
}

// (a) and (b): Biome per edit, after the edit is written.
const rootA = project();
const binMs: number[] = [];
const nativeMs: number[] = [];
for (let i = 0; i < EDITS; i++) {
  writeEdit(rootA, 2 * i);
  binMs.push(timeProcess(BIOME_BIN, ['format', '--write', 'big.ts'], { cwd: rootA }, (_, s) => s === 0));
  writeEdit(rootA, 2 * i + 1);
  nativeMs.push(timeProcess(BIOME_NATIVE, ['format', '--write', 'big.ts'], { cwd: rootA }, (_, s) => s === 0));
}

// (f) bare Node.
const nodeMs = Array.from({ length: EDITS }, () => timeProcess(process.execPath, ['-e', '0'], {}, (_, s) => s === 0));

// (c) formatbox apply in its own process (no daemon): cold every time.
const rootC = project();
const coldEnv = isolatedEnv();
const applyMs: number[] = [];
for (let i = 0; i < Math.min(EDITS, 8); i++) {
  applyMs.push(timeProcess(process.execPath, [CLI, 'apply', '--json', '--no-daemon', '--root', rootC], { input: JSON.stringify({ path: 'big.ts', input: editFor(i) }), env: coldEnv }, (out, s) => s === 0 && out.includes('"formatted"')));
}

// (g) First call including the daemon's start: a fresh runtime dir each time.
const firstMs: number[] = [];
const firstDaemonCpuMs: number[] = [];
for (let k = 0; k < 3; k++) {
  const env = isolatedEnv();
  const root = project();
  const prior = writeEdit(root, 0);
  const event = { hook_event_name: 'PostToolUse', cwd: root, tool_name: 'Edit', tool_input: { file_path: join(root, 'big.ts'), old_string: editFor(0).oldText, new_string: editFor(0).newText }, tool_response: { originalFile: prior } };
  firstMs.push(timeProcess(process.execPath, [CLI, 'hook', 'claude-code'], { input: JSON.stringify(event), env }, (out, s) => s === 0 && out.includes('formatted')));
  firstDaemonCpuMs.push(daemonCpuMs(env));
  stopDaemon(env);
}

// (d) The hook per edit through the daemon (started by the first call, not counted).
const hookEnv = isolatedEnv();
const rootD = project();
const hookMs: number[] = [];
for (let i = 0; i <= EDITS; i++) {
  const prior = writeEdit(rootD, i);
  const { oldText, newText } = editFor(i);
  const event = { hook_event_name: 'PostToolUse', cwd: rootD, tool_name: 'Edit', tool_input: { file_path: join(rootD, 'big.ts'), old_string: oldText, new_string: newText }, tool_response: { originalFile: prior } };
  const ms = timeProcess(process.execPath, [CLI, 'hook', 'claude-code'], { input: JSON.stringify(event), env: hookEnv }, (out, s) => s === 0 && out.includes('formatted'));
  if (i > 0) hookMs.push(ms);
}

// (e) Inside the warm daemon (same one as (d)) on one open connection, against the runtime's own
// edit receipt in this process; alternating, after both are warm.
const socketPath = join(hookEnv.XDG_RUNTIME_DIR as string, 'formatbox', 'daemon.sock');
// The daemon acts only on requests of its own build (version and bundle, see src/node/version.ts).
const BUILD = (JSON.parse(spawnSync(process.execPath, [CLI, 'daemon', 'status', '--json'], { env: hookEnv, encoding: 'utf8' }).stdout) as { build: string }).build;
const socket = connect(socketPath);
await new Promise<void>((ready, fail) => socket.once('connect', () => ready()).once('error', fail));
// The daemon answers only a peer that proves it runs as this user (src/cli/socket-auth.ts).
await authenticateServer(socket, readOrCreateUserSecret(dirname(socketPath)), { v: BUILD });
const replies = createInterface({ input: socket })[Symbol.asyncIterator]();
const rootE = project();
const rootR = project();
const pool = createWorkerPool({ timeoutMs: 30_000 });
const runtime = createRuntime({ root: rootR, pool });
const serverMs: number[] = [];
const runtimeMs: number[] = [];
const WARM = 10;
for (let i = 0; i < WARM + EDITS; i++) {
  let t = performance.now();
  socket.write(JSON.stringify({ v: BUILD, op: 'request', root: rootE, request: { path: 'big.ts', input: editFor(i) } }) + '\n');
  const reply = JSON.parse((await replies.next()).value as string) as { ok?: { status: string } };
  const server = performance.now() - t;
  if (reply.ok?.status !== 'formatted') throw new Error(`daemon: ${JSON.stringify(reply).slice(0, 300)}`);
  t = performance.now();
  const receipt = await runtime.edit({ path: 'big.ts', ...editFor(i) });
  const own = performance.now() - t;
  if (receipt.status !== 'formatted') throw new Error(`runtime: ${receipt.line}`);
  if (i >= WARM) {
    serverMs.push(server);
    runtimeMs.push(own);
  }
}
socket.destroy();
await runtime.close();
await pool.close();
const rssKb = (() => {
  const status = JSON.parse(spawnSync(process.execPath, [CLI, 'daemon', 'status', '--json'], { env: hookEnv, encoding: 'utf8' }).stdout) as { pid: number };
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${status.pid}/status`, 'utf8'))?.[1] ?? 0);
})();
stopDaemon(hookEnv);
for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });

const a = median(binMs);
const b = median(nativeMs);
const c = median(applyMs);
const d = median(hookMs);
const e = median(serverMs);
const r = median(runtimeMs);
const f = median(nodeMs);
const g = median(firstMs);
const row = (name: string, ms: number, note = '') => console.log(`| ${name.padEnd(58)} | ${ms.toFixed(1).padStart(7)} ms | ${(ms / a).toFixed(2).padStart(5)}× | ${note}`);
console.log(`per edit, ${corpus.split('\n').length}-line TypeScript file (rxjs), Biome project, medians of ${EDITS} edits (apply: ${applyMs.length}; first call: ${firstMs.length}):\n`);
console.log(`| ${'how it is called'.padEnd(58)} | per edit   | vs (a) |`);
console.log(`|${'-'.repeat(60)}|------------|--------|`);
row('(a) node_modules/.bin/biome format --write, process/edit', a, 'anchor');
row('(b) the native Biome binary, called directly', b);
row('(c) formatbox apply --json --no-daemon, process/edit', c, 'cold: Node, runtime, wasm compile');
row('(d) formatbox hook claude-code, via the daemon', d, 'thin client: Node start, connect, one request');
row('(e) inside the warm daemon, one receipt per request', e, `runtime's own edit receipt here: ${r.toFixed(1)} ms`);
row('(f) bare node -e 0', f);
row('(g) first call, including the daemon start', g, `runs: ${firstMs.map((x) => x.toFixed(0)).join(', ')} ms; daemon CPU time ${median(firstDaemonCpuMs).toFixed(0)} ms`);
console.log(`\ndaemon resident memory when warm (Biome loaded): ${(rssKb / 1024).toFixed(0)} MiB`);
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
console.log('goals:');
console.log(`  hook via daemon ≤ 90 ms median:           ${d.toFixed(1)} ms — ${verdict(d <= 90)}`);
console.log(`  hook ≤ 0.9× .bin/biome format --write:    ${(d / a).toFixed(2)}× — ${verdict(d / a <= 0.9)}`);
console.log(`  first call incl. daemon start ≤ 1.0 s:    ${(g / 1000).toFixed(2)} s — ${verdict(g <= 1000)}`);
console.log(`  server cost ≤ 1.2× runtime edit receipt:  ${(e / r).toFixed(2)}× — ${verdict(e / r <= 1.2)}`);
console.log(`  (hook minus bare Node: ${(d - f).toFixed(1)} ms; first call: the daemon used ${median(firstDaemonCpuMs).toFixed(0)} ms of CPU, all threads)`);
