// Measures the TOML formatter candidates and prints the table the choice rests on.
//
//   node --import tsx test/bench/toml-choice.ts [--runs N] [--budget-ms MS]
//
// Each candidate runs in its own child process, so load time and memory are its own:
//   dprint      dprint-plugin-toml (@dprint/toml) through @dprint/formatter, from a WebAssembly.Module
//   taplo       @taplo/lib (wasm inlined into a 35 MB JS file)
//   prettier    prettier + prettier-plugin-toml (devDependency, measured only)
// Files are real TOML from this machine: a small pyproject.toml and rustup's ~1 MB channel manifest.
// "workerd": each candidate is bundled into a worker (esbuild) and run with `workerd test` (the
// workerd devDependency), formatting `a=1`; the first error is shown. The package sources are also
// read for what workerd forbids (a node: import, eval/new Function, wasm compiled from bytes at run
// time); that static reading is the verdict when workerd is not installed.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

type Candidate = 'dprint' | 'taplo' | 'prettier';
const CANDIDATES: Candidate[] = ['dprint', 'taplo', 'prettier'];

const SMALL_CANDIDATES = [
  '/usr/lib/google-cloud-sdk/platform/gsutil/third_party/urllib3/pyproject.toml',
  '/usr/lib/node_modules/npm/node_modules/node-gyp/gyp/pyproject.toml',
];
const LARGE_CANDIDATES = [
  '/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/multirust-channel-manifest.toml',
  '/root/.rustup/toolchains/nightly-x86_64-unknown-linux-gnu/lib/rustlib/multirust-channel-manifest.toml',
];

interface Measurement {
  candidate: Candidate;
  name: string;
  version: string;
  loadMs: number;
  smallMs: number | null;
  largeMs: number | null;
  largeError?: string;
  /** Timed runs behind `largeMs` (0: only the warm-up run finished within the budget). */
  largeRuns?: number;
  rssLoadMb: number;
  rssPeakMb: number;
}

const args = process.argv.slice(2);
const option = (flag: string, fallback: number) => {
  const index = args.indexOf(flag);
  return index >= 0 ? Number(args[index + 1]) : fallback;
};


// ---------------------------------------------------------------------------

async function parent(runs: number, budgetMs: number): Promise<void> {
  const small = SMALL_CANDIDATES.find(existsSync);
  const large = LARGE_CANDIDATES.find(existsSync);
  if (!small || !large) {
    console.error('no TOML corpus on this machine (expected a pyproject.toml and a rustup manifest)');
    process.exit(2);
  }
  const lines = (file: string) => readFileSync(file, 'utf8').split('\n').length;
  console.log(`small: ${small} (${statSync(small).size} B, ${lines(small)} lines)`);
  console.log(`large: ${large} (${statSync(large).size} B, ${lines(large)} lines)`);
  console.log(`runs: ${runs} warm runs on the small file (median); on the large one a warm-up and up to 3 timed runs (median); budget ${budgetMs} ms per candidate\n`);

  const self = fileURLToPath(import.meta.url);
  const rows: string[][] = [];
  for (const candidate of CANDIDATES) {
    const run = spawnSync(process.execPath, ['--import', 'tsx', self, '--child', candidate, small, large, '--runs', String(runs)], {
      encoding: 'utf8',
      timeout: budgetMs,
      maxBuffer: 16 * 1024 * 1024,
    });
    const workerd = await workerdRun(candidate);
    if (run.error || run.status !== 0) {
      const why = run.error && (run.error as NodeJS.ErrnoException).code === 'ETIMEDOUT' ? `over ${budgetMs} ms` : `exit ${run.status}: ${run.stderr.trim().split('\n').pop()}`;
      // A timed-out child may still have printed its load and small-file figures.
      const partial = lastJson(run.stdout);
      rows.push(row(candidate, partial, workerd, why));
      continue;
    }
    rows.push(row(candidate, lastJson(run.stdout), workerd));
  }
  printTable(
    ['candidate', 'version', 'load ms', 'small warm ms (median)', 'large warm ms (median)', 'RSS after load MB', 'peak RSS MB', 'workerd'],
    rows,
  );
}

function row(candidate: Candidate, m: Partial<Measurement> | undefined, workerd: string, failure?: string): string[] {
  const ms = (value: number | null | undefined) => (value === null || value === undefined ? '–' : value < 10 ? value.toFixed(2) : value.toFixed(0));
  return [
    m?.name ?? candidate,
    m?.version ?? '?',
    ms(m?.loadMs),
    ms(m?.smallMs),
    m?.largeError ? `error: ${m.largeError}` : largeCell(m, failure),
    m?.rssLoadMb?.toFixed(0) ?? '–',
    m?.rssPeakMb ? m.rssPeakMb.toFixed(0) : '–',
    workerd,
  ];
}

function largeCell(m: Partial<Measurement> | undefined, failure: string | undefined): string {
  if (m?.largeMs === undefined || m.largeMs === null) return failure ?? '–';
  const value = m.largeMs.toFixed(0);
  if (m.largeRuns === 0) return `${value} (first run only; ${failure ?? 'stopped'})`;
  return failure ? `${value} (${m.largeRuns} runs; then ${failure})` : value;
}

function lastJson(stdout: string): Partial<Measurement> | undefined {
  const line = stdout.trim().split('\n').reverse().find((l) => l.startsWith('{'));
  return line ? (JSON.parse(line) as Partial<Measurement>) : undefined;
}

function printTable(header: string[], rows: string[][]): void {
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  for (const cells of rows) console.log(`| ${cells.join(' | ')} |`);
}

/** The worker that formats `a=1` with one candidate, as workerd would run it. */
const WORKER_ENTRIES: Record<Candidate, string> = {
  dprint: `
    import { createFromWasmModule } from '@dprint/formatter';
    import plugin from './plugin.wasm';
    export default { async test() {
      const formatter = createFromWasmModule(plugin);
      formatter.setConfig({}, {});
      const out = formatter.formatText({ filePath: 'a.toml', fileText: 'a=1\\n' });
      if (out !== 'a = 1\\n') throw new Error('unexpected output ' + JSON.stringify(out));
    } };`,
  taplo: `
    import { Taplo } from '@taplo/lib';
    export default { async test() {
      const taplo = await Taplo.initialize();
      const out = taplo.format('a=1\\n');
      if (out !== 'a = 1\\n') throw new Error('unexpected output ' + JSON.stringify(out));
    } };`,
  prettier: `
    import * as prettier from 'prettier/standalone';
    import plugin from 'prettier-plugin-toml';
    export default { async test() {
      const out = await prettier.format('a=1\\n', { parser: 'toml', plugins: [plugin], filepath: '/a.toml' });
      if (out !== 'a = 1\\n') throw new Error('unexpected output ' + JSON.stringify(out));
    } };`,
};

/** Bundles and runs the candidate's worker in workerd (with `nodejs_compat`, to give node: imports their best chance). */
async function workerdRun(candidate: Candidate): Promise<string> {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const workerd = join(root, 'node_modules/.bin/workerd');
  const statically = workerdVerdict(candidate);
  if (!existsSync(workerd)) return `${statically} (read from its sources; workerd not installed)`;
  const { build } = await import('esbuild');
  const dir = mkdtempSync(join(tmpdir(), 'formatbox-toml-workerd-'));
  try {
    try {
      await build({
        stdin: { contents: WORKER_ENTRIES[candidate], resolveDir: root, sourcefile: 'worker-entry.js', loader: 'js' },
        bundle: true,
        format: 'esm',
        platform: 'neutral',
        mainFields: ['browser', 'module', 'main'],
        conditions: ['workerd', 'worker', 'browser'],
        external: ['./plugin.wasm', 'node:*'],
        outfile: join(dir, 'worker.js'),
        logLevel: 'silent',
      });
    } catch (error) {
      const first = (error as { errors?: Array<{ text: string }> }).errors?.[0]?.text;
      if (first === undefined) throw error;
      return `no: does not bundle for workers (${first.slice(0, 80)})`;
    }
    copyFileSync(join(root, 'node_modules/@dprint/toml/plugin.wasm'), join(dir, 'plugin.wasm'));
    writeFileSync(
      join(dir, 'config.capnp'),
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = ( services = [ (name = "main", worker = .worker) ] );
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js"), (name = "plugin.wasm", wasm = embed "plugin.wasm") ],
  compatibilityDate = "2026-11-01",
  compatibilityFlags = ["nodejs_compat"],
);
`,
    );
    const run = spawnSync(workerd, ['test', 'config.capnp'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    const version = spawnSync(workerd, ['--version'], { encoding: 'utf8' }).stdout.trim();
    if (run.status === 0) return `yes: ran in ${version}`;
    const output = `${run.stdout}\n${run.stderr}`;
    const reason = output.split('\n').find((line) => /Error|error:|uncaught|disallowed/i.test(line) && !/^\s*at /.test(line)) ?? `exit ${run.status}`;
    const error = /(\w*Error: .*)$/.exec(reason)?.[1] ?? reason;
    return `no: ${error.trim().slice(0, 110)} (${statically.replace(/^no: /, '')})`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Reads the candidate's shipped sources for what workerd forbids. */
function workerdVerdict(candidate: Candidate): string {
  const root = fileURLToPath(new URL('../../node_modules/', import.meta.url));
  const dirs: Record<Candidate, string[]> = {
    dprint: ['@dprint/formatter/esm'],
    taplo: ['@taplo/lib/dist'],
    prettier: ['prettier-plugin-toml/lib', '@tombi-toml/wasm-lib/dist'],
  };
  const reasons = new Set<string>();
  for (const dir of dirs[candidate]) {
    for (const file of walk(join(root, dir)).filter((f) => /\.(m?js|cjs)$/.test(f))) {
      const text = readFileSync(file, 'utf8');
      if (/from\s+['"]node:|require\(['"](fs|path|os)['"]\)/.test(text)) reasons.add('imports node: modules');
      if (/\bnew Function\(|[^.\w]eval\(/.test(text)) reasons.add('uses eval/new Function');
      if (text.length > 1_000_000 && /WebAssembly\.instantiate/.test(text)) reasons.add('compiles wasm inlined in its JS at run time');
    }
  }
  if (candidate === 'dprint') {
    const plugin = new WebAssembly.Module(readFileSync(join(root, '@dprint/toml/plugin.wasm')));
    const imports = WebAssembly.Module.imports(plugin).length;
    if (imports > 0) reasons.add(`plugin wasm has ${imports} imports`);
  }
  return reasons.size === 0 ? 'takes a Module, no imports, no eval' : `no: ${[...reasons].join(', ')}`;
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

// ---------------------------------------------------------------------------

async function child(candidate: Candidate, smallPath: string, largePath: string, runs: number): Promise<void> {
  const small = readFileSync(smallPath, 'utf8');
  const large = readFileSync(largePath, 'utf8');
  const rss = () => process.memoryUsage().rss / 1024 / 1024;
  const rssBefore = rss();
  const started = performance.now();
  const { name, version, format } = await load(candidate);
  await format(small, 'pyproject.toml'); // first call completes the load (prettier loads its wasm lazily)
  const loadMs = performance.now() - started;
  const rssLoadMb = rss() - rssBefore;

  const median = async (text: string, path: string, count: number): Promise<number> => {
    const times: number[] = [];
    await format(text, path);
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      await format(text, path);
      times.push(performance.now() - t);
    }
    return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
  };
  const result: Measurement = { candidate, name, version, loadMs, smallMs: await median(small, 'pyproject.toml', runs), largeMs: null, rssLoadMb, rssPeakMb: 0 };

  // Print after every step, so a candidate that runs over the budget still reports what it did.
  const report = () => {
    result.rssPeakMb = process.resourceUsage().maxRSS / 1024;
    console.log(JSON.stringify(result));
  };
  report();
  try {
    // Large file: one warm-up run, then up to 3 timed runs (median); a slow candidate may be cut
    // off by the budget, then the runs done so far stand (the warm-up run if nothing else).
    const t = performance.now();
    await format(large, 'multirust-channel-manifest.toml');
    result.largeMs = performance.now() - t;
    result.largeRuns = 0;
    report();
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      await format(large, 'multirust-channel-manifest.toml');
      times.push(performance.now() - started);
      result.largeMs = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
      result.largeRuns = times.length;
      report();
    }
  } catch (error) {
    result.largeError = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 60);
  }
  report();
}

interface Loaded {
  name: string;
  version: string;
  format(text: string, path: string): Promise<string>;
}

async function load(candidate: Candidate): Promise<Loaded> {
  const packageVersion = (pkg: string) =>
    JSON.parse(readFileSync(fileURLToPath(new URL(`../../node_modules/${pkg}/package.json`, import.meta.url)), 'utf8')).version as string;
  switch (candidate) {
    case 'dprint': {
      const { createFromWasmModule } = await import('@dprint/formatter');
      const bytes = readFileSync(fileURLToPath(new URL('../../node_modules/@dprint/toml/plugin.wasm', import.meta.url)));
      const formatter = createFromWasmModule(await WebAssembly.compile(bytes));
      formatter.setConfig({}, {});
      const info = formatter.getPluginInfo();
      return { name: info.name, version: info.version, format: async (fileText, filePath) => formatter.formatText({ filePath, fileText }) };
    }
    case 'taplo': {
      const taploModule = (await import('@taplo/lib')) as unknown as { Taplo?: typeof import('@taplo/lib').Taplo; default: { Taplo: typeof import('@taplo/lib').Taplo } };
      const Taplo = taploModule.Taplo ?? taploModule.default.Taplo;
      const taplo = await Taplo.initialize();
      return { name: '@taplo/lib', version: packageVersion('@taplo/lib'), format: async (text) => taplo.format(text) };
    }
    case 'prettier': {
      const prettier = await import('prettier');
      const pluginModule = (await import('prettier-plugin-toml')) as { default?: unknown };
      const plugin = (pluginModule.default ?? pluginModule) as import('prettier').Plugin;
      return {
        name: 'prettier-plugin-toml',
        version: `${packageVersion('prettier-plugin-toml')} (tombi ${packageVersion('@tombi-toml/wasm-lib')})`,
        // The plugin looks for tombi config files upwards from `filepath` (and in the home directory).
        format: (text, path) => prettier.format(text, { parser: 'toml', plugins: [plugin], filepath: join(tmpdir(), 'formatbox-toml-bench', path) }),
      };
    }
  }
}

// ---------------------------------------------------------------------------
// Entry (at the end, so every constant above is initialised).

if (args[0] === '--child') {
  await child(args[1] as Candidate, args[2]!, args[3]!, option('--runs', 20));
} else {
  await parent(option('--runs', 20), option('--budget-ms', 120_000));
}
