// Downloads are said before they happen, and --offline fetches nothing: a project pinning Prettier
// 2.8.8, with an empty formatter store. Offline, nothing is fetched and the run says which version
// ran instead and why; online, one line names the package, its size and the registry before the
// fetch, and the file is then formatted by the pinned version. The registry is the real one (only a
// machine that cannot reach it outside CI skips).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanUp, installCopy, isolatedEnv, project, runCli } from './built-cli.js';

const built = await installCopy();
const cache = mkdtempSync(join(tmpdir(), 'fb-downloads-cache-'));
const iso = isolatedEnv({ XDG_CACHE_HOME: cache });
const dirs: string[] = [cache];
after(() => cleanUp(iso.runtimeDir, built.dir, ...dirs));

const reachable = await fetch('https://registry.npmjs.org/prettier', { method: 'HEAD', signal: AbortSignal.timeout(15_000) }).then(() => true, () => false);
const skip = !reachable && !process.env['CI'] ? 'the npm registry is not reachable here' : false;

test('--offline fetches nothing and says what ran instead; online, the fetch is announced with its size first', { skip, timeout: 300_000 }, async () => {
  const root = project({ 'package.json': JSON.stringify({ devDependencies: { prettier: '2.8.8' } }), '.prettierrc': '{}\n', 'a.ts': 'const a = {b:1}\n' });
  mkdirSync(join(root, '.git'));
  dirs.push(root);
  const store = join(cache, 'formatbox', 'formatters');
  const offline = await runCli(built.cli, ['format', '--no-cache', '--offline', 'a.ts'], { env: iso.env, cwd: root });
  assert.equal(offline.code, 1, offline.stderr);
  assert.doesNotMatch(offline.stderr, /fetching/);
  assert.match(offline.stderr, /^formatbox: prettier \d+\.\d+\.\d+ ran, not the 2\.8\.8 the project pins: prettier@2\.8\.8 is not in the formatter store, and formatbox is offline/m);
  const byEnv = await runCli(built.cli, ['format', '--no-cache', '--json', 'a.ts'], { env: { ...iso.env, FORMATBOX_OFFLINE: '1' }, cwd: root });
  assert.match(JSON.parse(byEnv.stdout.split('\n')[0]!).formatter.pinnedNote, /offline/, 'FORMATBOX_OFFLINE=1 alike');
  assert.ok(!existsSync(store) || !readdirSync(store).some((name) => name.startsWith('prettier@')), 'nothing fetched');
  const online = await runCli(built.cli, ['format', '--no-cache', '--no-daemon', 'a.ts'], { env: iso.env, cwd: root });
  assert.equal(online.code, 1, online.stderr);
  const lines = online.stderr.split('\n');
  const announced = lines.findIndex((line) => /^formatbox: fetching prettier@2\.8\.8 \(\d+\.\d MB\) from https:\/\/registry\.npmjs\.org into the formatter store/.test(line));
  assert.ok(announced >= 0, online.stderr);
  assert.ok(announced < lines.findIndex((line) => line.startsWith('Checked ')), 'said before the run ends');
  assert.ok(readdirSync(store).includes('prettier@2.8.8'));
  const json = await runCli(built.cli, ['format', '--no-cache', '--json', 'a.ts'], { env: iso.env, cwd: root });
  assert.equal(JSON.parse(json.stdout.split('\n')[0]!).formatter.version, '2.8.8', 'the pinned version ran');
  assert.doesNotMatch(json.stderr, /fetching/, 'once');
});
