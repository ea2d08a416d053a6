// Every socket formatbox connects to or listens on is checked as the daemon's (the socket: not a
// symlink, the user's, 0600; its directory: the user's, 0700), and the peer proves it runs as the same
// user (the per-user secret's handshake, socket-auth.ts). A second local user is real: the attacker
// runs as `nobody` (setpriv), listening on a world-writable path; its forged reply must never reach
// the output, and it must receive nothing of the edit. Each call under a time and a memory bound.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanUp, installCopy, isolatedEnv, project } from '../cli/built-cli.js';
import { readOrCreateUserSecret } from '../../src/cli/user-secret.js';
import { runBounded } from './bounded.js';

const NOBODY = 65534;
const canDropPrivileges = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;
const skipOutsideCi = !canDropPrivileges && !process.env.CI ? 'needs root and setpriv to run an attacker as nobody (CI runs as root)' : undefined;

const built = await installCopy();
const iso = isolatedEnv();
const dirs: string[] = [];
const attackers: ChildProcess[] = [];
after(async () => {
  for (const attacker of attackers) attacker.kill('SIGTERM');
  await cleanUp(iso.runtimeDir, built.dir, ...dirs);
});

const MESSY = 'export const a  =  [1,2]\n';
const FORMATTED = 'export const a = [1, 2];\n';
const SECRET_TEXT = 'PRIOR-CONTENT-ONLY-THE-USER-MAY-SEE';
const BOUND = { timeout: 120_000 };

let publicDir = '';
before(() => {
  // World-writable and sticky, like /tmp: anyone may put a socket here.
  publicDir = mkdtempSync(join(tmpdir(), 'fb-public-'));
  chmodSync(publicDir, 0o1777);
  dirs.push(publicDir);
  copyFileSync(fileURLToPath(new URL('./attacker-server.mjs', import.meta.url)), join(publicDir, 'attacker-server.mjs'));
  chmodSync(join(publicDir, 'attacker-server.mjs'), 0o644);
});

/** Starts the attacker as `uid` listening on `socket`; resolves once it listens. Its log records what it received. */
async function attacker(socket: string, uid = NOBODY): Promise<{ log: string; received: () => string }> {
  const log = `${socket}.log`;
  const args = uid === process.getuid?.() ? [] : ['--reuid', String(uid), '--regid', String(uid), '--clear-groups'];
  const child = uid === process.getuid?.()
    ? spawn(process.execPath, [join(publicDir, 'attacker-server.mjs'), socket, log], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn('setpriv', [...args, process.execPath, join(publicDir, 'attacker-server.mjs'), socket, log], { stdio: ['ignore', 'pipe', 'inherit'] });
  attackers.push(child);
  await new Promise<void>((ready, fail) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && ready());
    child.once('exit', (code) => fail(new Error(`the attacker exited (${code})`)));
  });
  return { log, received: () => (existsSync(log) ? readFileSync(log, 'utf8') : '') };
}

/** A project with biome.json and a.ts as Claude Code left it after an Edit (messy), and the event. */
function hookCase(): { root: string; file: string; event: string } {
  const root = project({ '.git/HEAD': 'ref: refs/heads/main\n', 'biome.json': '{ "formatter": { "indentStyle": "space" } }\n', 'a.ts': MESSY });
  dirs.push(root);
  const file = join(root, 'a.ts');
  const event = JSON.stringify({ hook_event_name: 'PostToolUse', cwd: root, tool_name: 'Edit', tool_input: { file_path: file, old_string: `// ${SECRET_TEXT}\n`, new_string: MESSY }, tool_response: { originalFile: `// ${SECRET_TEXT}\n` } });
  return { root, file, event };
}

function hook(args: string[], env: NodeJS.ProcessEnv, c: { root: string; event: string }) {
  return runBounded(process.execPath, [built.cli, 'hook', 'claude-code', ...args], { env, cwd: c.root, input: c.event });
}

/** The hook formatted in its own process: the edit is formatted on disk, the context is formatbox's, nothing forged. */
function formattedLocally(run: { code: number; stdout: string; stderr: string }, c: { file: string }, what: string): void {
  assert.equal(run.code, 0, what);
  assert.doesNotMatch(run.stdout + run.stderr, /FORGED/, `${what}: the forged reply never reaches the output`);
  assert.equal(readFileSync(c.file, 'utf8'), FORMATTED, `${what}: formatted in-process`);
  assert.match(run.stderr, /not using the socket|refusing the daemon|no daemon/, `${what}: stderr says why: ${run.stderr}`);
}

test('review case: another user listening on a world-writable --socket gets nothing; the hook formats in-process', { ...BOUND, skip: skipOutsideCi }, async () => {
  const socket = join(publicDir, 'evil.sock');
  const evil = await attacker(socket);
  const c = hookCase();
  const run = await hook(['--socket', socket], iso.env, c);
  formattedLocally(run, c, '--socket');
  assert.equal(evil.received(), '', 'the attacker received nothing (not even a connect)');
});

test('$FORMATBOX_SOCKET on a world-writable path, and the same with a symlink to it from a private directory', { ...BOUND, skip: skipOutsideCi }, async () => {
  const socket = join(publicDir, 'evil-env.sock');
  const evil = await attacker(socket);
  const viaEnv = hookCase();
  formattedLocally(await hook([], { ...iso.env, FORMATBOX_SOCKET: socket }, viaEnv), viaEnv, '$FORMATBOX_SOCKET');
  const privateDir = mkdtempSync(join(tmpdir(), 'fb-priv-'));
  dirs.push(privateDir);
  symlinkSync(socket, join(privateDir, 'link.sock'));
  const viaLink = hookCase();
  const run = await hook(['--socket', join(privateDir, 'link.sock')], iso.env, viaLink);
  formattedLocally(run, viaLink, 'a symlinked socket');
  assert.match(run.stderr, /symlink/);
  assert.equal(evil.received(), '');
});

test('a socket in a directory another user owns (even 0700) is refused', { ...BOUND, skip: skipOutsideCi }, async () => {
  const theirs = join(publicDir, 'nobody-dir');
  mkdirSync(theirs, { mode: 0o700 });
  chownSync(theirs, NOBODY, NOBODY);
  const evil = await attacker(join(theirs, 's.sock'));
  const c = hookCase();
  const run = await hook(['--socket', join(theirs, 's.sock')], iso.env, c);
  formattedLocally(run, c, 'a directory of nobody');
  assert.match(run.stderr, /belongs to uid 65534/);
  assert.equal(evil.received(), '');
});

test('the daemon\'s directory planted by another user in a shared XDG_RUNTIME_DIR is refused; apply formats in-process', { ...BOUND, skip: skipOutsideCi }, async () => {
  for (const mode of [0o777, 0o700]) {
    const runtimeDir = mkdtempSync(join(publicDir, 'xdg-'));
    chmodSync(runtimeDir, 0o1777);
    const planted = join(runtimeDir, 'formatbox');
    mkdirSync(planted, { mode });
    chmodSync(planted, mode);
    chownSync(planted, NOBODY, NOBODY);
    const evil = await attacker(join(planted, 'daemon.sock'));
    const root = project({ '.git/HEAD': 'ref: refs/heads/main\n', 'biome.json': '{}\n', 'a.ts': `// ${SECRET_TEXT}\n` });
    dirs.push(root);
    const run = await runBounded(process.execPath, [built.cli, 'apply', '--json'], { env: { ...iso.env, XDG_RUNTIME_DIR: runtimeDir }, cwd: root, input: JSON.stringify({ path: 'a.ts', input: { content: MESSY } }) });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.doesNotMatch(run.stdout, /FORGED/);
    assert.equal((JSON.parse(run.stdout) as { status: string }).status, 'formatted');
    assert.match(run.stderr, /no daemon \(the daemon directory .* (has mode 777|belongs to uid 65534)/, run.stderr);
    assert.equal(evil.received(), '', `mode ${mode.toString(8)}: the attacker received nothing`);
  }
});

test('a server in a private directory that cannot prove it runs as the user is refused after the hello; it never sees the edit', BOUND, async () => {
  // Same uid here (the check that matters when the path checks pass): it does not know the secret.
  const privateDir = mkdtempSync(join(tmpdir(), 'fb-priv-'));
  dirs.push(privateDir);
  const socket = join(privateDir, 's.sock');
  const fake = await attacker(socket, process.getuid?.() ?? 0);
  chmodSync(socket, 0o600);
  const c = hookCase();
  const run = await hook(['--socket', socket], iso.env, c);
  formattedLocally(run, c, 'a server without the secret');
  assert.match(run.stderr, /could not prove it runs as you/);
  const received = fake.received();
  assert.match(received, /"auth":1/, 'the hello was sent');
  assert.doesNotMatch(received, new RegExp(`${SECRET_TEXT}|export const|"prior"|"input"`), 'nothing of the edit reached it');
  // The daemon's client holds the same line: a fake daemon in the daemon's own directory.
  const { env, runtimeDir } = isolatedEnv();
  dirs.push(runtimeDir);
  mkdirSync(join(runtimeDir, 'formatbox'), { mode: 0o700 });
  const fakeDaemon = await attacker(join(runtimeDir, 'formatbox', 'daemon.sock'), process.getuid?.() ?? 0);
  chmodSync(join(runtimeDir, 'formatbox', 'daemon.sock'), 0o600);
  const d = hookCase();
  const viaDaemon = await hook([], env, d);
  formattedLocally(viaDaemon, d, 'a fake daemon');
  assert.doesNotMatch(fakeDaemon.received(), new RegExp(`${SECRET_TEXT}|export const|"event"`));
});

/** Sends `lines` to the socket raw and collects what comes back until it closes (or 3 s). */
function rawExchange(socket: string, lines: string[]): Promise<string> {
  return new Promise((done) => {
    let got = '';
    const client = connect(socket, () => client.write(lines.join('\n') + '\n'));
    client.on('data', (chunk) => (got += chunk.toString()));
    const timer = setTimeout(() => client.destroy(), 3_000);
    client.on('close', () => {
      clearTimeout(timer);
      done(got);
    });
    client.on('error', () => undefined);
  });
}

test('serve --socket and the daemon act on nothing from a client that does not prove it runs as the user', BOUND, async () => {
  const socketDir = mkdtempSync(join(tmpdir(), 'fb-serve-'));
  dirs.push(socketDir);
  const socket = join(socketDir, 's.sock');
  const server = spawn(process.execPath, [built.cli, 'serve', '--socket', socket], { env: iso.env, stdio: ['ignore', 'ignore', 'pipe'] });
  attackers.push(server);
  await new Promise<void>((ready) => server.stderr!.on('data', (chunk: Buffer) => chunk.toString().includes('serving on') && ready()));
  const root = project({ 'biome.json': '{}\n', 'a.ts': MESSY });
  dirs.push(root);
  const request = JSON.stringify({ root, path: 'a.ts', input: { content: 'export const pwned  = 1\n' } });
  const attempts: Array<[string, string[]]> = [
    ['a request with no handshake', [request]],
    ['a hello, then a request with no proof', [JSON.stringify({ auth: 1, nonce: 'a'.repeat(32) }), request]],
    ['a hello, then a wrong proof, then a request', [JSON.stringify({ auth: 1, nonce: 'a'.repeat(32) }), JSON.stringify({ proof: 'b'.repeat(64) }), request]],
    ['a malformed hello', ['{"auth":1,"nonce":"zz"}', request]],
  ];
  for (const [what, lines] of attempts) {
    const reply = await rawExchange(socket, lines);
    assert.doesNotMatch(reply, /status|formatted|pwned/, `${what}: no answer to the request: ${reply}`);
    assert.equal(readFileSync(join(root, 'a.ts'), 'utf8'), MESSY, `${what}: nothing was written`);
  }
  server.kill('SIGTERM');
  // The daemon: start it through a real call, then try it raw with the right version but no proof.
  const c = hookCase();
  const { env, runtimeDir } = isolatedEnv();
  dirs.push(runtimeDir);
  const warm = await hook([], env, c);
  assert.equal(warm.code, 0);
  assert.equal(readFileSync(c.file, 'utf8'), FORMATTED, 'the real daemon formats (the handshake works between the user\'s own processes)');
  const build = readFileSync(join(built.dir, 'dist', 'cli.js'), 'utf8');
  assert.ok(build.length > 0);
  const status = spawnSync(process.execPath, [built.cli, 'daemon', 'status', '--json'], { env, encoding: 'utf8' });
  const version = (JSON.parse(status.stdout) as { build: string }).build;
  const envelope = JSON.stringify({ v: version, op: 'request', root, request: { root, path: 'a.ts', input: { content: 'export const pwned  = 1\n' } } });
  const reply = await rawExchange(join(runtimeDir, 'formatbox', 'daemon.sock'), [envelope]);
  assert.doesNotMatch(reply, /ok|pwned/, `the daemon answers no unauthenticated envelope: ${reply}`);
  assert.equal(readFileSync(join(root, 'a.ts'), 'utf8'), MESSY);
});

test('the per-user secret is refused when it is not private: a symlink, another mode, a hard link, a planted file', BOUND, () => {
  const make = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'fb-secret-'));
    dirs.push(dir);
    chmodSync(dir, 0o700);
    return dir;
  };
  const fresh = make();
  const secret = readOrCreateUserSecret(fresh);
  assert.equal(secret.length, 32);
  assert.deepEqual(readOrCreateUserSecret(fresh), secret, 'the same secret on the next read');
  const cases: Array<[string, (dir: string) => void, RegExp]> = [
    ['a symlink', (dir) => symlinkSync(join(fresh, 'user.secret'), join(dir, 'user.secret')), /symlink/],
    ['mode 0644', (dir) => writeFileSync(join(dir, 'user.secret'), Buffer.alloc(32), { mode: 0o644 }), /mode 644/],
    ['a hard link', (dir) => linkSync(join(fresh, 'user.secret'), join(dir, 'user.secret')), /2 hard links/],
    ['the wrong size', (dir) => writeFileSync(join(dir, 'user.secret'), 'short', { mode: 0o600 }), /holds 5 bytes/],
    ['a directory open to others', (dir) => chmodSync(dir, 0o755), /mode 755/],
  ];
  for (const [what, plant, reason] of cases) {
    const dir = make();
    plant(dir);
    assert.throws(() => readOrCreateUserSecret(dir), (error: Error) => reason.test(error.message), what);
  }
  if (canDropPrivileges) {
    const dir = make();
    writeFileSync(join(dir, 'user.secret'), Buffer.alloc(32), { mode: 0o600 });
    chownSync(join(dir, 'user.secret'), NOBODY, NOBODY);
    assert.throws(() => readOrCreateUserSecret(dir), /belongs to uid 65534/, 'a file of another user');
  }
  rmSync(fresh, { recursive: true, force: true });
  assert.ok(process.memoryUsage.rss() < 1024 * 1024 * 1024, 'the test process stays under 1 GiB');
});
