// The daemon's lifetime and what it keeps: pools, runtimes and caches are evicted together under a
// memory ceiling, so many roots × many configs stay bounded (counted pools and threads); discovery
// that stops at its budget says so in the receipt; `doctor` refuses `/` (no listing of other users'
// trees); the temp-file sweep takes a zombie (killed, unreaped) writer for gone. Each under a time
// bound (the test's timeout) and a memory bound (the daemon's RSS from its status, GNU time for CLI calls).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callDaemon, askRunningDaemon, type DaemonEnvelope } from '../../src/cli/daemon-client.js';
import { daemonPaths } from '../../src/cli/daemon-paths.js';
import { processAlive } from '../../src/node/process-alive.js';
import { sweepTemps, tempNameFor } from '../../src/node/fs/sweep.js';
import { cleanUp, installCopy, isolatedEnv, project } from '../cli/built-cli.js';
import { runBounded } from './bounded.js';

const built = await installCopy();
const dirs: string[] = [];
const runtimeDirs: string[] = [];
after(async () => {
  for (const dir of runtimeDirs) await cleanUp(dir);
  await cleanUp(built.dir, ...dirs);
});

/** Starts the daemon with a real call, then reads the build id it expects from `daemon status`. */
function buildId(env: NodeJS.ProcessEnv): string {
  const cwd = project({});
  dirs.push(cwd);
  spawnSync(process.execPath, [built.cli, 'format', '--stdin-filepath', 'x.txt'], { env, input: 'x\n', encoding: 'utf8', cwd });
  const status = spawnSync(process.execPath, [built.cli, 'daemon', 'status', '--json'], { env, encoding: 'utf8' });
  return (JSON.parse(status.stdout) as { build: string }).build;
}

interface Status {
  settings: number;
  pools: number;
  threads?: number;
  rssBytes: number;
  evictions: number;
  requests: number;
}

async function status(env: NodeJS.ProcessEnv, build: string): Promise<Status> {
  const reply = await askRunningDaemon({ v: build, op: 'status' }, daemonPaths(env));
  assert.ok(reply && 'ok' in reply, JSON.stringify(reply));
  return reply.ok as Status;
}

/** `roots` × `configs` formatText requests straight to the daemon (one connection each, the real handshake). */
async function flood(env: NodeJS.ProcessEnv, build: string, roots: string[], configs: number): Promise<Status[]> {
  const samples: Status[] = [];
  const options = { paths: daemonPaths(env), startArgs: [built.cli, 'daemon', 'run'], env };
  for (let c = 0; c < configs; c++) {
    // A distinct user config each, with its own timeout: before eviction, each kept a pool forever.
    const settings = { config: { file: `/virtual/formatbox-${c}.json`, text: JSON.stringify({ timeoutMs: 20_000 + c }) } };
    for (const root of roots) {
      const envelope: DaemonEnvelope = { v: build, op: 'request', settings, root, request: { root, method: 'formatText', path: 'a.ts', text: 'const a=1\n' } };
      const reply = await callDaemon(envelope, options);
      assert.ok('ok' in reply, JSON.stringify(reply));
      assert.equal((reply.ok as { content: string }).content, 'const a = 1;\n', 'formatted right, whatever was evicted');
    }
    samples.push(await status(env, build));
  }
  return samples;
}

function roots(count: number): string[] {
  const base = mkdtempSync(join(tmpdir(), 'fb-roots-'));
  dirs.push(base);
  return Array.from({ length: count }, (_, i) => {
    const root = join(base, `r${i}`);
    mkdirSync(join(root, '.git'), { recursive: true });
    writeFileSync(join(root, 'biome.json'), '{ "formatter": { "indentStyle": "space" } }\n');
    return root;
  });
}

test('review case: 20 configs × 25 roots through one daemon: pools, settings and threads stay bounded', { timeout: 300_000 }, async () => {
  const { env, runtimeDir } = isolatedEnv();
  runtimeDirs.push(runtimeDir);
  const build = buildId(env);
  const samples = await flood(env, build, roots(25), 20);
  const last = samples.at(-1)!;
  assert.ok(Math.max(...samples.map((s) => s.pools)) <= 8, `pools: ${samples.map((s) => s.pools).join(' ')}`);
  assert.ok(Math.max(...samples.map((s) => s.settings)) <= 8, `settings: ${samples.map((s) => s.settings).join(' ')}`);
  if (last.threads !== undefined) {
    // Node's own threads (~11) plus one worker per pool: bounded by the settings cap, not by configs seen.
    assert.ok(Math.max(...samples.map((s) => s.threads ?? 0)) <= 40, `threads: ${samples.map((s) => s.threads).join(' ')}`);
  }
  assert.ok(last.evictions >= 12, `states were evicted (${last.evictions})`);
  assert.ok(last.rssBytes < 1536 * 1024 * 1024, `daemon RSS ${Math.round(last.rssBytes / 1048576)} MB`);
});

test('a memory ceiling below the working set: every idle state is closed after each request, answers stay right', { timeout: 300_000 }, async () => {
  const { env, runtimeDir } = isolatedEnv({ FORMATBOX_DAEMON_MAX_RSS_MB: '1' });
  runtimeDirs.push(runtimeDir);
  const build = buildId(env);
  const samples = await flood(env, build, roots(4), 6);
  assert.ok(Math.max(...samples.map((s) => s.settings)) <= 1, `settings: ${samples.map((s) => s.settings).join(' ')}`);
  assert.ok(Math.max(...samples.map((s) => s.pools)) <= 2, `pools: ${samples.map((s) => s.pools).join(' ')}`);
  assert.ok(samples.at(-1)!.evictions >= 5);
});

test('review case: discovery stopped at its budget says so in the receipt, never "no formatter declared"', { timeout: 120_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'fb-wide-'));
  dirs.push(root);
  // Breadth first: 5,001 empty directories are visited before zz/deep, where the config is.
  for (let i = 0; i <= 5000; i++) mkdirSync(join(root, `d${String(i).padStart(4, '0')}`));
  mkdirSync(join(root, 'zz', 'deep'), { recursive: true });
  writeFileSync(join(root, 'zz', 'deep', '.prettierrc'), '{ "semi": false }\n');
  writeFileSync(join(root, 'zz', 'deep', 'a.css'), 'a{color:red}\n');
  const { env, runtimeDir } = isolatedEnv({ FORMATBOX_NO_DAEMON: '1' });
  runtimeDirs.push(runtimeDir);
  for (const request of [{ method: 'format', path: 'zz/deep/a.css', check: true }, { path: 'zz/deep/b.css', input: { content: 'b{color:blue}\n' } }]) {
    const run = await runBounded(process.execPath, [built.cli, 'apply', '--json', '--root', root], { env, cwd: root, input: JSON.stringify(request) });
    const receipt = JSON.parse(run.stdout) as { status: string; reason: string; line: string };
    assert.equal(receipt.status, 'skipped', run.stdout);
    assert.doesNotMatch(receipt.reason + receipt.line, /no formatter declared/);
    assert.match(receipt.reason, /project config not fully read: the config search stopped \(.*5000 directories/, receipt.reason);
  }
});

test('doctor refuses / as a root, from / and with --root /: no listing of other users\' trees', { timeout: 120_000 }, async () => {
  const { env, runtimeDir } = isolatedEnv({ FORMATBOX_NO_DAEMON: '1' });
  runtimeDirs.push(runtimeDir);
  for (const [what, args, cwd] of [['cwd /', [], '/'], ['--root /', ['--root', '/'], tmpdir()], ['--root /home', ['--root', '/home'], tmpdir()], ['cwd /etc', [], '/etc']] as const) {
    const run = await runBounded(process.execPath, [built.cli, 'doctor', ...args], { env, cwd });
    assert.notEqual(run.code, 0, `${what}: ${run.stdout}`);
    assert.match(run.stdout + run.stderr, /cannot be a project root/, what);
    assert.doesNotMatch(run.stdout, /ignored project config/, `${what}: nothing listed`);
  }
});

test('the sweep takes a zombie writer for gone; a live one, its own and a stranger\'s temp file stay', { timeout: 60_000 }, async () => {
  // python3 forks a child, kills it and does not reap it: the child stays a zombie while the parent sleeps.
  const parent = spawn('python3', ['-c', 'import os,signal,sys,time\npid=os.fork()\nif pid==0:\n  time.sleep(60)\nelse:\n  os.kill(pid, signal.SIGKILL)\n  time.sleep(0.2)\n  print(pid, flush=True)\n  time.sleep(30)\n'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const zombie = await new Promise<number>((done) => parent.stdout.once('data', (chunk: Buffer) => done(Number(chunk.toString().trim()))));
  const live = spawn('sleep', ['30']);
  try {
    assert.equal(processAlive(zombie), false, 'a zombie is not alive');
    assert.equal(processAlive(live.pid!), true, 'a live process is');
    assert.equal(processAlive(process.pid), true);
    const dir = mkdtempSync(join(tmpdir(), 'fb-sweep-'));
    dirs.push(dir);
    const names = { zombie: tempNameFor('a.ts', zombie), live: tempNameFor('b.ts', live.pid!), own: tempNameFor('c.ts'), stranger: '.d.ts.formatbox-1-aaaaaaaaaaaa-bbbbbbbbbbbbbbbb.tmp' };
    for (const name of Object.values(names)) writeFileSync(join(dir, name), 'partial');
    const removed = sweepTemps(dir);
    assert.deepEqual(removed, [join(dir, names.zombie)]);
    assert.equal(existsSync(join(dir, names.live)), true);
    assert.equal(existsSync(join(dir, names.own)), true);
    assert.equal(existsSync(join(dir, names.stranger)), true, 'a name without formatbox\'s mac is never removed');
    assert.ok(process.memoryUsage.rss() < 1024 * 1024 * 1024, 'the test process stays under 1 GiB');
  } finally {
    parent.kill('SIGKILL');
    live.kill('SIGKILL');
  }
});
