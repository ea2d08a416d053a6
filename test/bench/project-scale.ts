/**
 * Project-wide formatting as the tree grows: `formatbox format --check` on trees of 2,000, 10,000
 * and 30,000 files, formatted and unformatted, Biome and Prettier projects, each against the native
 * tool on the same tree in the same run: wall time, CPU (user + system, all threads and children
 * waited for; the sandboxed native Biome is not among them), peak RSS, the growth exponent over the sizes (least squares of log time on log
 * files), and the cached re-check (the tree unchanged).
 *
 * The tree: JS/TS files taken from this repository's node_modules (nobody here wrote them); a tree
 * larger than the pool of files holds it several times, in sibling directories. "Unformatted" is
 * the files as published; "formatted" is that tree after the project's own native CLI `--write`.
 * The Biome project is `{"formatter": {"indentStyle": "space"}}`, the Prettier one `.prettierrc` `{}`.
 *
 *   node --import tsx test/bench/project-scale.ts [--sizes 2000,10000,30000] [--tools biome,prettier] [--states unformatted,formatted] [--write] [--write-only]
 * `--write` also measures `format --write` on each tree; `--write-only` measures only that (no check runs, no wasm-pool write).
 * Uses the built bin (dist/cli.js); build it first (`npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { nodeModulesSources } from './corpus.js';
import { recordResult } from './report.js';

const REPO = resolve('.');
const CLI = join(REPO, 'dist/cli.js');
const BIOME = join(REPO, 'node_modules/@biomejs/cli-linux-x64/biome');
const PRETTIER = join(REPO, 'node_modules/.bin/prettier');
const TIME = '/usr/bin/time';
const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
};
const SIZES = (option('--sizes') ?? '2000,10000,30000').split(',').map(Number).filter((n) => n > 0).sort((a, b) => a - b);
const TOOLS = (option('--tools') ?? 'biome,prettier').split(',') as Array<'biome' | 'prettier'>;
const STATES = (option('--states') ?? 'unformatted,formatted').split(',') as Array<'unformatted' | 'formatted'>;
/** `--write` on each tree too: the native tool's own write against formatbox's, each on a fresh copy. */
const WRITE_ONLY = args.includes('--write-only');
const WRITE = WRITE_ONLY || args.includes('--write');

if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: npm run build');
if (!existsSync(TIME)) throw new Error('/usr/bin/time is needed for CPU and peak RSS');
const base = mkdtempSync(join(tmpdir(), 'fb-bench-scale-'));
const env = { ...process.env, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(base, 'no-config'), XDG_CACHE_HOME: join(base, 'cache') };

interface Measured {
  wallS: number;
  cpuS: number;
  rssMb: number;
  code: number | null;
  summary: string;
}

/** One row of a series: a tool on one tree. */
type Series = Map<number, Measured>;

try {
  const pool = nodeModulesSources(join(REPO, 'node_modules'));
  console.log(`project scale bench: sizes ${SIZES.join(', ')}; ${pool.length} distinct JS/TS files from node_modules; ${availableParallelism()} cores; load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  for (const tool of TOOLS) {
    for (const state of STATES) {
      const series: Record<string, Series> = { native: new Map(), formatbox: new Map(), cold: new Map(), warm: new Map() };
      for (const size of SIZES) {
        const root = makeTree(tool, state, size, pool);
        const label = `${tool === 'biome' ? 'Biome' : 'Prettier'}, ${size} files, ${state}`;
        if (WRITE_ONLY) {
          console.log(`\n${label} (load ${loadavg()[0]!.toFixed(1)}):`);
          measureWrites(tool, root, label);
          rmSync(root, { recursive: true, force: true });
          continue;
        }
        const nativeArgs = tool === 'biome' ? [BIOME, 'format', 'src'] : [PRETTIER, '--check', '--log-level=warn', 'src'];
        // Interleaved: the anchor and formatbox see the same load; the cold run fills a fresh cache, the warm one reads it.
        const native = measure(nativeArgs, root);
        const plain = measure([process.execPath, CLI, 'format', '--check', '--no-cache', '--root', root, 'src'], root);
        const cacheHome = join(base, `cache-${tool}-${state}-${size}`);
        const cold = measure([process.execPath, CLI, 'format', '--check', '--root', root, 'src'], root, { XDG_CACHE_HOME: cacheHome });
        const warm = measure([process.execPath, CLI, 'format', '--check', '--root', root, 'src'], root, { XDG_CACHE_HOME: cacheHome });
        series.native!.set(size, native);
        series.formatbox!.set(size, plain);
        series.cold!.set(size, cold);
        series.warm!.set(size, warm);
        const anchor = tool === 'biome' ? 'native biome format' : 'prettier --check';
        console.log(`\n${label} (load ${loadavg()[0]!.toFixed(1)}):`);
        for (const [name, m] of [[anchor, native], ['formatbox format --check --no-cache', plain], ['formatbox, cold cache', cold], ['formatbox, warm cache (unchanged tree)', warm]] as const) {
          console.log(`  ${name.padEnd(40)} ${m.wallS.toFixed(2).padStart(7)} s  ${(m.wallS / native.wallS).toFixed(2)}×  CPU ${m.cpuS.toFixed(2)} s  RSS ${m.rssMb.toFixed(0)} MB  exit ${m.code}  ${m.summary}`);
        }
        const note = `${state} tree; CPU ${plain.cpuS.toFixed(2)} s${tool === 'biome' ? ' (without the sandboxed native Biome)' : ''} vs ${native.cpuS.toFixed(2)} s; peak RSS ${plain.rssMb.toFixed(0)} MB vs ${native.rssMb.toFixed(0)} MB; load ${loadavg()[0]!.toFixed(1)}`;
        if (tool === 'biome') {
          recordResult({ group: 'project-scale', name: `${label}: format --check wall time`, value: plain.wallS, unit: 's', anchor, anchorValue: native.wallS, goal: '≤ 1.3', note });
        } else {
          // Files per second against files per second: the same files, so the inverse ratio of the times.
          recordResult({ group: 'project-scale', name: `${label}: format --check files/s`, value: size / plain.wallS, unit: 'files/s', anchor, anchorValue: size / native.wallS, goal: '≥ 1.8', note });
        }
        recordResult({ group: 'project-scale', name: `${label}: peak RSS of format --check`, value: plain.rssMb, unit: 'MB', anchor: `${anchor} peak RSS`, anchorValue: native.rssMb, note: 'native Biome runs in the sandbox (not in the formatbox process); the goal at 30,000 files is ≤ 2× native plus one worker' });
        recordResult({ group: 'project-scale', name: `${label}: cached re-check (tree unchanged)`, value: warm.wallS, unit: 's', anchor, anchorValue: native.wallS, note: `first run ${cold.wallS.toFixed(2)} s; CPU ${warm.cpuS.toFixed(2)} s` });
        if (WRITE) measureWrites(tool, root, label);
        rmSync(root, { recursive: true, force: true });
      }
      if (SIZES.length > 1 && !WRITE_ONLY) {
        const label = `${tool === 'biome' ? 'Biome' : 'Prettier'}, ${state}, ${SIZES[0]}→${SIZES.at(-1)} files`;
        const exponents = Object.fromEntries(Object.entries(series).map(([name, s]) => [name, growth(s, 'wallS')]));
        const rssExponent = growth(series.formatbox!, 'rssMb');
        console.log(`\n${label}: growth exponent of wall time: native ${exponents.native!.toFixed(2)}, formatbox ${exponents.formatbox!.toFixed(2)}, cold ${exponents.cold!.toFixed(2)}, warm ${exponents.warm!.toFixed(2)}; of formatbox's peak RSS ${rssExponent.toFixed(2)}`);
        recordResult({ group: 'project-scale', name: `${label}: growth exponent of format --check wall time`, value: exponents.formatbox!, unit: '', anchor: 'native tool', anchorValue: exponents.native!, goal: '≤ 1.1', met: exponents.formatbox! <= 1.1, note: `time ∝ files^k; cached re-check k = ${exponents.warm!.toFixed(2)}` });
        recordResult({ group: 'project-scale', name: `${label}: growth exponent of format --check peak RSS`, value: rssExponent, unit: '', goal: '≤ 1', met: rssExponent <= 1, note: 'linear or below' });
      }
    }
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}

/** `--write` on fresh copies of the tree: the native tool's, formatbox's default, and formatbox's wasm pool alone (Biome). */
function measureWrites(tool: 'biome' | 'prettier', root: string, label: string): void {
  const copy = (name: string): string => {
    const dir = `${root}-${name}`;
    cpSync(root, dir, { recursive: true });
    return dir;
  };
  const nativeDir = copy('native-write');
  const native = measure(tool === 'biome' ? [BIOME, 'format', '--write', 'src'] : [PRETTIER, '--write', '--log-level=warn', 'src'], nativeDir);
  const oursDir = copy('formatbox-write');
  const ours = measure([process.execPath, CLI, 'format', '--write', '--no-cache', '--root', oursDir, 'src'], oursDir);
  const wasmDir = tool === 'biome' && !WRITE_ONLY ? copy('wasm-write') : undefined;
  const wasm = wasmDir ? measure([process.execPath, CLI, 'format', '--write', '--no-cache', '--no-native', '--root', wasmDir, 'src'], wasmDir) : undefined;
  const anchor = tool === 'biome' ? 'biome format --write' : 'prettier --write';
  console.log(`  ${anchor.padEnd(40)} ${native.wallS.toFixed(2).padStart(7)} s
  ${'formatbox format --write --no-cache'.padEnd(40)} ${ours.wallS.toFixed(2).padStart(7)} s  ${(ours.wallS / native.wallS).toFixed(2)}×  ${ours.summary}`);
  if (wasm) console.log(`  ${'formatbox --write --no-native'.padEnd(40)} ${wasm.wallS.toFixed(2).padStart(7)} s  ${(wasm.wallS / native.wallS).toFixed(2)}×`);
  recordResult({ group: 'project-scale', name: `${label}: format --write wall time`, value: ours.wallS, unit: 's', anchor, anchorValue: native.wallS, note: `${wasm ? `--no-native (the wasm pool alone): ${wasm.wallS.toFixed(2)} s; ` : ''}load ${loadavg()[0]!.toFixed(1)}` });
  for (const dir of [nativeDir, oursDir, wasmDir]) if (dir) rmSync(dir, { recursive: true, force: true });
}

/** The slope of log(value) on log(files): value ∝ files^slope. */
function growth(series: Series, field: 'wallS' | 'rssMb'): number {
  const points = [...series].map(([n, m]) => [Math.log(n), Math.log(m[field])] as const);
  const mx = points.reduce((s, [x]) => s + x, 0) / points.length;
  const my = points.reduce((s, [, y]) => s + y, 0) / points.length;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? NaN : num / den;
}

function measure(argv: string[], cwd: string, extraEnv: Record<string, string> = {}): Measured {
  const started = performance.now();
  const result = spawnSync(TIME, ['-f', 'fbtime maxrss_kb=%M cpu_s=%U %S', ...argv], { cwd, env: { ...env, ...extraEnv }, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const wallS = (performance.now() - started) / 1000;
  if (result.error) throw result.error;
  const stats = /fbtime maxrss_kb=(\d+) cpu_s=([0-9.]+) ([0-9.]+)/.exec(result.stderr);
  const summary = result.stderr.split('\n').filter((l) => /files:|Checked|native Biome|issues|All matched|Code style/.test(l)).map((l) => l.trim().slice(0, 160)).join(' | ');
  return { wallS, cpuS: stats ? Number(stats[2]) + Number(stats[3]) : NaN, rssMb: stats ? Number(stats[1]) / 1024 : NaN, code: result.status, summary };
}

/** A project of `size` files from the pool, in sibling directories (`src/copy-<k>/…`) when it takes the pool more than once. */
function makeTree(tool: 'biome' | 'prettier', state: 'unformatted' | 'formatted', size: number, pool: string[]): string {
  const root = join(base, `${tool}-${state}-${size}`);
  mkdirSync(join(root, 'src'), { recursive: true });
  spawnSync('git', ['init', '-q', root]);
  if (tool === 'biome') writeFileSync(join(root, 'biome.json'), '{ "formatter": { "indentStyle": "space" } }\n');
  else writeFileSync(join(root, '.prettierrc'), '{}\n');
  // Up to the pool's size, a sample spread evenly over it (every size the same mix of packages);
  // beyond, the whole pool again in the next directory.
  const step = size < pool.length ? pool.length / size : 1;
  for (let i = 0; i < size; i++) {
    const file = size < pool.length ? pool[Math.floor(i * step)]! : pool[i % pool.length]!;
    const copy = size < pool.length ? 0 : Math.floor(i / pool.length);
    // `node_modules` segments renamed: every formatter skips dependency directories.
    cpSync(join(REPO, 'node_modules', file), join(root, 'src', `copy-${copy}`, file.replace(/(^|\/)node_modules\//g, '$1nm/')));
  }
  if (state === 'formatted') {
    const write = tool === 'biome' ? [BIOME, 'format', '--write', 'src'] : [PRETTIER, '--write', '--log-level=silent', 'src'];
    spawnSync(write[0]!, write.slice(1), { cwd: root, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  }
  return root;
}
