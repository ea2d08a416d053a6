// The per-user formatter store is the user's own or it is not used. A second local user (a real
// other uid, nobody) plants a self-consistent `prettier@3.3.3` entry whose code writes a marker when
// imported; a repository pinning 3.3.3 is then formatted by the real CLI (apply, in-process) under a
// time and a memory bound. The planted code must never run: the shipped Prettier formats, and the
// receipt says why. A fetch killed with SIGKILL leaves its temp directory: the next run sweeps it.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanUp, installCopy, isolatedEnv, project } from '../cli/built-cli.js';
import { runBounded } from './bounded.js';
import { asNobody, NOBODY, outsideNpm, sharedDir, skipWithoutOtherUser } from './other-user.js';

const SHIPPED_PRETTIER = JSON.parse(readFileSync(new URL('../../node_modules/prettier/package.json', import.meta.url), 'utf8')).version as string;
const BOUND = { timeout: 180_000 };
const UNION = 'type A =\n  | "a"\n  | "b";\nconst  x = 1\n';

const built = await installCopy();
const iso = isolatedEnv();
const dirs: string[] = [];
let shared = '';
let planter = '';
before(() => {
  shared = sharedDir('fb-store-shared-');
  dirs.push(shared);
  planter = join(shared, 'plant-store.mjs');
  copyFileSync(fileURLToPath(new URL('./plant-store.mjs', import.meta.url)), planter);
  chmodSync(planter, 0o644);
});
after(() => cleanUp(iso.runtimeDir, built.dir, ...dirs));

/** The victim's environment: its own home, the given cache root, an unreachable registry, no daemon. */
function victimEnv(cacheRoot: string): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'fb-victim-home-'));
  dirs.push(home);
  return { ...outsideNpm(iso.env), HOME: home, XDG_CACHE_HOME: cacheRoot, npm_config_registry: 'http://127.0.0.1:9/', FORMATBOX_NO_DAEMON: '1' };
}

/** A repository pinning Prettier 3.3.3, written to by `apply` (one write of a.ts). */
async function applyPinned(env: NodeJS.ProcessEnv): Promise<{ receipt: { status: string; line: string; content: string; formatter?: { version: string; pinned?: string } }; root: string }> {
  const root = project({ '.git/HEAD': 'ref: refs/heads/main\n', 'package.json': JSON.stringify({ devDependencies: { prettier: '3.3.3' } }), '.prettierrc': '{}\n' });
  dirs.push(root);
  const run = await runBounded(process.execPath, [built.cli, 'apply', '--json'], { env, cwd: root, input: JSON.stringify({ root, path: 'a.ts', input: { content: UNION } }), bounds: { timeoutMs: 60_000, maxRssMiB: 768 } });
  assert.equal(run.code, 0, run.stderr + run.stdout);
  return { receipt: JSON.parse(run.stdout), root };
}

function assertShippedFormatted(receipt: { status: string; line: string; content: string; formatter?: { version: string; pinned?: string } }, marker: string, why: RegExp): void {
  assert.equal(existsSync(marker), false, `the planted code ran: ${existsSync(marker) ? readFileSync(marker, 'utf8') : ''}`);
  assert.equal(receipt.status, 'formatted', receipt.line);
  assert.equal(receipt.formatter?.version, SHIPPED_PRETTIER, receipt.line);
  assert.equal(receipt.formatter?.pinned, '3.3.3');
  assert.doesNotMatch(receipt.content, /PWNED/);
  assert.match(receipt.content, /^const x = 1;$/m);
  assert.match(receipt.line, why);
}

test('case 1: a world-writable XDG_CACHE_HOME where another user planted formatbox/formatters/prettier@3.3.3 is refused; the shipped Prettier formats', { ...BOUND, skip: skipWithoutOtherUser }, async () => {
  const cacheRoot = join(shared, 'case1-cache');
  mkdirSync(cacheRoot);
  chmodSync(cacheRoot, 0o1777);
  const marker = join(shared, 'case1-ran');
  asNobody(planter, [join(cacheRoot, 'formatbox', 'formatters'), marker]);
  const { receipt } = await applyPinned(victimEnv(cacheRoot));
  assertShippedFormatted(receipt, marker, /the project pins 3\.3\.3: the formatter store's directory .*case1-cache has mode 777, writable by others; refusing it/);
});

test('variant: the cache root is the user\'s, but formatbox/ in it belongs to another user', { ...BOUND, skip: skipWithoutOtherUser }, async () => {
  const cacheRoot = mkdtempSync(join(tmpdir(), 'fb-cache-'));
  dirs.push(cacheRoot);
  chmodSync(cacheRoot, 0o755);
  mkdirSync(join(cacheRoot, 'formatbox'), { mode: 0o755 });
  chownSync(join(cacheRoot, 'formatbox'), NOBODY, NOBODY);
  const marker = join(shared, 'owned-ran');
  asNobody(planter, [join(cacheRoot, 'formatbox', 'formatters'), marker]);
  const { receipt } = await applyPinned(victimEnv(cacheRoot));
  assertShippedFormatted(receipt, marker, /the formatter store's directory .*\/formatbox belongs to uid 65534, not to you \(uid 0\); refusing it/);
});

test("variant: the cache root is a symlink to another user's directory", { ...BOUND, skip: skipWithoutOtherUser }, async () => {
  const theirs = join(shared, 'nobody-cache');
  mkdirSync(theirs, { mode: 0o755 });
  chownSync(theirs, NOBODY, NOBODY);
  const marker = join(shared, 'link-ran');
  asNobody(planter, [join(theirs, 'formatbox', 'formatters'), marker]);
  const home = mkdtempSync(join(tmpdir(), 'fb-linked-'));
  dirs.push(home);
  symlinkSync(theirs, join(home, 'cache'));
  const { receipt } = await applyPinned(victimEnv(join(home, 'cache')));
  assertShippedFormatted(receipt, marker, /the formatter store's directory .*\/cache is a symlink; refusing it/);
});

test('variant: the store directory itself is world-writable (mode 777), and another user put an entry in it', { ...BOUND, skip: skipWithoutOtherUser }, async () => {
  const cacheRoot = mkdtempSync(join(tmpdir(), 'fb-cache-'));
  dirs.push(cacheRoot);
  mkdirSync(join(cacheRoot, 'formatbox', 'formatters'), { recursive: true, mode: 0o700 });
  chmodSync(cacheRoot, 0o755);
  chmodSync(join(cacheRoot, 'formatbox'), 0o755);
  chmodSync(join(cacheRoot, 'formatbox', 'formatters'), 0o777);
  const marker = join(shared, 'mode-ran');
  asNobody(planter, [join(cacheRoot, 'formatbox', 'formatters'), marker]);
  const { receipt } = await applyPinned(victimEnv(cacheRoot));
  assertShippedFormatted(receipt, marker, /the formatter store .*formatters has mode 777; it must be 0700/);
});

test("variant: an entry copied into the user's own private store (a restored CI cache) is not signed with the store's key: removed, never loaded", { ...BOUND, skip: skipWithoutOtherUser }, async () => {
  const cacheRoot = mkdtempSync(join(tmpdir(), 'fb-cache-'));
  dirs.push(cacheRoot);
  const store = join(cacheRoot, 'formatbox', 'formatters');
  const env = victimEnv(cacheRoot);
  // A first run makes the store (private, with its key).
  await applyPinned(env);
  const theirs = join(shared, 'nobody-store');
  mkdirSync(theirs, { mode: 0o755 });
  chownSync(theirs, NOBODY, NOBODY);
  const marker = join(shared, 'copied-ran');
  asNobody(planter, [theirs, marker]);
  cpSync(join(theirs, 'prettier@3.3.3'), join(store, 'prettier@3.3.3'), { recursive: true });
  const { receipt } = await applyPinned(env);
  assertShippedFormatted(receipt, marker, /the project pins 3\.3\.3: .*127\.0\.0\.1:9\/prettier: unreachable/);
  assert.equal(existsSync(join(store, 'prettier@3.3.3')), false, 'the unsigned entry is removed');
});

test("case 7: a fetch killed with SIGKILL leaves <name>@<version>.tmp-<pid>-<hex>; the next run sweeps it (only the user's, only a dead process's)", { ...BOUND, skip: skipWithoutOtherUser }, async () => {
  const cacheRoot = mkdtempSync(join(tmpdir(), 'fb-cache-'));
  dirs.push(cacheRoot);
  const store = join(cacheRoot, 'formatbox', 'formatters');
  const env = victimEnv(cacheRoot);
  await applyPinned(env);
  // A real process dies by SIGKILL halfway through writing its temp directory (as a fetch would).
  const writer = spawn(process.execPath, ['-e', `const fs = require('node:fs'); const d = ${JSON.stringify(store)} + '/prettier@3.2.5.tmp-' + process.pid + '-0badc0de'; fs.mkdirSync(d + '/package', { recursive: true }); fs.writeFileSync(d + '/package/standalone.mjs', Buffer.alloc(4 << 20)); process.kill(process.pid, 'SIGKILL');`], { stdio: 'ignore' });
  const killed = await new Promise<NodeJS.Signals | null>((done) => writer.on('exit', (_code, signal) => done(signal)));
  assert.equal(killed, 'SIGKILL');
  const left = `prettier@3.2.5.tmp-${writer.pid}-0badc0de`;
  assert.ok(existsSync(join(store, left)), 'the killed fetch left its temp directory');
  // Variants: a live process's temp directory, another user's, a symlink named like one, an entry moved aside by a dead process.
  const live = `prettier@3.1.0.tmp-${process.pid}-0123abcd`;
  mkdirSync(join(store, live));
  const foreign = `prettier@3.0.0.tmp-${writer.pid}-89abcdef`;
  mkdirSync(join(store, foreign));
  chownSync(join(store, foreign), NOBODY, NOBODY);
  const outside = mkdtempSync(join(tmpdir(), 'fb-outside-'));
  dirs.push(outside);
  const link = `prettier@2.8.8.tmp-${writer.pid}-deadbeef`;
  symlinkSync(outside, join(store, link));
  const aside = `prettier@3.3.2.removed-${writer.pid}-feedf00d`;
  mkdirSync(join(store, aside));
  await applyPinned(env);
  const now = readdirSync(store);
  assert.ok(!now.includes(left), 'the killed fetch\'s temp directory is swept');
  assert.ok(!now.includes(aside), 'an entry a dead process moved aside is swept');
  assert.ok(now.includes(live), 'a live process\'s temp directory is kept');
  assert.ok(now.includes(foreign), 'another user\'s directory is not touched');
  assert.ok(now.includes(link) && existsSync(outside), 'a symlink is neither followed nor its target removed');
});
