// One repository cannot make formatbox download without bound. A workspace whose packages each pin
// another Prettier version gets the first few fetched (3 per formatter per repository), then the
// shipped version with a receipt that says why; a per-user byte budget a day stops fetches, said
// in the receipt and in doctor. The registry is a loopback one that counts what is asked of it (the
// tarballs it does not have: a fetch is what is counted, not what it brings); the real CLI, each call
// under a time and a memory bound.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanUp, installCopy, isolatedEnv, project } from '../cli/built-cli.js';
import { runBounded } from './bounded.js';
import { outsideNpm } from './other-user.js';

const built = await installCopy();
const iso = isolatedEnv();
const dirs: string[] = [];
const VERSIONS = ['3.0.0', '3.0.1', '3.0.2', '3.0.3', '3.1.0', '3.1.1', '3.2.0', '3.2.1'];
let registry = '';
let server: Server;
/** Every tarball asked for, as `name@version`. */
const asked: string[] = [];
before(async () => {
  server = createServer((request, response) => {
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    if (request.url === '/prettier') {
      response.setHeader('content-type', 'application/json');
      const versions = Object.fromEntries(VERSIONS.map((v) => [v, { dist: { tarball: `${base}/prettier/-/prettier-${v}.tgz`, integrity: 'sha512-AAAA' } }]));
      response.end(JSON.stringify({ name: 'prettier', 'dist-tags': { latest: '3.2.1' }, versions }));
      return;
    }
    const tarball = /^\/prettier\/-\/prettier-(.+)\.tgz$/.exec(request.url ?? '');
    if (tarball) asked.push(`prettier@${tarball[1]}`);
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  registry = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
});
after(async () => {
  server.close();
  await cleanUp(iso.runtimeDir, built.dir, ...dirs);
});

function env(cache: string): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'fb-budget-home-'));
  dirs.push(home);
  return { ...outsideNpm(iso.env), HOME: home, XDG_CACHE_HOME: cache, npm_config_registry: registry, FORMATBOX_NO_DAEMON: '1' };
}

function freshCache(): string {
  const cache = mkdtempSync(join(tmpdir(), 'fb-budget-cache-'));
  dirs.push(cache);
  return cache;
}

/** A workspace with one package per version, each pinning it exactly and holding one unformatted a.ts. */
function workspace(versions: readonly string[]): string {
  const files: Record<string, string> = { '.git/HEAD': 'ref: refs/heads/main\n', '.prettierrc': '{}\n', 'package.json': JSON.stringify({ private: true, workspaces: ['packages/*'] }) };
  versions.forEach((version, i) => {
    files[`packages/p${i}/package.json`] = JSON.stringify({ name: `p${i}`, devDependencies: { prettier: version } });
    files[`packages/p${i}/a.ts`] = 'const  x = 1\n';
  });
  const root = project(files);
  dirs.push(root);
  return root;
}

const BOUNDS = { timeoutMs: 120_000, maxRssMiB: 768 };
const distinct = (list: string[]) => [...new Set(list)];

test('case 6: a workspace pinning 8 Prettier versions gets at most 3 fetched; the other packages are formatted with the shipped version, and each receipt says the budget stopped it', async () => {
  asked.length = 0;
  const root = workspace(VERSIONS);
  const run = await runBounded(process.execPath, [built.cli, 'format', '--check', '--json', '.'], { env: env(freshCache()), cwd: root, bounds: BOUNDS });
  const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { path?: string; line?: string });
  assert.ok(distinct(asked).length <= 3, `fetched: ${distinct(asked).join(', ')}`);
  const stopped = lines.filter((l) => /the download budget: this repository already uses 3 versions of prettier/.test(l.line ?? ''));
  assert.ok(stopped.length >= VERSIONS.length - 3, run.stdout);
});

test('variants: the per-repository count holds across processes (one apply each), for ranges, and for another repository it starts again', async () => {
  asked.length = 0;
  const cache = freshCache();
  const e = env(cache);
  const root = workspace(VERSIONS.slice(0, 5));
  const lines: string[] = [];
  for (let i = 0; i < 5; i++) {
    const run = await runBounded(process.execPath, [built.cli, 'apply', '--json'], { env: e, cwd: root, input: JSON.stringify({ root, path: `packages/p${i}/a.ts`, input: { content: 'const  y = 2\n' } }), bounds: BOUNDS });
    lines.push((JSON.parse(run.stdout) as { line: string }).line);
  }
  assert.ok(distinct(asked).length <= 3, `fetched across processes: ${distinct(asked).join(', ')}`);
  assert.ok(lines.slice(3).every((line) => /download budget/.test(line)), lines.join('\n'));
  // Ranges resolve to versions that count the same way.
  const ranged = workspace(['~3.0.0', '~3.1.0', '~3.2.0', '>=3.0.1 <3.0.2']);
  const rangedRun = await runBounded(process.execPath, [built.cli, 'format', '--check', '--json', '.'], { env: e, cwd: ranged, bounds: BOUNDS });
  assert.match(rangedRun.stdout, /download budget: this repository already uses 3 versions of prettier/);
  // Another repository has its own count.
  asked.length = 0;
  const other = workspace(['3.2.0']);
  await runBounded(process.execPath, [built.cli, 'apply', '--json'], { env: e, cwd: other, input: JSON.stringify({ root: other, path: 'packages/p0/a.ts', input: { content: 'const  y = 2\n' } }), bounds: BOUNDS });
  assert.deepEqual(distinct(asked), ['prettier@3.2.0']);
});

test("variants: today's byte budget spent: nothing is fetched, and the receipt and doctor say the budget stopped it", async () => {
  asked.length = 0;
  const cache = freshCache();
  const store = join(cache, 'formatbox', 'formatters');
  mkdirSync(store, { recursive: true, mode: 0o700 });
  writeFileSync(join(store, '.ledger.json'), JSON.stringify({ days: { [new Date().toISOString().slice(0, 10)]: 1024 * 1024 * 1024 }, entries: {}, repositories: {} }), { mode: 0o600 });
  const root = workspace(['3.0.0']);
  const e = env(cache);
  const apply = await runBounded(process.execPath, [built.cli, 'apply', '--json'], { env: e, cwd: root, input: JSON.stringify({ root, path: 'packages/p0/a.ts', input: { content: 'const  y = 2\n' } }), bounds: BOUNDS });
  const receipt = JSON.parse(apply.stdout) as { line: string; formatter?: { pinned?: string } };
  assert.equal(receipt.formatter?.pinned, '3.0.0');
  assert.match(receipt.line, /the download budget: 1024 MiB of formatters were fetched today, the most formatbox fetches a day \(1024 MiB\)/);
  assert.deepEqual(asked, []);
  const doctor = await runBounded(process.execPath, [built.cli, 'doctor', '--root', join(root, 'packages', 'p0')], { env: e, cwd: root, bounds: BOUNDS });
  assert.match(doctor.stdout, /download budget/);
});
