// `formatbox init --project` writes into a repository, and the repository is hostile: links it
// committed where init's temp files go, a `.claude` directory linked out of the repository, a
// settings file that is a FIFO or a link to a device. Nothing is written outside the repository
// (the hook secret least of all), nothing hangs or reads without end. The real CLI, each call under
// a time and a memory bound.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanUp, installCopy, isolatedEnv, project } from '../cli/built-cli.js';
import { runBounded, type Bounds } from './bounded.js';

const built = await installCopy();
const iso = isolatedEnv();
const dirs: string[] = [];
after(() => cleanUp(iso.runtimeDir, built.dir, ...dirs));

const BOUNDS: Bounds = { timeoutMs: 30_000, maxRssMiB: 400 };
const VICTIM_TEXT = 'the user\'s own file, outside the repository\n';

function repo(files: Record<string, string> = {}): string {
  const root = project({ '.git/HEAD': 'ref: refs/heads/main\n', ...files });
  dirs.push(root);
  return root;
}

function outsideDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fb-outside-'));
  dirs.push(dir);
  return dir;
}

async function init(root: string, args: string[]) {
  const home = mkdtempSync(join(tmpdir(), 'fb-init-home-'));
  dirs.push(home);
  return runBounded(process.execPath, [built.cli, 'init', ...args, '--project', '--bin', 'formatbox'], { env: { ...iso.env, HOME: home }, cwd: root, bounds: BOUNDS });
}

/** Every file under `dir` and its content (what init may have written there). */
function contents(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    try {
      out[name] = readFileSync(join(dir, name), 'utf8');
    } catch {
      // a directory
    }
  }
  return out;
}

test('case 2: links committed under the temp files\' names (the next few thousand pids) never get the settings or the secret written through them', async () => {
  const outside = outsideDir();
  const victim = join(outside, 'victim.txt');
  writeFileSync(victim, VICTIM_TEXT);
  const root = repo();
  mkdirSync(join(root, '.claude'));
  const lastPid = Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8'));
  for (let pid = lastPid + 1; pid < lastPid + 4000; pid++) {
    for (const name of ['settings.json', 'settings.local.json']) symlinkSync(victim, join(root, '.claude', `${name}.formatbox-${pid}.tmp`));
  }
  const run = await init(root, ['claude-code']);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(readFileSync(victim, 'utf8'), VICTIM_TEXT, 'the file outside the repository was overwritten');
  assert.match(readFileSync(join(root, '.claude', 'settings.local.json'), 'utf8'), /FORMATBOX_HOOK_SECRET/);
  assert.ok(!readdirSync(join(root, '.claude')).some((name) => /^\.settings.*\.tmp$/.test(name)), 'no temp file left');
});

test('case 3: .claude linked to a directory outside the repository is refused; nothing is written there', async () => {
  const outside = outsideDir();
  const root = repo();
  symlinkSync(outside, join(root, '.claude'));
  const run = await init(root, ['claude-code']);
  assert.notEqual(run.code, 0);
  assert.match(run.stderr, /\.claude: it is a symlink out of /);
  assert.deepEqual(contents(outside), {}, 'nothing written outside the repository');
});

test('case 7: .claude/settings.json as a FIFO does not hang init: refused, nothing written', async () => {
  const root = repo();
  mkdirSync(join(root, '.claude'));
  execFileSync('mkfifo', [join(root, '.claude', 'settings.json')]);
  const run = await init(root, ['claude-code']);
  assert.notEqual(run.code, 0);
  assert.match(run.stderr, /settings\.json: it is a FIFO, not a regular file/);
  assert.equal(existsSync(join(root, '.claude', 'settings.local.json')), false);
});

test('variants: a settings file linked to /dev/zero; settings.local.json linked out; .mcp.json linked out; a nested link out; .codex linked out; opencode.json a FIFO', async () => {
  const cases: Array<{ setup: (root: string, outside: string) => void; args: string[]; refusal: RegExp }> = [
    { setup: (root) => (mkdirSync(join(root, '.claude')), symlinkSync('/dev/zero', join(root, '.claude', 'settings.json'))), args: ['claude-code'], refusal: /settings\.json: it is a symlink/ },
    { setup: (root, outside) => (mkdirSync(join(root, '.claude')), writeFileSync(join(outside, 'local.json'), '{}\n'), symlinkSync(join(outside, 'local.json'), join(root, '.claude', 'settings.local.json'))), args: ['claude-code'], refusal: /settings\.local\.json: it is a symlink/ },
    { setup: (root, outside) => (writeFileSync(join(outside, 'mcp.json'), '{}\n'), symlinkSync(join(outside, 'mcp.json'), join(root, '.mcp.json'))), args: ['claude-code', '--mcp'], refusal: /\.mcp\.json: it is a symlink/ },
    { setup: (root, outside) => (mkdirSync(join(root, 'config')), symlinkSync(outside, join(root, 'config', 'claude')), symlinkSync('config/claude', join(root, '.claude'))), args: ['claude-code'], refusal: /\.claude: it is a symlink out of / },
    { setup: (root, outside) => symlinkSync(outside, join(root, '.codex')), args: ['codex'], refusal: /\.codex: it is a symlink out of / },
    { setup: (root) => execFileSync('mkfifo', [join(root, 'opencode.json')]), args: ['opencode'], refusal: /opencode\.json: it is a FIFO, not a regular file/ },
  ];
  for (const { setup, args, refusal } of cases) {
    const outside = outsideDir();
    const root = repo();
    setup(root, outside);
    const before = contents(outside);
    const run = await init(root, args);
    assert.notEqual(run.code, 0, `${args.join(' ')}: ${run.stdout}`);
    assert.match(run.stderr, refusal, args.join(' '));
    assert.deepEqual(contents(outside), before, `${args.join(' ')}: nothing written outside the repository`);
  }
});

test('variant: .claude linked to a directory inside the repository is followed, and the settings land there', async () => {
  const root = repo();
  mkdirSync(join(root, 'config', 'claude'), { recursive: true });
  symlinkSync('config/claude', join(root, '.claude'));
  const run = await init(root, ['claude-code']);
  assert.equal(run.code, 0, run.stderr);
  assert.match(readFileSync(join(root, 'config', 'claude', 'settings.local.json'), 'utf8'), /FORMATBOX_HOOK_SECRET/);
});
