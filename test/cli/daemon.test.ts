// The per-user daemon, driven through the real built CLI (dist/cli.js): concurrent first calls
// leave exactly one daemon, idle exit, a version mismatch replaces it, a killed daemon is recovered,
// unsafe socket directories are refused, and settings travel with each request.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chownSync, chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { cleanUp, daemonPids, installCopy, isolatedEnv, project, runCli, waitFor } from './built-cli.js';

const current = await installCopy();
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const clean of cleanups) await clean();
  rmSync(current.dir, { recursive: true, force: true });
});

const BIOME = { 'biome.json': '{ "formatter": { "indentStyle": "space" } }\n' };

function isolated(extra: Record<string, string> = {}) {
  const iso = isolatedEnv(extra);
  cleanups.push(() => cleanUp(iso.runtimeDir));
  return iso;
}

function tracked(root: string): string {
  cleanups.push(async () => rmSync(root, { recursive: true, force: true }));
  return root;
}

async function status(env: NodeJS.ProcessEnv): Promise<{ pid: number; version: string } | undefined> {
  const run = await runCli(current.cli, ['daemon', 'status', '--json'], { env });
  return run.code === 0 ? JSON.parse(run.stdout) : undefined;
}

const applyArgs = (root: string) => ['apply', '--json', '--root', root];
const editOf = (path: string, from: string, to: string) => JSON.stringify({ path, input: { oldText: from, newText: to } });

test('10 concurrent first calls leave exactly one daemon, and every call gets its receipt', { timeout: 120_000 }, async () => {
  const { env, runtimeDir } = isolated();
  const files: Record<string, string> = { ...BIOME };
  for (let i = 0; i < 10; i++) files[`f${i}.ts`] = `export const v${i} = ${i};\n`;
  const root = tracked(project(files));
  const runs = await Promise.all(Array.from({ length: 10 }, (_, i) => runCli(current.cli, applyArgs(root), { env, input: editOf(`f${i}.ts`, `v${i} = ${i};`, `v${i}=[${i},${i}]`) })));
  for (const [i, run] of runs.entries()) {
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).status, 'formatted');
    assert.equal(readFileSync(join(root, `f${i}.ts`), 'utf8'), `export const v${i} = [${i}, ${i}];\n`);
    assert.doesNotMatch(run.stderr, /in this process/, 'every call reached the daemon');
  }
  const pids = daemonPids(runtimeDir);
  assert.equal(pids.length, 1, `daemons running: ${pids.join(', ')}`);
  assert.equal((await status(env))?.pid, pids[0]);
  const dir = join(runtimeDir, 'formatbox');
  assert.equal(lstatSync(dir).mode & 0o777, 0o700);
  assert.equal(lstatSync(join(dir, 'daemon.sock')).mode & 0o777, 0o600);
  assert.ok(!existsSync(join(dir, 'daemon.lock')), 'the start lock is released');
});

test('the daemon exits after its idle time and removes its socket; the next call starts a new one', { timeout: 120_000 }, async () => {
  const { env, runtimeDir } = isolated({ FORMATBOX_DAEMON_IDLE_MS: '1500' });
  const root = tracked(project({ ...BIOME, 'a.ts': 'export const a = 1;\n' }));
  const first = await runCli(current.cli, applyArgs(root), { env, input: editOf('a.ts', 'a = 1;', 'a=2') });
  assert.equal(first.code, 0, first.stderr);
  const [pid] = daemonPids(runtimeDir);
  assert.ok(pid, 'a daemon is running');
  assert.equal((await status(env))?.pid, pid);
  await waitFor(() => daemonPids(runtimeDir).length === 0, 30_000, 'the idle daemon to exit');
  assert.ok(!existsSync(join(runtimeDir, 'formatbox', 'daemon.sock')), 'its socket is removed');
  assert.match(readFileSync(join(runtimeDir, 'formatbox', 'daemon.log'), 'utf8'), /stopping: idle for 1500 ms/);
  const again = await runCli(current.cli, applyArgs(root), { env, input: editOf('a.ts', 'a = 2;', 'a=3') });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(readFileSync(join(root, 'a.ts'), 'utf8'), 'export const a = 3;\n');
});

test('a daemon of another formatbox version is replaced, without acting on the request', { timeout: 120_000 }, async () => {
  const old = await installCopy('0.0.0-old');
  cleanups.push(async () => rmSync(old.dir, { recursive: true, force: true }));
  const { env, runtimeDir } = isolated();
  const root = tracked(project({ ...BIOME, 'a.ts': 'export const a = 1;\n' }));
  const byOld = await runCli(old.cli, applyArgs(root), { env, input: editOf('a.ts', 'a = 1;', 'a=2') });
  assert.equal(byOld.code, 0, byOld.stderr);
  const oldStatus = await runCli(old.cli, ['daemon', 'status', '--json'], { env });
  const oldPid = JSON.parse(oldStatus.stdout).pid as number;
  assert.equal(JSON.parse(oldStatus.stdout).version, '0.0.0-old');

  const byNew = await runCli(current.cli, applyArgs(root), { env, input: editOf('a.ts', 'a = 2;', 'a=3') });
  assert.equal(byNew.code, 0, byNew.stderr);
  assert.equal(JSON.parse(byNew.stdout).status, 'formatted');
  assert.equal(readFileSync(join(root, 'a.ts'), 'utf8'), 'export const a = 3;\n');
  await waitFor(() => !daemonPids(runtimeDir).includes(oldPid), 15_000, 'the old daemon to exit');
  const now = await status(env);
  assert.equal(now?.version, current.version);
  assert.notEqual(now?.pid, oldPid);
  assert.deepEqual(daemonPids(runtimeDir), [now?.pid]);

  // Same version, rebuilt bundle (another mtime): replaced too.
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(current.dir, 'dist', 'cli-main.js'), later, later);
  const rebuilt = await runCli(current.cli, applyArgs(root), { env, input: editOf('a.ts', 'a = 3;', 'a=4') });
  assert.equal(rebuilt.code, 0, rebuilt.stderr);
  await waitFor(() => !daemonPids(runtimeDir).includes(now?.pid as number), 15_000, 'the daemon of the earlier build to exit');
  assert.notEqual((await status(env))?.pid, now?.pid);
});

test('a killed daemon (stale socket left behind) is recovered by the next call', { timeout: 120_000 }, async () => {
  const { env, runtimeDir } = isolated();
  const root = tracked(project({ ...BIOME, 'a.ts': 'export const a = 1;\n' }));
  assert.equal((await runCli(current.cli, applyArgs(root), { env, input: editOf('a.ts', 'a = 1;', 'a=2') })).code, 0);
  const [pid] = daemonPids(runtimeDir);
  process.kill(pid as number, 'SIGKILL');
  await waitFor(() => daemonPids(runtimeDir).length === 0, 10_000, 'the killed daemon to go');
  assert.ok(lstatSync(join(runtimeDir, 'formatbox', 'daemon.sock')).isSocket(), 'the stale socket is still there');
  const next = await runCli(current.cli, applyArgs(root), { env, input: editOf('a.ts', 'a = 2;', 'a=3') });
  assert.equal(next.code, 0, next.stderr);
  assert.doesNotMatch(next.stderr, /in this process/);
  assert.equal(readFileSync(join(root, 'a.ts'), 'utf8'), 'export const a = 3;\n');
  const pids = daemonPids(runtimeDir);
  assert.equal(pids.length, 1);
  assert.notEqual(pids[0], pid);
  const stop = await runCli(current.cli, ['daemon', 'stop'], { env });
  assert.equal(stop.code, 0, stop.stderr);
  await waitFor(() => daemonPids(runtimeDir).length === 0, 15_000, 'daemon stop');
  assert.equal((await runCli(current.cli, ['daemon', 'status'], { env })).code, 1);
});

test('unsafe socket directories are refused: another user\'s, a symlink, group/other access; the call still formats in-process', { timeout: 180_000 }, async (t) => {
  const text = 'export const a=[1,2]\n';
  const expected = 'export const a = [1, 2];\n';
  const root = tracked(project({ ...BIOME }));
  const cases: Array<[string, (dir: string, runtimeDir: string) => void, RegExp]> = [
    ['another user owns it', (dir) => {
      mkdirSync(dir, { mode: 0o700 });
      chownSync(dir, 65534, 65534);
    }, /belongs to uid 65534/],
    ['a symlink', (dir, runtimeDir) => {
      mkdirSync(join(runtimeDir, 'elsewhere'), { mode: 0o700 });
      symlinkSync(join(runtimeDir, 'elsewhere'), dir);
    }, /is a symlink/],
    ['mode 0755', (dir) => {
      mkdirSync(dir, { mode: 0o700 });
      chmodSync(dir, 0o755);
    }, /has mode 755/],
    ['a file, not a directory', (dir) => writeFileSync(dir, ''), /not a directory/],
  ];
  if (process.getuid?.() !== 0) t.diagnostic('not root: the other-user case uses chown and needs root; it is skipped');
  for (const [name, arrange, refusal] of cases) {
    if (name === 'another user owns it' && process.getuid?.() !== 0) continue;
    const { env, runtimeDir } = isolated();
    const dir = join(runtimeDir, 'formatbox');
    arrange(dir, runtimeDir);
    const run = await runCli(current.cli, ['format', '--stdin-filepath', join(root, 'a.ts'), '--root', root], { env, input: text });
    assert.equal(run.code, 0, `${name}: ${run.stderr}`);
    assert.equal(run.stdout, expected, name);
    assert.match(run.stderr, refusal, name);
    assert.match(run.stderr, /formatting in this process/, name);
    assert.deepEqual(daemonPids(runtimeDir), [], `${name}: no daemon started`);
    assert.ok(!existsSync(join(runtimeDir, 'elsewhere', 'daemon.sock')) && !existsSync(join(dir, 'daemon.sock')), `${name}: no socket created`);
    const direct = await runCli(current.cli, ['daemon', 'run', '--socket', join(dir, 'daemon.sock')], { env });
    assert.equal(direct.code, 4, `${name}: daemon run refuses too: ${direct.stderr}`);
    assert.match(direct.stderr, refusal, `${name}: daemon run says why`);
    assert.doesNotMatch(direct.stderr, /PATH_REFUSED/, `${name}: no internal code for a person`);
  }
});

test('settings travel with each request: one caller\'s --config never applies to another\'s, through the same daemon', { timeout: 120_000 }, async () => {
  const { env, runtimeDir } = isolated();
  const root = tracked(project({ 'a.ts': 'export const a = 1;\n', 'b.ts': 'export const b = 1;\n' }));
  // No project config: only a user config with mode 'always' makes formatbox format this file.
  const configFile = join(runtimeDir, 'always.json');
  writeFileSync(configFile, '{ "mode": "always" }\n');
  const withConfig = await runCli(current.cli, ['format', '--stdin-filepath', 'x.ts', '--root', root, '--config', configFile], { env, cwd: root, input: 'function f(){return 1}\n' });
  assert.equal(withConfig.code, 0, withConfig.stderr);
  const plain = await runCli(current.cli, ['format', '--stdin-filepath', 'x.ts', '--root', root], { env, cwd: root, input: 'function f(){return 1}\n' });
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(daemonPids(runtimeDir).length, 1, 'one daemon answered both');
  assert.match(withConfig.stdout, /^function f\(\) \{\n\s+return 1;\n\}\n$/, 'the caller with the config gets it formatted');
  assert.equal(plain.stdout, 'function f(){return 1}\n', 'the caller without it gets the text back as it was');
  const broken = join(runtimeDir, 'broken.json');
  writeFileSync(broken, '{ nope');
  const bad = await runCli(current.cli, ['format', '--stdin-filepath', 'x.ts', '--root', root, '--config', broken], { env, cwd: root, input: 'x\n' });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /broken\.json: /);
  // A relative root in the request is the caller's, not the daemon's (whose working directory is /).
  const relative = await runCli(current.cli, ['apply', '--json'], { env, cwd: join(root, '..'), input: JSON.stringify({ root: basename(root), path: 'b.ts', input: { content: 'export const b={b:1}\n' } }) });
  assert.equal(relative.code, 0, relative.stderr);
  assert.equal(readFileSync(join(root, 'b.ts'), 'utf8'), 'export const b={b:1}\n', 'no project config: written as given');
  const afterBad = await runCli(current.cli, ['format', '--stdin-filepath', 'x.ts', '--root', root], { env, cwd: root, input: 'function f(){return 1}\n' });
  assert.equal(afterBad.stdout, plain.stdout, 'a broken config of one caller leaves the next caller alone');
});

test('the thin entry loads no formatter and no engine; --no-daemon and FORMATBOX_NO_DAEMON=1 format in-process', { timeout: 120_000 }, async () => {
  const entry = readFileSync(current.cli, 'utf8');
  const staticImports = [...entry.matchAll(/^import .* from ["']([^"']+)["'];?$/gm)].map((m) => m[1] as string);
  assert.ok(staticImports.length > 0);
  assert.deepEqual(staticImports.filter((s) => !s.startsWith('node:')), [], 'only Node builtins are imported statically');
  const dynamicImports = [...new Set([...entry.matchAll(/import\(["']([^"']+)["']\)/g)].map((m) => m[1]))].sort();
  assert.deepEqual(dynamicImports, ['./cli-format-main.js', './cli-local.js', './cli-main.js', './cli-mcp.js', 'node:child_process']);
  // esbuild names each bundled module in a comment: the client, its paths, the error class and the
  // project-root finder and the containment test (Node builtins only: the request goes to the daemon
  // placed in its root), the version (read from package.json) and the escaping of shown paths (the
  // containment rule's refusals name the root) only.
  const modules = [...entry.matchAll(/^\/\/ (src\/\S+)$/gm)].map((m) => m[1] as string);
  assert.ok(modules.includes('src/cli/entry.ts') && modules.includes('src/cli/daemon-client.ts'), modules.join(' '));
  // Also the ownership check of the daemon's directory and the secret's file, and the request
  // service's root placement and config path (small modules over Node builtins).
  const thin = new Set(['src/core/errors.ts', 'src/core/shown.ts', 'src/node/project-root.ts', 'src/node/fs/inside.ts', 'src/node/process-alive.ts', 'src/node/version.ts', 'src/node/fs/owned.ts', 'src/node/fs/secret-file.ts', 'src/node/service/request-root.ts', 'src/node/service/user-config-path.ts']);
  assert.deepEqual(modules.filter((m) => !m.startsWith('src/cli/') && !thin.has(m)), [], 'no engine, runtime, config or formatter module');

  for (const [name, args, extra] of [['--no-daemon', ['--no-daemon'], {}], ['FORMATBOX_NO_DAEMON=1', [], { FORMATBOX_NO_DAEMON: '1' }]] as const) {
    const { env, runtimeDir } = isolated(extra);
    const root = tracked(project({ ...BIOME, 'a.ts': 'export const a = 1;\n' }));
    const run = await runCli(current.cli, [...applyArgs(root), ...args], { env, input: editOf('a.ts', 'a = 1;', 'a=[1]') });
    assert.equal(run.code, 0, `${name}: ${run.stderr}`);
    assert.equal(readFileSync(join(root, 'a.ts'), 'utf8'), 'export const a = [1];\n');
    assert.deepEqual(daemonPids(runtimeDir), [], `${name}: no daemon`);
    assert.ok(!existsSync(join(runtimeDir, 'formatbox')), `${name}: no daemon directory`);
  }
});

test('a warm daemon follows project config changed on disk', { timeout: 120_000 }, async () => {
  const { env } = isolated();
  const root = tracked(project({ 'biome.json': '{ "formatter": { "indentStyle": "space" } }\n' }));
  const text = 'function f(){return 1}\n';
  const spaces = await runCli(current.cli, ['format', '--stdin-filepath', 'x.ts'], { env, cwd: root, input: text });
  assert.equal(spaces.stdout, 'function f() {\n  return 1;\n}\n');
  writeFileSync(join(root, 'biome.json'), '{ "formatter": { "indentStyle": "tab" } }\n');
  const tabs = await runCli(current.cli, ['format', '--stdin-filepath', 'x.ts'], { env, cwd: root, input: text });
  assert.equal(tabs.stdout, 'function f() {\n\treturn 1;\n}\n');
});

test('a daemon that cannot start (a plain file where its socket goes) is noticed at once: the call formats in-process', { timeout: 120_000 }, async () => {
  const { env, runtimeDir } = isolated();
  const dir = join(runtimeDir, 'formatbox');
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, 'daemon.sock'), 'not a socket');
  const root = tracked(project({ ...BIOME }));
  const started = Date.now();
  const run = await runCli(current.cli, ['format', '--stdin-filepath', 'a.ts', '--root', root], { env, cwd: root, input: 'export const a=[1,2]\n' });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, 'export const a = [1, 2];\n');
  // The socket path is checked before any connect (socket-auth.ts): no daemon is even started.
  assert.match(run.stderr, /daemon\.sock is not a socket\).*formatting in this process/s);
  assert.ok(Date.now() - started < 14_000, 'well before the 15 s start timeout');
  assert.equal(readFileSync(join(dir, 'daemon.sock'), 'utf8'), 'not a socket', 'the file is left alone');
});
