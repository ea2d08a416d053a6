/**
 * The daemon's footprint under many roots × many configs: every (root, config) pair sends one
 * formatText request straight to the per-user daemon (the real handshake), each config with its own
 * timeout (before eviction each kept a worker pool forever). Records the peak RSS, pools and threads
 * `daemon status` reports, against the memory ceiling.
 *
 *   node --import tsx test/bench/daemon-bounds.ts [--roots 1000] [--configs 20]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { askRunningDaemon, callDaemon, type DaemonEnvelope } from '../../src/cli/daemon-client.js';
import { daemonPaths } from '../../src/cli/daemon-paths.js';
import { DEFAULT_MAX_RSS_MB } from '../../src/cli/daemon-server.js';
import { recordResult } from './report.js';

const REPO = resolve('.');
const CLI = join(REPO, 'dist/cli.js');
if (!existsSync(CLI)) spawnSync(process.execPath, ['build.mjs'], { cwd: REPO, stdio: 'inherit' });

const arg = (name: string, fallback: number): number => {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  return Number.isFinite(value) && value > 0 ? value : fallback;
};
const ROOTS = arg('roots', 1000);
const CONFIGS = arg('configs', 20);

const base = mkdtempSync(join(tmpdir(), 'fb-bench-roots-'));
const runtimeDir = mkdtempSync(join(tmpdir(), 'fb-bench-xdg-'));
const env: NodeJS.ProcessEnv = { ...process.env, XDG_RUNTIME_DIR: runtimeDir, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(runtimeDir, 'no-config') };
delete env.FORMATBOX_NO_DAEMON;
const roots = Array.from({ length: ROOTS }, (_, i) => {
  const root = join(base, `r${i}`);
  mkdirSync(join(root, '.git'), { recursive: true });
  writeFileSync(join(root, 'biome.json'), '{ "formatter": { "indentStyle": "space" } }\n');
  return root;
});

spawnSync(process.execPath, [CLI, 'format', '--stdin-filepath', 'x.txt'], { env, cwd: roots[0], input: 'x\n' });
const first = spawnSync(process.execPath, [CLI, 'daemon', 'status', '--json'], { env, encoding: 'utf8' });
const build = (JSON.parse(first.stdout) as { build: string }).build;
const paths = daemonPaths(env);
const options = { paths, startArgs: [CLI, 'daemon', 'run'], env };

let peak = { rssBytes: 0, pools: 0, threads: 0, settings: 0 };
let evictions = 0;
const started = performance.now();
for (let c = 0; c < CONFIGS; c++) {
  const settings = { config: { file: `/virtual/formatbox-${c}.json`, text: JSON.stringify({ timeoutMs: 20_000 + c }) } };
  for (const root of roots) {
    const envelope: DaemonEnvelope = { v: build, op: 'request', settings, root, request: { root, method: 'formatText', path: 'a.ts', text: 'const a=1\n' } };
    const reply = await callDaemon(envelope, options);
    if (!('ok' in reply)) throw new Error(JSON.stringify(reply));
  }
  const status = await askRunningDaemon({ v: build, op: 'status' }, paths);
  const s = (status && 'ok' in status ? status.ok : {}) as { rssBytes: number; pools: number; threads?: number; settings: number; evictions: number };
  peak = { rssBytes: Math.max(peak.rssBytes, s.rssBytes), pools: Math.max(peak.pools, s.pools), threads: Math.max(peak.threads, s.threads ?? 0), settings: Math.max(peak.settings, s.settings) };
  evictions = s.evictions;
  process.stdout.write(`config ${c + 1}/${CONFIGS}: rss ${Math.round(s.rssBytes / 1048576)} MB, pools ${s.pools}, threads ${s.threads}, settings ${s.settings}, evictions ${s.evictions}\n`);
}
const seconds = (performance.now() - started) / 1000;
await askRunningDaemon({ v: build, op: 'stop' }, paths);
rmSync(base, { recursive: true, force: true });
rmSync(runtimeDir, { recursive: true, force: true });

const what = `${ROOTS} roots × ${CONFIGS} configs`;
process.stdout.write(`${what}: ${ROOTS * CONFIGS} requests in ${seconds.toFixed(1)} s; peak RSS ${Math.round(peak.rssBytes / 1048576)} MB, pools ${peak.pools}, threads ${peak.threads}, settings ${peak.settings}; ${evictions} evictions\n`);
recordResult({ group: 'memory', name: `daemon, ${what}: peak resident`, value: peak.rssBytes / 1048576, unit: 'MB', anchor: 'memory ceiling', anchorValue: DEFAULT_MAX_RSS_MB, goal: '≤ 1' });
recordResult({ group: 'memory', name: `daemon, ${what}: peak worker pools`, value: peak.pools, unit: 'pools', anchor: 'configs sent', anchorValue: CONFIGS });
recordResult({ group: 'memory', name: `daemon, ${what}: peak threads`, value: peak.threads, unit: 'threads' });
