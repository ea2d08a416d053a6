/**
 * Project-wide formatting: `formatbox format --check` against the native tools on the same tree,
 * measured side by side in one run.
 *
 * The tree: JS/TS files taken from this repository's node_modules (nobody here wrote them), copied
 * into a temp project at bench time, once as a Biome project and once as a Prettier project, each
 * first formatted by its own native CLI (`--write`), as a project checked in CI is.
 *
 *   Biome:    native `biome format src` (the anchor) · Biome's wasm build alone, in process,
 *             formatting only, divided by THREADS (the floor for any pool of wasm workers) · formatbox
 *             without cache (its default: the sandboxed native Biome pass) · with Biome's wasm build
 *             only (`--no-native`) · with a cold cache (first run) · with the warm cache (the tree unchanged)
 *   Prettier: `prettier --check src` (the anchor) · THREADS `prettier --check` processes at once, each
 *             on a share of the files (what the machine gives that many threads) · formatbox without
 *             cache on 1 thread and on THREADS threads · with a cold cache and with the warm cache
 *   Memory:   peak resident set of the formatbox process (/usr/bin/time, the no-cache run), per worker thread
 *
 *   node --import tsx test/bench/project.ts [--files N] [--runs N] [--quick]
 * Uses the built bin (dist/cli.js); builds it first when it is missing or older than src/.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { nodeModulesSources } from './corpus.js';
import { recordResult } from './report.js';
import { FORMAT_V8_FLAGS } from '../../src/cli/v8-flags.js';

const REPO = resolve('.');
const CLI = join(REPO, 'dist/cli.js');
const BIOME = join(REPO, 'node_modules/@biomejs/cli-linux-x64/biome');
const BIOME_BIN = existsSync(BIOME) ? BIOME : join(REPO, 'node_modules/.bin/biome');
const PRETTIER = join(REPO, 'node_modules/.bin/prettier');
/** Prettier's CLI script, to run it under formatbox's V8 flags (`node FLAGS prettier.cjs`). */
const PRETTIER_SCRIPT = join(REPO, 'node_modules/prettier/bin/prettier.cjs');
const args = process.argv.slice(2);
const quick = args.includes('--quick') || process.env.FORMATBOX_BENCH_QUICK === '1';
const FILES = Number(option('--files') ?? (quick ? 300 : 2000));
const RUNS = Number(option('--runs') ?? (quick ? 1 : 3));
const THREADS = availableParallelism();
/** Peak RSS (MB) of the last formatbox run, worker threads included (from /usr/bin/time when present). */
let lastRssMb = NaN;
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;


function option(name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

ensureBuilt();
const base = mkdtempSync(join(tmpdir(), 'fb-bench-project-'));
const env = { ...process.env, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(base, 'no-config'), XDG_CACHE_HOME: join(base, 'cache') };
try {
  const corpus = pickCorpus(FILES);
  console.log(`project bench: ${corpus.length} JS/TS files from node_modules, ${THREADS} cores, ${RUNS} run(s) each${quick ? ' (quick)' : ''}`);
  benchBiome(corpus);
  benchPrettier(corpus);
} finally {
  rmSync(base, { recursive: true, force: true });
}

function benchBiome(corpus: string[]): void {
  const root = makeProject('biome', corpus, { 'biome.json': '{ "formatter": { "enabled": true }, "files": { "maxSize": 1048576 } }\n' });
  run(BIOME_BIN, ['format', '--write', 'src'], root); // the project as its own formatter left it
  // A tree that passes its own check, as in CI: files Biome cannot format stably (its second pass
  // changes them again) are left out; they would never be cached as formatted.
  const unstable = [...spawnSync(BIOME_BIN, ['format', '--max-diagnostics=200', 'src'], { cwd: root, env, encoding: 'utf8' }).stderr.matchAll(/^(src\/\S+) format /gm)].map((m) => m[1]!);
  for (const file of unstable) rmSync(join(root, file));
  console.log(`Biome project: ${corpus.length - unstable.length} files (${unstable.length} left out: Biome does not format them stably)`);
  let memory = NaN;
  // Interleaved rounds: every variant sees the same machine load; each round's cold run starts an empty cache.
  const { native, plain, wasm, cold, warm } = interleaved(RUNS, {
    native: () => run(BIOME_BIN, ['format', '--max-diagnostics=0', 'src'], root),
    plain: () => formatbox(root, ['--no-cache']),
    wasm: () => {
      const result = formatbox(root, ['--no-cache', '--no-native']);
      memory = Number.isNaN(memory) ? lastRssMb : Math.max(memory, lastRssMb);
      return result;
    },
    cold: (round) => formatbox(root, [], join(base, `cache-${round}`)),
    warm: (round) => formatbox(root, [], join(base, `cache-${round}`)),
  });
  const n = corpus.length - unstable.length;
  const floorMs = formatterFloorMs('biome', root);
  print('Biome project', [
    ['native biome format (anchor)', native.ms, native.detail],
    [`Biome wasm alone, in process, ÷ ${THREADS} threads (floor)`, floorMs / THREADS, `formatting only: ${(floorMs / 1000).toFixed(2)} s on one thread, no I/O, engine or worker`],
    ['formatbox format --check, no cache (native Biome pass)', plain.ms, plain.detail],
    ["formatbox, Biome's wasm build only (--no-native), no cache", wasm.ms, wasm.detail],
    ['formatbox, cold cache (first run)', cold.ms, cold.detail],
    ['formatbox, warm cache (tree unchanged)', warm.ms, warm.detail],
  ]);
  const files = `${n} JS/TS files from node_modules`;
  recordResult({ group: 'project', name: 'Biome project, format --check: wall time', value: plain.ms / 1000, unit: 's', anchor: 'native biome format', anchorValue: native.ms / 1000, goal: '≤ 1.3', note: files });
  recordResult({ group: 'project', name: "Biome project, format --check --no-native (Biome's wasm build in a worker pool): wall time", value: wasm.ms / 1000, unit: 's', anchor: 'native biome format', anchorValue: native.ms / 1000, note: 'without the sandboxed native pass' });
  recordResult({ group: 'project', name: `Biome project: Biome's wasm build alone, formatting only, ÷ ${THREADS} threads (the floor for a pool)`, value: floorMs / THREADS / 1000, unit: 's', anchor: 'native biome format', anchorValue: native.ms / 1000, note: `${(floorMs / 1000).toFixed(2)} s on one thread (test/bench/formatter-floor.ts)` });
  recordResult({ group: 'project', name: 'Biome project, checked again with the cache: vs the first run', value: warm.ms / 1000, unit: 's', anchor: 'first run (cold cache)', anchorValue: cold.ms / 1000, ratio: warm.ms / cold.ms, goal: '≤ 0.05', note: '≥ 20× faster' });
  if (warm.cpuS !== undefined && cold.cpuS !== undefined) {
    recordResult({ group: 'project', name: 'Biome project, checked again with the cache: CPU time vs the first run', value: warm.cpuS, unit: 's', anchor: 'first run (cold cache)', anchorValue: cold.cpuS, note: 'load-independent' });
  }
  recordResult({ group: 'project', name: 'Biome project, checked again with the cache: vs native', value: warm.ms / 1000, unit: 's', anchor: 'native biome format', anchorValue: native.ms / 1000, goal: '≤ 1.5' });
  if (plain.cpuS !== undefined && native.cpuS !== undefined) {
    recordResult({ group: 'project', name: 'Biome project, format --check: CPU time (user + system)', value: plain.cpuS, unit: 's', anchor: 'native biome format', anchorValue: native.cpuS, note: 'load-independent; wall time on a saturated machine follows CPU share, not threads' });
  }
  recordResult({ group: 'memory', name: `format --check --no-native, Biome, ${THREADS} workers: peak RSS per worker`, value: memory / THREADS, unit: 'MB', anchor: 'budget', anchorValue: 300, goal: '≤ 1', note: `whole process ${memory.toFixed(0)} MB` });
}

function benchPrettier(corpus: string[]): void {
  const root = makeProject('prettier', corpus, { '.prettierrc': '{}\n' });
  run(PRETTIER, ['--write', '--log-level=silent', 'src'], root);
  const unstable = [...spawnSync(PRETTIER, ['--check', 'src'], { cwd: root, env, encoding: 'utf8' }).stderr.matchAll(/^\[warn\] (src\/\S+)$/gm)].map((m) => m[1]!);
  for (const file of unstable) rmSync(join(root, file));
  console.log(`Prettier project: ${corpus.length - unstable.length} files (${unstable.length} left out: Prettier does not format them stably)`);
  let memory = NaN;
  const parts = splitInParts(root);
  const { native, nativeFlags, parallel, single, plain, cold, warm } = interleaved(RUNS, {
    native: () => run(PRETTIER, ['--check', '--log-level=silent', 'src'], root),
    // How much of formatbox's lead is V8's flags alone: Prettier's own CLI under the same flags.
    nativeFlags: () => run(process.execPath, [...FORMAT_V8_FLAGS, PRETTIER_SCRIPT, '--check', '--log-level=silent', 'src'], root),
    // Two independent `prettier --check` processes, each on half of the files, at once. Under V8's
    // default flags each Prettier thread keeps a second core busy with TurboFan's background
    // compiles, so on 2 cores two of them gain nothing (format's flags, src/cli/v8-flags.ts).
    parallel: () => run('/bin/sh', ['-c', `${parts.map((list) => `${PRETTIER} --check --log-level=silent $(cat ${list}) &`).join(' ')} wait`], root),
    single: () => formatbox(root, ['--no-cache', '--threads', '1']),
    plain: () => {
      const result = formatbox(root, ['--no-cache']);
      memory = Number.isNaN(memory) ? lastRssMb : Math.max(memory, lastRssMb);
      return result;
    },
    cold: (round) => formatbox(root, [], join(base, `prettier-cache-${round}`)),
    warm: (round) => formatbox(root, [], join(base, `prettier-cache-${round}`)),
  });
  const n = corpus.length - unstable.length;
  const floorMs = formatterFloorMs('prettier', root);
  print('Prettier project', [
    ['prettier --check (anchor)', native.ms, native.detail],
    [`prettier --check under formatbox's V8 flags`, nativeFlags.ms, nativeFlags.detail],
    ["Prettier's API alone, in process, one thread (floor)", floorMs, 'formatting only: no I/O, engine or worker'],
    [`${THREADS} × prettier --check on 1/${THREADS} each, at once`, parallel.ms, parallel.detail],
    ['formatbox format --check, 1 thread, no cache', single.ms, single.detail],
    [`formatbox format --check, default pool, no cache`, plain.ms, plain.detail],
    ['formatbox, cold cache (first run)', cold.ms, cold.detail],
    ['formatbox, warm cache (tree unchanged)', warm.ms, warm.detail],
  ]);
  recordResult({ group: 'project', name: 'Prettier project, checked again with the cache: vs the first run', value: warm.ms / 1000, unit: 's', anchor: 'first run (cold cache)', anchorValue: cold.ms / 1000, ratio: warm.ms / cold.ms, goal: '≤ 0.05', note: '≥ 20× faster' });
  recordResult({ group: 'project', name: `Prettier project: ${THREADS} prettier --check processes on 1/${THREADS} of the files each, at once, files/s`, value: n / (parallel.ms / 1000), unit: 'files/s', anchor: 'prettier --check', anchorValue: n / (native.ms / 1000), note: `what ${THREADS} Prettier processes get here under V8's default flags` });
  recordResult({ group: 'project', name: "Prettier project: prettier --check under formatbox's V8 flags (what the flags alone give), files/s", value: n / (nativeFlags.ms / 1000), unit: 'files/s', anchor: 'prettier --check', anchorValue: n / (native.ms / 1000), note: FORMAT_V8_FLAGS.join(' ') });
  recordResult({ group: 'project', name: "Prettier project: Prettier's API alone, formatting only, one thread, under format's V8 flags, files/s", value: n / (floorMs / 1000), unit: 'files/s', anchor: 'prettier --check', anchorValue: n / (native.ms / 1000), note: 'test/bench/formatter-floor.ts' });
  recordResult({ group: 'project', name: 'Prettier project, format --check: the default pool vs 1 thread, files/s', value: n / (plain.ms / 1000), unit: 'files/s', anchor: 'formatbox --threads 1', anchorValue: n / (single.ms / 1000), note: `formatbox's own scaling (the pool: ${/(\d+) threads?\b/.exec(plain.detail)?.[1] ?? '?'} threads)` });
  // Files per second against files per second: the same files, so the inverse ratio of the times.
  recordResult({ group: 'project', name: 'Prettier project, format --check: files/s', value: n / (plain.ms / 1000), unit: 'files/s', anchor: 'prettier --check', anchorValue: n / (native.ms / 1000), goal: '≥ 1.8', note: `${n} JS/TS files from node_modules` });
  if (plain.cpuS !== undefined && native.cpuS !== undefined) {
    recordResult({ group: 'project', name: 'Prettier project, format --check: CPU time (user + system)', value: plain.cpuS, unit: 's', anchor: 'prettier --check', anchorValue: native.cpuS, note: 'load-independent' });
  }
  recordResult({ group: 'memory', name: `format --check, Prettier, ${THREADS} workers: peak RSS per worker`, value: memory / THREADS, unit: 'MB', anchor: 'budget', anchorValue: 300, goal: '≤ 1', note: `whole process ${memory.toFixed(0)} MB` });
}

/** Median over RUNS of one formatter alone formatting the tree's files in one thread (test/bench/formatter-floor.ts). */
function formatterFloorMs(formatter: 'biome' | 'prettier', root: string): number {
  const times: number[] = [];
  for (let round = 0; round < RUNS; round++) {
    const result = spawnSync(process.execPath, [...FORMAT_V8_FLAGS, '--import', 'tsx', join(REPO, 'test/bench/formatter-floor.ts'), formatter, root], { cwd: REPO, env, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`formatter-floor failed: ${result.stderr.slice(-400)}`);
    times.push((JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { ms: number }).ms);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

/**
 * The project's src/ files in THREADS lists (`part-<i>.txt` under base), dealt in sorted order, one
 * path per line. The corpus has no whitespace in its paths (checked), so `$(cat list)` splits them.
 */
function splitInParts(root: string): string[] {
  const files = (readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true }) as Array<{ isFile(): boolean; name: string; parentPath?: string; path?: string }>)
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath ?? entry.path!, entry.name)))
    .sort();
  if (files.some((file) => /\s/.test(file))) throw new Error('a corpus path has whitespace: the parallel anchor cannot list it');
  return Array.from({ length: THREADS }, (_, index) => {
    const list = join(base, `part-${index}.txt`);
    writeFileSync(list, files.filter((_, i) => i % THREADS === index).join('\n'));
    return list;
  });
}

/** JS/TS files below node_modules, deterministic (corpus.ts), spread over all packages rather than the first alphabetically. */
function pickCorpus(count: number): string[] {
  const found = nodeModulesSources(join(REPO, 'node_modules'));
  const step = Math.max(1, found.length / count);
  const picked: string[] = [];
  for (let i = 0; i < count && Math.floor(i * step) < found.length; i++) picked.push(found[Math.floor(i * step)]!);
  return picked;
}

function makeProject(name: string, corpus: string[], config: Record<string, string>): string {
  const root = join(base, name);
  mkdirSync(join(root, 'src'), { recursive: true });
  for (const [file, text] of Object.entries(config)) writeFileSync(join(root, file), text);
  // `node_modules` segments renamed: every formatter skips dependency directories.
  for (const file of corpus) cpSync(join(REPO, 'node_modules', file), join(root, 'src', file.replace(/(^|\/)node_modules\//g, '$1nm/')));
  return root;
}

function formatbox(root: string, extra: string[], cacheHome?: string): { code: number | null; stderr: string } {
  const argv = [CLI, 'format', '--check', ...extra, '--root', root, 'src'];
  const extraEnv: Record<string, string> = cacheHome ? { XDG_CACHE_HOME: cacheHome } : {};
  if (!TIME) return run(process.execPath, argv, root, extraEnv);
  const result = run(TIME, ['-f', 'maxrss_kb=%M cpu_s=%U %S', process.execPath, ...argv], root, extraEnv);
  lastRssMb = Number(/maxrss_kb=(\d+)/.exec(result.stderr)?.[1] ?? NaN) / 1024;
  return result;
}

/** Runs a command; with /usr/bin/time, also its CPU seconds (user + system, all threads). */
function run(command: string, argv: string[], cwd: string, extraEnv: Record<string, string> = {}): Result {
  const [cmd, args] = TIME && command !== TIME ? [TIME, ['-f', 'cpu_s=%U %S', command, ...argv]] : [command, argv];
  const result = spawnSync(cmd, args, { cwd, env: { ...env, ...extraEnv }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  const cpu = /cpu_s=([0-9.]+) ([0-9.]+)/.exec(result.stderr) ?? /maxrss_kb=\d+ cpu_s=([0-9.]+) ([0-9.]+)/.exec(result.stderr);
  return { code: result.status, stderr: result.stderr.slice(-400), ...(cpu ? { cpuS: Number(cpu[1]) + Number(cpu[2]) } : {}) };
}

type Result = { code: number | null; stderr: string; cpuS?: number };

/** Runs every variant once per round, in order; returns each one's median time and last summary. */
function interleaved<K extends string>(rounds: number, variants: Record<K, (round: number) => Result>): Record<K, { ms: number; detail: string; cpuS?: number }> {
  const times = new Map<K, number[]>();
  const cpus = new Map<K, number[]>();
  const last = new Map<K, Result>();
  for (let round = 0; round < rounds; round++) {
    for (const [name, body] of Object.entries(variants) as Array<[K, (round: number) => Result]>) {
      const t = performance.now();
      const result = body(round);
      last.set(name, result);
      times.set(name, [...(times.get(name) ?? []), performance.now() - t]);
      if (result.cpuS !== undefined) cpus.set(name, [...(cpus.get(name) ?? []), result.cpuS]);
    }
  }
  const out = {} as Record<K, { ms: number; detail: string; cpuS?: number }>;
  for (const [name, list] of times) {
    const sorted = [...list].sort((a, b) => a - b);
    const result = last.get(name)!;
    const summary = result.stderr.trim().split('\n').filter((l) => /files:|Checked|formatted|issues|warn/i.test(l) && !l.startsWith('maxrss')).slice(-1)[0] ?? '';
    const cpu = [...(cpus.get(name) ?? [])].sort((a, b) => a - b);
    out[name] = { ms: sorted[Math.floor(sorted.length / 2)]!, detail: `exit ${result.code}; ${cpu.length ? `CPU ${cpu[Math.floor(cpu.length / 2)]!.toFixed(2)} s; ` : ''}${summary.slice(0, 220)}`, ...(cpu.length ? { cpuS: cpu[Math.floor(cpu.length / 2)]! } : {}) };
  }
  return out;
}

function print(title: string, rows: Array<[string, number, string]>): void {
  const anchor = rows[0]![1];
  console.log(`\n${title}:`);
  for (const [name, ms, detail] of rows) console.log(`  ${name.padEnd(52)} ${(ms / 1000).toFixed(2).padStart(7)} s  ${(ms / anchor).toFixed(2)}×   (${detail})`);
}

function ensureBuilt(): void {
  const newest = (dir: string): number => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).reduce((max, e) => Math.max(max, statSync(join(e.parentPath ?? (e as unknown as { path: string }).path, e.name)).mtimeMs), 0);
  if (existsSync(CLI) && statSync(CLI).mtimeMs >= newest(join(REPO, 'src'))) return;
  const build = spawnSync(process.execPath, ['build.mjs'], { cwd: REPO, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
}
