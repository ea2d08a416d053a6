/**
 * Delivery per host: cold time (load to first receipt), warm time per call, bytes shipped, and
 * workerd isolate start time against an empty worker, next to issue 12's goals.
 *
 *   node --import tsx test/bench/delivery.ts [--runs N] [--hosts node,chromium,workerd,deno]
 *
 * - node:     in-process, createEngine + createBuiltinAdapters; cold = first afterEdit of a fresh engine
 *             (reads and compiles the wasm), warm = the median of N more.
 * - chromium: the playground (examples/playground) in headless Chromium, a fresh browser context per
 *             formatter (no cache, no service worker), served pre-gzipped over an emulated 50 Mbit/s
 *             link with a 40 ms round trip per response (the issue's conditions); cold = navigation
 *             start to the first receipt, bytes = what the server sent (encoded).
 * - workerd:  examples/worker edge, edge-biome and full (built now), `workerd serve`; start = spawn to the first
 *             answered request (wall, and workerd's CPU time from /proc), median of N, beside an empty
 *             worker measured the same way; cold =
 *             first /edit per formatter in a fresh isolate; bytes = gzip summed per module.
 * - deno:     the universal entry bundled for Deno, wasm read from wasm/ (file: URLs); cold/warm as Node.
 * Absolute times on a shared 2-core machine are noisy: read the ratios and the differences.
 */
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createEngine } from '../../src/index.js';
import { createBuiltinAdapters } from '../../src/node/builtins.js';
import { bundleForHost, resultsIn } from '../runtimes/hosts.js';
import { emptyWorkerDir, medianStart, serveWorker } from '../delivery/workerd-serve.js';
import { buildPlayground } from '../../examples/playground/build.mjs';
import { buildProfile } from '../../examples/worker/build.mjs';
import { recordResult } from './report.js';

const args = process.argv.slice(2);
const RUNS = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : 10;
const HOSTS = (args.includes('--hosts') ? args[args.indexOf('--hosts') + 1]! : 'node,chromium,workerd,deno').split(',');
const root = process.cwd();

/** One edit per formatter, each in a project that selects it. */
const EDITS = {
  prettier: { path: 'src/a.ts', projectFiles: { '.prettierrc': '{ "singleQuote": true }' }, prior: 'export const a = 1;\n', input: { oldText: 'export const a = 1;', newText: 'export const a={b:"c"}' } },
  biome: { path: 'src/a.ts', projectFiles: { 'biome.json': '{}' }, prior: 'export const a = 1;\n', input: { oldText: 'export const a = 1;', newText: 'export const a={b:"c"}' } },
  ruff: { path: 'a.py', projectFiles: { 'ruff.toml': '' }, prior: 'x = 1\n', input: { oldText: 'x = 1', newText: "x = {'a':1}" } },
  gofmt: { path: 'a.go', projectFiles: { 'go.mod': 'module x\n' }, prior: 'package a\n\nvar x = 1\n', input: { oldText: 'var x = 1', newText: 'var x=map[string]int{"a":1}' } },
  toml: { path: 'Cargo.toml', projectFiles: { 'taplo.toml': '' }, prior: '[package]\nname = "x"\n', input: { oldText: 'name = "x"', newText: 'name="x"\nversion  =  "1"' } },
} as const;
type Formatter = keyof typeof EDITS;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 0)} ms`;
const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;
const rows: string[][] = [['host', 'formatter / profile', 'cold (load → first receipt)', `warm per call (median of ${RUNS})`, 'bytes shipped', 'isolate start', 'goal']];

async function benchNode(): Promise<void> {
  for (const name of Object.keys(EDITS) as Formatter[]) {
    const edit = EDITS[name];
    const engine = createEngine({ formatters: createBuiltinAdapters(), projectFiles: edit.projectFiles });
    const started = performance.now();
    await engine.afterEdit({ path: edit.path, prior: edit.prior, input: edit.input });
    const cold = performance.now() - started;
    const warm: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await engine.afterEdit({ path: edit.path, prior: edit.prior, input: edit.input });
      warm.push(performance.now() - t);
    }
    rows.push(['node', name, ms(cold), ms(median(warm)), '(from node_modules)', '', '']);
  }
}

/** A static server sending pre-gzipped files at `bitsPerSecond`, each response after one `rttMs`. */
async function throttledServer(dir: string, bitsPerSecond: number, rttMs: number): Promise<{ server: Server; origin: string; sent: { bytes: number } }> {
  const types: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm' };
  const gzipped = new Map<string, Buffer>();
  const sent = { bytes: 0 };
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname.replace(/\/$/, '/index.html');
    const file = join(dir, path);
    if (!file.startsWith(dir) || !existsSync(file)) return void response.writeHead(404).end();
    if (!gzipped.has(file)) gzipped.set(file, gzipSync(readFileSync(file), { level: 6 }));
    const body = gzipped.get(file)!;
    await new Promise((resolve) => setTimeout(resolve, rttMs));
    response.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream', 'content-encoding': 'gzip', 'content-length': body.length });
    const chunk = 64 * 1024;
    const chunkMs = (chunk * 8 * 1000) / bitsPerSecond;
    for (let offset = 0; offset < body.length; offset += chunk) {
      response.write(body.subarray(offset, offset + chunk));
      sent.bytes += Math.min(chunk, body.length - offset);
      await new Promise((resolve) => setTimeout(resolve, chunkMs));
    }
    response.end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  return { server, origin: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, sent };
}

async function benchChromium(): Promise<void> {
  const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
  if (!existsSync(CHROMIUM)) return void rows.push(['chromium', '(skipped: no Chromium)', '', '', '', '', '']);
  const { chromium } = await import('playwright-core');
  const dir = mkdtempSync(join(tmpdir(), 'formatbox-bench-playground-'));
  await buildPlayground(dir);
  const { server, origin, sent } = await throttledServer(dir, 50e6, 40);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  const before: Record<string, string> = { biome: '5.1 s', prettier: '2.9 s', ruff: '2.8 s' };
  try {
    for (const name of ['prettier', 'biome', 'ruff', 'gofmt', 'toml'] as Formatter[]) {
      const edit = EDITS[name];
      const context = await browser.newContext({ serviceWorkers: 'block' });
      const page = await context.newPage();
      sent.bytes = 0;
      const started = performance.now();
      await page.goto(`${origin}/`);
      await page.waitForFunction(() => typeof (globalThis as { formatboxPlaygroundEdit?: unknown }).formatboxPlaygroundEdit === 'function');
      const message = { path: edit.path, prior: edit.prior, input: edit.input, projectFiles: edit.projectFiles };
      const first = await page.evaluate((m) => (globalThis as unknown as { formatboxPlaygroundEdit(m: unknown): Promise<{ ok: boolean; error?: string }> }).formatboxPlaygroundEdit(m), message);
      const cold = performance.now() - started;
      if (!first.ok) throw new Error(`${name}: ${first.error}`);
      const shipped = sent.bytes;
      const warm = await page.evaluate(
        async ({ m, runs }) => {
          const times: number[] = [];
          const edit = (globalThis as unknown as { formatboxPlaygroundEdit(m: unknown): Promise<unknown> }).formatboxPlaygroundEdit;
          for (let i = 0; i < runs; i++) {
            const t = performance.now();
            await edit(m);
            times.push(performance.now() - t);
          }
          return times;
        },
        { m: message, runs: RUNS },
      );
      rows.push(['chromium (module worker, 50 Mbit/s, 40 ms RTT)', name, ms(cold), ms(median(warm)), `${mb(shipped)} gzip`, '', before[name] ? `before this issue: ${before[name]} cold` : '']);
      await context.close();
    }
  } finally {
    await browser.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function benchWorkerd(): Promise<void> {
  if (!existsSync(join(root, 'node_modules/.bin/workerd'))) return void rows.push(['workerd', '(skipped: not installed)', '', '', '', '', '']);
  if (!existsSync(join(root, 'dist/core.js'))) spawnSync(process.execPath, ['build.mjs', '--no-sizes'], { cwd: root, stdio: 'inherit' });
  const out = mkdtempSync(join(tmpdir(), 'formatbox-bench-workers-'));
  const empty = emptyWorkerDir();
  try {
    const emptyStart = await medianStart(empty, RUNS);
    rows.push(['workerd', 'empty worker', '', '', '', `${ms(emptyStart.wallMs)} wall, ${ms(emptyStart.cpuMs)} CPU`, '(anchor)']);
    const goals = { edge: { gzip: 3e6, startMore: 150 }, 'edge-biome': { gzip: 10e6, startMore: 600 }, full: { gzip: 10e6, startMore: 600 } };
    const uses: Record<string, Formatter[]> = { edge: ['prettier', 'ruff', 'gofmt', 'toml'], 'edge-biome': ['prettier', 'biome', 'ruff', 'gofmt', 'toml'], full: ['prettier', 'biome', 'ruff', 'gofmt', 'toml'] };
    for (const profile of ['edge', 'edge-biome', 'full'] as const) {
      const dir = join(out, profile);
      const sizes = (await buildProfile(join(root, 'examples/worker', `${profile}.js`), dir, profile)) as { gzip: number };
      const start = await medianStart(dir, RUNS);
      const goal = goals[profile];
      const more = { wall: start.wallMs - emptyStart.wallMs, cpu: start.cpuMs - emptyStart.cpuMs };
      const met = (extra: number) => (extra <= goal.startMore ? 'met' : 'NOT met');
      const verdict = `≤ ${mb(goal.gzip)} gzip: ${sizes.gzip <= goal.gzip ? 'met' : 'NOT met'}; start ≤ empty + ${goal.startMore} ms: wall ${met(more.wall)}, CPU ${met(more.cpu)}`;
      rows.push(['workerd', `${profile} profile`, '', '', `${mb(sizes.gzip)} gzip`, `${ms(start.wallMs)} wall (+${ms(more.wall)}), ${ms(start.cpuMs)} CPU (+${ms(more.cpu)})`, verdict]);
      recordResult({ group: 'delivery', name: `workerd ${profile} profile: gzip summed per module`, value: sizes.gzip / 1e6, unit: 'MB', goal: `≤ ${goal.gzip / 1e6}`, note: `npm run worker:build; formatters: ${uses[profile]!.join(', ')}` });
      for (const name of uses[profile]!) {
        const edit = EDITS[name];
        const served = await serveWorker(dir);
        try {
          const post = async () => {
            const response = await fetch(`${served.origin}/edit`, { method: 'POST', body: JSON.stringify({ ...edit, config: {} }) });
            const receipt = (await response.json()) as { status?: string; line?: string };
            if (receipt.status !== 'formatted') throw new Error(`${profile} ${name}: ${JSON.stringify(receipt).slice(0, 300)}`);
          };
          const started = performance.now();
          await post();
          const cold = performance.now() - started;
          const warm: number[] = [];
          for (let i = 0; i < RUNS; i++) {
            const t = performance.now();
            await post();
            warm.push(performance.now() - t);
          }
          rows.push(['workerd', `${profile}: ${name}`, `${ms(cold)} (after start)`, ms(median(warm)), '', '', '']);
        } finally {
          await served.stop();
        }
      }
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
    rmSync(empty, { recursive: true, force: true });
  }
}

async function benchDeno(): Promise<void> {
  const DENO = join(root, 'node_modules/.bin/deno');
  if (!existsSync(DENO)) return void rows.push(['deno', '(skipped: not installed)', '', '', '', '', '']);
  const dir = mkdtempSync(join(tmpdir(), 'formatbox-bench-deno-'));
  try {
    const entry = `
import * as formatbox from './src/index.ts';
const wasm = formatbox.wasmUrls(new URL(${JSON.stringify(`file://${root}/wasm/`)}));
const edits = ${JSON.stringify(EDITS)};
const out = {};
for (const [name, edit] of Object.entries(edits)) {
  const engine = formatbox.createEngine({ formatters: formatbox.createFormatters(wasm), projectFiles: edit.projectFiles });
  let t = performance.now();
  await engine.afterEdit(edit);
  const cold = performance.now() - t;
  const warm = [];
  for (let i = 0; i < ${RUNS}; i++) { t = performance.now(); await engine.afterEdit(edit); warm.push(performance.now() - t); }
  out[name] = { cold, warm };
}
console.log('RESULTS ' + JSON.stringify(out));
`;
    await bundleForHost(entry, join(dir, 'main.js'), { conditions: ['browser', 'deno'] });
    writeFileSync(join(dir, 'deno.json'), '{}');
    if (!existsSync(join(root, 'wasm/gofmt.wasm'))) spawnSync(process.execPath, ['build.mjs', '--no-sizes'], { cwd: root, stdio: 'inherit' });
    const run = spawnSync(DENO, ['run', '--no-config', '--no-prompt', `--allow-read=${join(root, 'wasm')}`, join(dir, 'main.js')], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, DENO_DIR: join(dir, '.deno'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
    });
    const results = resultsIn<Record<string, { cold: number; warm: number[] }>>(`${run.stdout}\n${run.stderr}`);
    for (const [name, r] of Object.entries(results)) rows.push(['deno', name, ms(r.cold), ms(median(r.warm)), '(file: URLs)', '', '']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const benches: Record<string, () => Promise<void>> = { node: benchNode, chromium: benchChromium, workerd: benchWorkerd, deno: benchDeno };
for (const host of HOSTS) await benches[host]!();

const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
for (const row of rows) console.log(`| ${row.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`);
