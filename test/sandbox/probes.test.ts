/**
 * Escape probes: each is a user formatter command (a shell is fine as the probe itself; formatbox
 * never adds one) that tries to get out. Each probe reports on its first stderr line: `ESCAPED: …`
 * when the attempt worked, `contained: …` when it did not, then exits 1. Where it is safe, the same
 * probe is also run outside the sandbox (a control) to show it would notice an escape.
 * Afterwards the host is checked: marker files absent, no probe process left, project unchanged.
 * Every receipt must be a clean `failed` or `timeout`.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, rmdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../../src/engine/engine.js';
import { createSubprocessFormatters } from '../../src/node/subprocess.js';
import type { Receipt } from '../../src/core/types.js';
import { pidsLimitAvailable } from '../../src/node/sandbox/cgroup.js';
import { bwrapSandbox } from '../../src/node/sandbox/bwrap.js';
import { commandFormatter } from '../../src/formatters/command.js';
import { missing, sandbox, tempProject } from './helpers.js';

const ID = `${process.pid}${Math.floor(Math.random() * 1e6)}`;
const MARK = `fbprobe${ID}`;
const SECRET_VAR = `FB_PROBE_SECRET_${ID}`;
const HOST_TMP = join(tmpdir(), `fb-probe-host-${ID}`);
const HOME = homedir();
const SSH_DIR = join(HOME, '.ssh');
const SSH_FILE = join(SSH_DIR, `fb-probe-${ID}`);
let createdSshDir = false;
let project: ReturnType<typeof tempProject>;
let tcp: Server;
let unix: Server;
let abstract: ChildProcess;
let tcpPort = 0;
const connections = { tcp: 0, unix: 0, abstract: 0 };
const skip = missing();

const py = (code: string) => ['/usr/bin/python3', '-c', code, MARK];
const sh = (script: string) => ['/bin/sh', '-c', script, MARK];
const report = (ok: string, what: string) => `if ${ok}; then echo "ESCAPED: ${what}" >&2; else echo "contained: ${what}" >&2; fi; exit 1`;

before(async () => {
  if (skip) return;
  mkdirSync(HOST_TMP, { recursive: true });
  writeFileSync(join(HOST_TMP, 'secret.txt'), 'host secret\n');
  if (!existsSync(SSH_DIR)) {
    mkdirSync(SSH_DIR, { mode: 0o700 });
    createdSshDir = true;
  }
  writeFileSync(SSH_FILE, 'not a real key\n', { mode: 0o600 });
  process.env[SECRET_VAR] = 'parent-secret';
  project = tempProject({ 'src/a.probe': 'x\n', 'README.md': 'probe project\n' });
  symlinkSync(join(HOST_TMP, 'secret.txt'), join(project.root, 'src', 'leak.txt'));
  tcp = createServer((s) => { connections.tcp++; s.destroy(); });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  tcpPort = (tcp.address() as { port: number }).port;
  unix = createServer((s) => { connections.unix++; s.destroy(); });
  await new Promise<void>((resolve) => unix.listen(join(HOST_TMP, 'sock'), resolve));
  // Node cannot listen on an abstract socket name; a small Python server does, and reports each connection.
  abstract = spawn('/usr/bin/python3', ['-c', `
import socket
s = socket.socket(socket.AF_UNIX)
s.bind('\\0${MARK}')
s.listen()
print('ready', flush=True)
while True:
    c, _ = s.accept()
    print('conn', flush=True)
    c.close()
`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => {
    abstract.stdout!.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      connections.abstract += (text.match(/conn/g) ?? []).length;
      if (text.includes('ready')) resolve();
    });
  });
});

after(() => {
  if (skip) return;
  tcp.close();
  unix.close();
  abstract.kill('SIGKILL');
  delete process.env[SECRET_VAR];
  rmSync(HOST_TMP, { recursive: true, force: true });
  rmSync(SSH_FILE, { force: true });
  if (createdSshDir) rmdirSync(SSH_DIR);
  project.cleanup();
});

/** Runs one probe as the formatter for `src/a.probe` and returns the receipt of a `write`. */
async function probe(argv: string[], timeoutMs = 5000, maxMemoryBytes?: number): Promise<Receipt> {
  const sub = createSubprocessFormatters({ sandbox, root: project.root, timeoutMs, ...(maxMemoryBytes ? { maxMemoryBytes } : {}) });
  const engine = createEngine({
    formatters: sub.adapters,
    adapterFor: sub.adapterFor,
    config: { formatters: { '**/*.probe': { command: argv } }, timeoutMs: timeoutMs + 2000 },
  });
  return engine.afterEdit({ path: 'src/a.probe', prior: 'x\n', input: { content: 'hello\n' } });
}

/** The same probe outside the sandbox (control): its verdict line. */
function control(argv: string[]): string {
  const result = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', env: process.env, timeout: 10_000 });
  return result.stderr.split('\n')[0] ?? '';
}

function assertContained(receipt: Receipt, what: string): void {
  assert.equal(receipt.status, 'failed', `${what}: ${receipt.line}`);
  assert.equal(receipt.content, 'hello\n', 'the edit stands, unformatted');
  assert.match(receipt.line, /^formatter failed \(\S+ user command, sandbox, exit 1\): src\/a\.probe: contained: /);
}

function leftoverProcesses(): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid || Number(entry) === abstract.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes(MARK) || cmdline.includes(`7${ID.slice(-6)}`)) found.push(`${entry}: ${cmdline.replace(/\0/g, ' ')}`);
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

function snapshot(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort().map((p) => {
    const full = join(dir, p);
    try {
      const stat = statSync(full);
      return `${p}:${stat.size}:${stat.mtimeMs}`;
    } catch {
      return `${p}:dangling`;
    }
  }).join('\n');
}

test('network: no TCP connection to the host, no DNS', { skip }, async () => {
  const tcpProbe = py(`
import socket, sys
try:
    socket.create_connection(('127.0.0.1', ${tcpPort}), timeout=2).close(); print('ESCAPED: tcp connect', file=sys.stderr)
except Exception as e:
    print('contained: tcp connect:', e, file=sys.stderr)
try:
    socket.create_connection(('1.1.1.1', 53), timeout=2).close(); print('ESCAPED: tcp to the internet', file=sys.stderr)
except Exception as e:
    pass
sys.exit(1)`);
  assert.match(control(tcpProbe), /^ESCAPED: tcp connect/, 'control: the probe connects when unsandboxed');
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.ok(connections.tcp > 0, 'the host server saw the control connection');
  const before = connections.tcp;
  assertContained(await probe(tcpProbe), 'tcp');
  assert.equal(connections.tcp, before, 'no connection reached the host server');

  const dnsProbe = py(`
import socket, sys
names = []
for name in ('localhost', 'example.com'):
    try:
        socket.getaddrinfo(name, 80); names.append(name)
    except Exception:
        pass
print(('ESCAPED: resolved ' + ','.join(names)) if names else 'contained: no name resolves', file=sys.stderr)
sys.exit(1)`);
  assert.match(control(dnsProbe), /^ESCAPED: resolved localhost/, 'control: localhost resolves on the host');
  assertContained(await probe(dnsProbe), 'dns');
});

test('no host Unix socket (path or abstract) is reachable', { skip }, async () => {
  const unixProbe = py(`
import socket, sys
hit = []
for name, addr in (('path', '${join(HOST_TMP, 'sock')}'), ('abstract', '\\0${MARK}')):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(addr); hit.append(name)
    except Exception:
        pass
print(('ESCAPED: ' + ','.join(hit)) if hit else 'contained: no socket', file=sys.stderr)
sys.exit(1)`);
  assert.match(control(unixProbe), /^ESCAPED: path,abstract/);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.ok(connections.unix > 0 && connections.abstract > 0, 'the host servers saw the control connections');
  const before = { ...connections };
  assertContained(await probe(unixProbe), 'unix');
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(connections, before, 'no connection reached the host servers');
});

test('writes: the project, $HOME, the host /tmp and /dev (shm) stay untouched', { skip }, async () => {
  const projectBefore = snapshot(project.root);
  const targets = [join('/dev/shm', `${MARK}-shm`), join('/dev', `${MARK}-dev`), join(project.root, `${MARK}-project`), join(project.root, 'src', 'a.probe'), join(HOME, `${MARK}-home`), join('/tmp', `${MARK}-tmp`), join(HOST_TMP, `${MARK}-hosttmp`)];
  for (const target of targets) {
    // Inside, /tmp is the private tmpfs, so that write succeeds there; the host check below is what counts.
    const privateTmp = target.startsWith('/tmp/fbprobe');
    const receipt = await probe(sh(report(`{ echo pwned >> '${target}'; } 2>/dev/null && ${privateTmp ? 'false' : 'true'}`, `write ${target}`)));
    assertContained(receipt, target);
  }
  for (const target of targets.filter((t) => !t.endsWith('a.probe'))) assert.equal(existsSync(target), false, `${target} must not exist on the host`);
  assert.equal(readFileSync(join(project.root, 'src', 'a.probe'), 'utf8'), 'x\n');
  assert.equal(snapshot(project.root), projectBefore);
});

test('reads: ~/.ssh, /proc/1/environ, the parent environment, a symlink out of the root', { skip }, async () => {
  const reads: Array<[string, string[]]> = [
    ['~/.ssh', sh(report(`cat '${SSH_FILE}' >/dev/null 2>&1 || ls '${SSH_DIR}' >/dev/null 2>&1`, 'read ~/.ssh'))],
    ['environ', sh(report(`cat /proc/1/environ /proc/self/environ /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -q '${SECRET_VAR}' || env | grep -q '${SECRET_VAR}'`, 'parent environment'))],
    ['symlink', sh(report(`cat '${join(project.root, 'src', 'leak.txt')}' 2>/dev/null | grep -q 'host secret'`, 'symlink out of the root'))],
    ['/etc', sh(report(`[ -e /etc/shadow ] || [ -e /etc/passwd ] || [ -e /root ]`, '/etc or /root'))],
  ];
  for (const [what, argv] of reads) {
    if (what !== '/etc') assert.match(control(argv), /^ESCAPED/, `control for ${what}`);
    assertContained(await probe(argv), what);
  }
});

test('temp-file mode: the copy swapped for a symlink or a FIFO never reads a host file back', { skip }, async () => {
  const secret = join(HOST_TMP, 'secret.txt');
  for (const backend of [sandbox, bwrapSandbox({ readBack: 'supervisor' })]) {
    const swap = commandFormatter({ name: 'swap', languages: ['text'], argv: ['/bin/sh', '-c', `rm -f "$1"; ln -s '${secret}' "$1"`, 'swap', '{file}'] }, { sandbox: backend, root: project.root });
    const result = await swap.format({ path: 'src/a.probe', language: 'text', text: 'x\n', settings: {} });
    assert.equal(result.kind, 'error', JSON.stringify(result));
    assert.doesNotMatch(JSON.stringify(result), /host secret/);
  }
  const fifo = commandFormatter({ name: 'fifo', languages: ['text'], argv: ['/bin/sh', '-c', 'rm -f "$1"; mkfifo "$1"', 'fifo', '{file}'] }, { sandbox, root: project.root, timeoutMs: 3000 });
  const result = await fifo.format({ path: 'src/a.probe', language: 'text', text: 'x\n', settings: {} });
  assert.ok(result.kind === 'error' || result.kind === 'timeout', JSON.stringify(result));
});

test('a daemon (setsid) and a fork bomb are killed at the timeout; nothing is left running', { skip }, async () => {
  const daemonTag = `7${ID.slice(-6)}`;
  const started = performance.now();
  // The formatter exits and leaves a daemon: bwrap ends with it and takes the whole PID namespace along.
  const exited = await probe(sh(`setsid sleep ${daemonTag} < /dev/null > /dev/null 2>&1 & echo "contained: daemon started" >&2; exit 1`), 1500);
  assertContained(exited, 'daemon, formatter exited');
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual(leftoverProcesses(), []);
  // The formatter hangs and has a daemon: the timeout kills both.
  const daemon = await probe(sh(`setsid sleep ${daemonTag} < /dev/null > /dev/null 2>&1 & sleep ${daemonTag}`), 1500);
  assert.equal(daemon.status, 'timeout', daemon.line);
  assert.equal(daemon.content, 'hello\n');
  assert.match(daemon.line, /^formatter timed out \(sh\) after \d+ ms: src\/a\.probe$/);
  // Safety bound: the whole tree is gone within a few seconds of the timeout.
  assert.ok(performance.now() - started < 8000);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual(leftoverProcesses(), []);

  // Never run a fork bomb without a process-count limit on a shared machine: fail instead.
  assert.ok(pidsLimitAvailable(), 'no writable pids cgroup: the fork bomb probe needs the process limit');
  const bombStarted = performance.now();
  const bomb = await probe(sh('b() { b | b & }; b; sleep 100'), 2000);
  assert.ok(['timeout', 'failed'].includes(bomb.status), bomb.line);
  assert.ok(performance.now() - bombStarted < 10_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.deepEqual(leftoverProcesses(), []);
});

test("a run whose signal aborts is killed at once, with the daemon it left; the result says `aborted`", { skip }, async () => {
  const daemonTag = `7${ID.slice(-6)}`;
  const stop = new AbortController();
  const started = performance.now();
  const running = sandbox.run({
    argv: sh(`setsid sleep ${daemonTag} < /dev/null > /dev/null 2>&1 & sleep ${daemonTag}`),
    timeoutMs: 60_000,
    maxStdoutBytes: 1024,
    maxStderrBytes: 1024,
    signal: stop.signal,
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.ok(leftoverProcesses().length > 0, 'the probe is running before the abort');
  stop.abort();
  const result = await running;
  assert.equal(result.kind, 'aborted');
  assert.ok(performance.now() - started < 5000, 'ended long before its 60 s timeout');
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual(leftoverProcesses(), []);
  // Aborted before it starts: nothing runs.
  const early = await sandbox.run({ argv: sh(`sleep ${daemonTag}`), timeoutMs: 60_000, maxStdoutBytes: 1024, maxStderrBytes: 1024, signal: AbortSignal.abort() });
  assert.equal(early.kind, 'aborted');
  assert.deepEqual(leftoverProcesses(), []);
});

test('an unbounded allocation fails at the memory limit, long before the timeout', { skip }, async () => {
  // 2 GiB in 16 MiB steps, then a long sleep: without the limit this ends as a timeout, not a
  // MemoryError (and stays bounded on a shared machine).
  const grow = 'import time\na = []\nfor _ in range(128): a.append(bytearray(16 * 1024 * 1024))\ntime.sleep(60)';
  const started = performance.now();
  const limited = await probe(['/usr/bin/python3', '-c', grow], 5000, 256 * 1024 * 1024);
  const ms = Math.round(performance.now() - started);
  console.log(`  allocation stopped at the 256 MiB limit after ${ms} ms (timeout 5000 ms): ${limited.line}`);
  assert.equal(limited.status, 'failed', limited.line);
  assert.match(limited.line, /: src\/a\.probe: MemoryError$/);
  assert.equal(limited.content, 'hello\n');
  // The default (4 GiB) leaves an ordinary formatter alone: the same interpreter runs a small job.
  const ordinary = await probe(['/usr/bin/python3', '-c', 'import sys; sys.stdout.write(sys.stdin.read().upper())']);
  assert.equal(ordinary.content, 'HELLO\n', ordinary.line);
});

test('a stdout flood is cut off at the cap; filling the tmpfs fails', { skip }, async () => {
  const flood = await probe(['/bin/cat', '/dev/zero']);
  assert.equal(flood.status, 'failed', flood.line);
  assert.match(flood.line, /: src\/a\.probe: output passed \d+ bytes; the formatter was stopped$/);

  const fill = await probe(sh(`dd if=/dev/zero of=/tmp/fill bs=1M count=512 2>/dev/null; ${report('[ $(stat -c %s /tmp/fill) -ge 536870912 ]', 'fill the tmpfs with 512 MiB')}`));
  assertContained(fill, 'tmpfs');
  const scratchFill = await probe(sh(`dd if=/dev/zero of=/tmp/formatbox/fill bs=1M count=512 2>/dev/null; ${report('[ $(stat -c %s /tmp/formatbox/fill) -ge 536870912 ]', 'fill the scratch dir')}`));
  assertContained(scratchFill, 'scratch');
});
