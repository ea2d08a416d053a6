/**
 * Hostile project code in the sandboxed project toolchain (untrusted mode, `projectCode: 'sandbox'`):
 * a project whose `.prettierrc` loads a plugin of its own (`./evil.mjs`, wrapping Prettier's babel
 * parser) that tries to get out. Each probe records what it tried in the file's first line
 * (`// probe {...}`): `ok: …` when it worked, `denied: …` when it did not. Every test has a time
 * bound and the worker an address-space ceiling; afterwards the host is checked (marker files
 * absent, no process left, project unchanged) and the next edit works on a fresh worker.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRuntime, type Runtime } from '../../src/node/index.js';
import { stopProjectToolchains } from '../../src/node/project-toolchain/index.js';
import { missing } from '../sandbox/helpers.js';
import { installedPackages, projectWith } from '../sandbox/npm-projects.js';

const ID = `${process.pid}${Math.floor(Math.random() * 1e6)}`;
const MARK = `fbtoolchain${ID}`;
const HOME = homedir();
const SSH_FILE = join(HOME, '.ssh', `fb-toolchain-probe-${ID}`);
const OTHER = join(tmpdir(), `fb-toolchain-other-${ID}`);
const PRIOR = 'const a = 1;\n';
const TIMEOUT_MS = 4000;
const skip = missing();
let createdSshDir = false;
let packages = '';
let tcp: Server;
let tcpPort = 0;
let connections = 0;

before(async () => {
  if (skip) return;
  packages = installedPackages('prettier-only', { prettier: '3.6.2' });
  if (!existsSync(join(HOME, '.ssh'))) {
    mkdirSync(join(HOME, '.ssh'), { mode: 0o700 });
    createdSshDir = true;
  }
  writeFileSync(SSH_FILE, 'private key\n');
  mkdirSync(OTHER, { recursive: true });
  writeFileSync(join(OTHER, 'secret.txt'), 'other project\n');
  tcp = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((done) => tcp.listen(0, '127.0.0.1', done));
  tcpPort = (tcp.address() as { port: number }).port;
});

after(() => {
  stopProjectToolchains();
  tcp?.close();
  rmSync(SSH_FILE, { force: true });
  if (createdSshDir) rmdirSync(join(HOME, '.ssh'));
  rmSync(OTHER, { recursive: true, force: true });
});

/**
 * A plugin overriding the babel parser: `setup` runs once when Prettier imports it (top-level await
 * allowed), `each` in `preprocess` for every file (synchronous). Both may call `attempt(name, fn)`.
 */
function evilPlugin(setup: string, each = ''): string {
  return `import * as fs from 'node:fs';
import * as net from 'node:net';
import * as cp from 'node:child_process';
import * as babel from 'prettier/plugins/babel';
const probe = {};
const attempt = async (name, fn) => {
  try { probe[name] = 'ok: ' + String(await fn()).slice(0, 80); } catch (e) { probe[name] = 'denied: ' + (e && (e.code || e.message)); }
};
const attemptSync = (name, fn) => {
  try { probe[name] = 'ok: ' + String(fn()).slice(0, 80); } catch (e) { probe[name] = 'denied: ' + (e && (e.code || e.message)); }
};
${setup}
const base = babel.parsers.babel;
export const parsers = { babel: { ...base, preprocess(text, options) {
  ${each}
  return Object.keys(probe).length ? '// probe ' + JSON.stringify(probe) + '\\n' + text : text;
} } };
`;
}

interface Scene {
  root: string;
  runtime: Runtime;
  cleanup: () => Promise<void>;
}

function scene(plugin: string): Scene {
  const project = projectWith(packages, { '.prettierrc': '{ "plugins": ["./evil.mjs"] }\n', 'evil.mjs': plugin, 'a.js': PRIOR, 'b.js': PRIOR });
  const runtime = createRuntime({ root: project.root, limits: { timeoutMs: TIMEOUT_MS } });
  return {
    root: project.root,
    runtime,
    cleanup: async () => {
      await runtime.close();
      stopProjectToolchains();
      project.cleanup();
    },
  };
}

/** The probe line the plugin wrote into the formatted file. */
function probeOf(content: string): Record<string, string> {
  const match = /^\/\/ probe (\{.*\})$/m.exec(content);
  assert.ok(match, `no probe line in:\n${content.slice(0, 400)}`);
  return JSON.parse(match[1]!) as Record<string, string>;
}

function assertAllDenied(probe: Record<string, string>, names: readonly string[]): void {
  for (const name of names) assert.match(probe[name] ?? 'missing', /^denied: /, `${name} escaped: ${probe[name]}`);
}

/** After any failure: the file holds W (the edit stands), and a clean plugin-free edit of another file works. */
async function assertRecovers(s: Scene, receipt: { status: string; content: string }, written: string): Promise<void> {
  assert.equal(readFileSync(join(s.root, 'a.js'), 'utf8'), written, 'the edit must stand');
  assert.equal(receipt.content, written);
  writeFileSync(join(s.root, 'evil.mjs'), evilPlugin(''));
  const next = await s.runtime.edit({ path: 'b.js', oldText: '1', newText: '2' });
  assert.equal(next.status, 'unchanged', `the next edit must work on a fresh worker: ${next.line}`);
  assert.equal(next.formatter?.via, 'sandbox');
}

const bounded = { timeout: 240_000 };

test('reading ~/.ssh, another project, agent configs, /etc and the host /tmp: nothing is there', bounded, async (t) => {
  if (skip) return t.skip(skip);
  const reads = { ssh: SSH_FILE, home: HOME, other: join(OTHER, 'secret.txt'), claude: join(HOME, '.claude'), codex: join(HOME, '.codex'), passwd: '/etc/passwd', hostTmp: tmpdir() === '/tmp' ? OTHER : join('/tmp', '.X11-unix') };
  const setup = Object.entries(reads).map(([name, path]) => `attemptSync(${JSON.stringify(name)}, () => fs.statSync(${JSON.stringify(path)}).isDirectory() ? fs.readdirSync(${JSON.stringify(path)}).join(',') : fs.readFileSync(${JSON.stringify(path)}, 'utf8'));`).join('\n');
  const s = scene(evilPlugin(`${setup}\nattemptSync('parentModules', () => fs.readdirSync(new URL('../', 'file://' + process.cwd() + '/').pathname).join(','));`));
  try {
    const receipt = await s.runtime.edit({ path: 'a.js', oldText: '1', newText: '2' });
    assert.equal(receipt.status, 'formatted', receipt.line);
    const probe = probeOf(receipt.content);
    assertAllDenied(probe, ['ssh', 'home', 'other', 'claude', 'codex', 'passwd']);
    // The directory above the root exists only as an empty mount point: nothing of the host's is in it but the root.
    assert.match(probe.parentModules ?? '', /^(denied: |ok: [^,]*$)/, probe.parentModules);
  } finally {
    await s.cleanup();
  }
});

test('network: a TCP connection to the host and a DNS lookup fail; nothing reaches the listener', bounded, async (t) => {
  if (skip) return t.skip(skip);
  const s = scene(evilPlugin(`await attempt('tcp', () => new Promise((ok, fail) => { const c = net.connect(${tcpPort}, '127.0.0.1', () => ok('connected')); c.on('error', fail); setTimeout(() => fail(new Error('no answer')), 1000); }));
await attempt('dns', () => import('node:dns/promises').then((dns) => dns.lookup('registry.npmjs.org')).then((r) => r.address));`));
  try {
    const receipt = await s.runtime.edit({ path: 'a.js', oldText: '1', newText: '2' });
    assert.equal(receipt.status, 'formatted', receipt.line);
    assertAllDenied(probeOf(receipt.content), ['tcp', 'dns']);
    assert.equal(connections, 0);
  } finally {
    await s.cleanup();
  }
});

test('writing into the project, the formatter store and the host: read-only or absent; the private /tmp is private', bounded, async (t) => {
  if (skip) return t.skip(skip);
  const store = join(HOME, '.cache', 'formatbox');
  const s = scene(evilPlugin(`attemptSync('project', () => fs.writeFileSync(process.cwd() + '/${MARK}', 'x'));
attemptSync('store', () => { fs.mkdirSync(${JSON.stringify(store)}, { recursive: true }); fs.writeFileSync(${JSON.stringify(join(store, MARK))}, 'x'); });
attemptSync('modules', () => fs.writeFileSync(process.cwd() + '/node_modules/prettier/${MARK}', 'x'));
attemptSync('privateTmp', () => { fs.writeFileSync('/tmp/${MARK}', 'x'); return 'written'; });`));
  try {
    const receipt = await s.runtime.edit({ path: 'a.js', oldText: '1', newText: '2' });
    assert.equal(receipt.status, 'formatted', receipt.line);
    const probe = probeOf(receipt.content);
    assertAllDenied(probe, ['project', 'store', 'modules']);
    assert.equal(probe.privateTmp, 'ok: written');
    assert.ok(!existsSync(join(s.root, MARK)) && !existsSync(join(store, MARK)) && !existsSync(join('/tmp', MARK)) && !existsSync(join(s.root, 'node_modules/prettier', MARK)));
  } finally {
    await s.cleanup();
  }
});

/** Host processes whose command line carries `mark`. */
function hostProcesses(mark: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(mark)) found.push(Number(pid));
    } catch {
      // gone
    }
  }
  return found;
}

async function eventually(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

test('spawning processes: they run only inside the sandbox, as nobody, and none outlives the worker', bounded, async (t) => {
  if (skip) return t.skip(skip);
  const s = scene(evilPlugin(`attemptSync('id', () => cp.execFileSync('/usr/bin/id', ['-u'], { encoding: 'utf8' }).trim());
attemptSync('detached', () => { const c = cp.spawn('/bin/sleep', ['300'], { detached: true, stdio: 'ignore', argv0: '${MARK}' }); c.unref(); return c.pid; });`));
  try {
    const receipt = await s.runtime.edit({ path: 'a.js', oldText: '1', newText: '2' });
    assert.equal(receipt.status, 'formatted', receipt.line);
    const probe = probeOf(receipt.content);
    assert.equal(probe.id, 'ok: 65534');
    assert.ok(await eventually(() => hostProcesses(MARK).length > 0, 5000), 'the detached process should be running (inside the sandbox)');
    stopProjectToolchains();
    assert.ok(await eventually(() => hostProcesses(MARK).length === 0, 5000), `left behind: ${hostProcesses(MARK).join(', ')}`);
  } finally {
    await s.cleanup();
  }
});

test('a fork bomb is bounded (pids cgroup), times out, is killed whole; the edit stands and the next edit works', bounded, async (t) => {
  if (skip) return t.skip(skip);
  const s = scene(evilPlugin('', `for (let i = 0; i < 100000; i++) { try { cp.spawn('/bin/sh', ['-c', ':(){ :|:& };:', '${MARK}'], { detached: true, stdio: 'ignore' }).unref(); } catch {} }
  for (;;) {}`));
  try {
    const receipt = await s.runtime.edit({ path: 'a.js', oldText: '1', newText: '2' });
    assert.ok(receipt.status === 'timeout' || receipt.status === 'failed', receipt.line);
    assert.ok(await eventually(() => hostProcesses(MARK).length === 0, 10_000), 'fork bomb processes left behind');
    await assertRecovers(s, receipt, PRIOR.replace('1', '2'));
  } finally {
    await s.cleanup();
  }
});

test('10 GB of allocations hit the address-space ceiling: a failed receipt, the edit stands, the next edit works', bounded, async (t) => {
  if (skip) return t.skip(skip);
  // allocUnsafe maps without touching: the ceiling stops it, not the host's memory.
  const s = scene(evilPlugin('', `const kept = []; for (let i = 0; i < 40; i++) kept.push(Buffer.allocUnsafe(256 * 1024 * 1024)); globalThis.kept = kept;`));
  try {
    const receipt = await s.runtime.edit({ path: 'a.js', oldText: '1', newText: '2' });
    assert.equal(receipt.status, 'failed', receipt.line);
    assert.match(receipt.reason ?? '', /allocation failed|out of memory|exited|Array buffer/i);
    await assertRecovers(s, receipt, PRIOR.replace('1', '2'));
  } finally {
    await s.cleanup();
  }
});

test('an infinite loop times out and the worker is killed; the edit stands, the next edit works', bounded, async (t) => {
  if (skip) return t.skip(skip);
  const s = scene(evilPlugin('', 'for (;;) {}'));
  try {
    const started = Date.now();
    const receipt = await s.runtime.edit({ path: 'a.js', oldText: '1', newText: '2' });
    assert.equal(receipt.status, 'timeout', receipt.line);
    assert.ok(Date.now() - started < TIMEOUT_MS + 65_000);
    await assertRecovers(s, receipt, PRIOR.replace('1', '2'));
  } finally {
    await s.cleanup();
  }
});

test('1 GB written on the answer pipe, invalid UTF-8, and a forged answer: the worker is killed, nothing is written', bounded, async (t) => {
  if (skip) return t.skip(skip);
  const floods = {
    flood: `const chunk = Buffer.alloc(1 << 20, 97); for (let i = 0; i < 1024; i++) fs.writeSync(3, chunk);`,
    invalidUtf8: `fs.writeSync(3, Buffer.from([0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x31, 0xff, 0xfe, 0x7d, 0x0a]));`,
    forged: `fs.writeSync(3, JSON.stringify({ id: 1, kind: 'ok', text: 'forged', config: '/etc/passwd', plugins: [] }) + '\\n');`,
  };
  for (const [name, body] of Object.entries(floods)) {
    const s = scene(evilPlugin('', body));
    try {
      const receipt = await s.runtime.edit({ path: 'a.js', oldText: '1', newText: '2' });
      assert.equal(receipt.status, 'failed', `${name}: ${receipt.line}`);
      assert.match(receipt.reason ?? '', /sandboxed worker (sent|was stopped)|malformed|not UTF-8|more than/, `${name}: ${receipt.reason}`);
      await assertRecovers(s, receipt, PRIOR.replace('1', '2'));
    } finally {
      await s.cleanup();
    }
  }
});

test('a change far outside the edit is not hidden: it goes to the diff and replay(P, input) + diff = F', bounded, async (t) => {
  if (skip) return t.skip(skip);
  const s = scene(evilPlugin('', `if (text.includes('edited')) text = text.replace('const z = 0;', 'const z = "injected";');`));
  const prior = `const z = 0;\n${'// line\n'.repeat(60)}const a = 1;\n`;
  writeFileSync(join(s.root, 'a.js'), prior);
  try {
    const receipt = await s.runtime.edit({ path: 'a.js', oldText: 'const a = 1;', newText: 'const a = "edited";' });
    assert.equal(receipt.status, 'formatted', receipt.line);
    assert.ok(receipt.content.startsWith('const z = "injected";'));
    assert.deepEqual(receipt.input, { oldText: 'const a = 1;', newText: 'const a = "edited";' });
    assert.match(receipt.diff ?? '', /^\+const z = "injected";$/m);
    assert.equal(readFileSync(join(s.root, 'a.js'), 'utf8'), receipt.content);
  } finally {
    await s.cleanup();
  }
});

test('killing its parent (the sandbox init) and a host pid: the host lives, the edit stands, the next edit works', bounded, async (t) => {
  if (skip) return t.skip(skip);
  const s = scene(evilPlugin('', `try { process.kill(${process.pid}, 'SIGKILL'); } catch {}
  process.kill(process.ppid, 'SIGKILL'); for (;;) {}`));
  try {
    const receipt = await s.runtime.edit({ path: 'a.js', oldText: '1', newText: '2' });
    assert.ok(receipt.status === 'failed' || receipt.status === 'timeout', receipt.line);
    await assertRecovers(s, receipt, PRIOR.replace('1', '2'));
  } finally {
    await s.cleanup();
  }
});

test('surviving its parent: when the formatbox process is SIGKILLed, every sandboxed process dies with it', bounded, async (t) => {
  if (skip) return t.skip(skip);
  const project = projectWith(packages, {
    '.prettierrc': '{ "plugins": ["./evil.mjs"] }\n',
    'evil.mjs': evilPlugin(`cp.spawn('/bin/sleep', ['300'], { detached: true, stdio: 'ignore', argv0: '${MARK}-orphan' }).unref();`),
    'a.js': PRIOR,
  });
  const script = `import { createRuntime } from ${JSON.stringify(resolve('src/node/index.ts'))};
const runtime = createRuntime({ root: ${JSON.stringify(project.root)} });
const receipt = await runtime.format({ path: 'a.js' });
console.log(receipt.status + ' ' + receipt.formatter?.via);
setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: resolve('.'), stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const status = await new Promise<string>((done) => child.stdout!.once('data', (chunk: Buffer) => done(chunk.toString().trim())));
    assert.equal(status, 'unchanged sandbox');
    assert.ok(await eventually(() => hostProcesses(`${MARK}-orphan`).length > 0, 5000), 'the sandboxed process should be running');
    child.kill('SIGKILL');
    // bwrap's command line names the project root: nothing of the sandbox is left.
    assert.ok(await eventually(() => hostProcesses(`${MARK}-orphan`).length === 0 && hostProcesses(project.root).length === 0, 10_000), 'sandboxed processes outlived formatbox');
  } finally {
    child.kill('SIGKILL');
    project.cleanup();
  }
});
