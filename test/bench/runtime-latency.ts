/**
 * Warm latency of the Node runtime: the median cost of an `edit` receipt (read P, apply, atomic
 * CAS write of W (flushed in the background), format in the worker, reconcile, CAS write of F with fdatasync) against
 * the bare formatter call (the same adapter in the same warm worker, on the same text), for Biome and
 * for Prettier. The file is ~1,000 lines of real TypeScript (rxjs sources), already formatted.
 *
 *   node --import tsx test/bench/runtime-latency.ts [runs=100] [parent dir of the temp project, default os.tmpdir()] [biome,prettier]
 *
 * Each run times the three (bare call, engine alone, runtime edit) in a rotating order, so none
 * always goes first; the ratio is of the medians, and the median of the per-run ratios is printed
 * too (less sensitive to load that changes during the run).
 *
 * F's fdatasync costs what the disk costs (it overlaps the building of the receipt); pass a tmpfs
 * (e.g. /dev/shm) as the second argument to see the runtime's own overhead without them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { createRuntime, createWorkerPool } from '../../src/node/index.js';
import { loadProjectConfig, normaliseUserConfig, selectFormatter } from '../../src/config/index.js';
import { createEngine } from '../../src/engine/engine.js';
import { nodeSha256 } from '../../src/node/hash.js';
import { recordResult } from './report.js';

const RUNS = Number(process.argv[2] ?? 100);
/** Each formatter in its own project: a fast one (Biome) and the common one (Prettier). */
const PROJECTS: Array<{ formatter: string; file: string; text: string }> = [
  { formatter: 'biome', file: 'biome.json', text: '{ "formatter": { "indentStyle": "space", "lineWidth": 100 } }\n' },
  { formatter: 'prettier', file: '.prettierrc', text: '{ "printWidth": 100 }\n' },
];

const require = createRequire(import.meta.url);
const rxjs = join(require.resolve('rxjs/package.json'), '..', 'src', 'internal');
const sources = ['Observable.ts', 'ajax/ajax.ts'].map((f) => readFileSync(join(rxjs, f), 'utf8'));
const corpus = sources.join('\n').replace(/^import .*$/gm, '').replace(/^export \* from .*$/gm, '');

/** Optional third argument: which formatters (`biome`, `prettier`, comma-separated); default both. */
const ONLY = process.argv[4]?.split(',');
for (const project of PROJECTS) if (!ONLY || ONLY.includes(project.formatter)) await measure(project);

async function measure(project: (typeof PROJECTS)[number]): Promise<void> {
const root = mkdtempSync(join(process.argv[3] ?? tmpdir(), 'fb-bench-'));
writeFileSync(join(root, project.file), project.text);
const pool = createWorkerPool({ timeoutMs: 30_000 });
const runtime = createRuntime({ root, pool });
try {
  // Pre-format the corpus so edits land in an already formatted file, as they do in a real project.
  writeFileSync(join(root, 'big.ts'), corpus + '\nconst marker = 1;\n');
  const first = await runtime.format({ path: 'big.ts' });
  const formatted = first.content;
  const lines = formatted.split('\n').length;

  const selection = selectFormatter(loadProjectConfig({ [project.file]: project.text }, { trust: 'untrusted' }), normaliseUserConfig(undefined), 'big.ts');
  if (selection.kind !== 'format') throw new Error(`no formatter selected: ${JSON.stringify(selection)}`);
  const adapters = await pool.adapters();
  const adapter = adapters.find((a) => a.name === project.formatter)!;
  // The engine alone (no file I/O), on the same worker: splits the cost into engine and runtime parts.
  // With the runtime's synchronous SHA-256: WebCrypto's default adds a thread-pool hop (~0.1 ms).
  const engine = createEngine({ formatters: adapters, projectFiles: { [project.file]: project.text }, sha256: nodeSha256 });

  const editMs: number[] = [];
  const bareMs: number[] = [];
  const engineMs: number[] = [];
  const ratios: number[] = [];
  let value = 1;
  for (let i = 0; i < RUNS + 5; i++) {
    const next = value + 1;
    const input = { oldText: `const marker = ${value};`, newText: `const marker=${next}` };
    const prior = readFileSync(join(root, 'big.ts'), 'utf8');
    const written = prior.replace(input.oldText, input.newText);

    const timeBare = async () => {
      const t = performance.now();
      const bare = await adapter.format({ path: 'big.ts', language: selection.language, text: written, settings: selection.settings });
      if (bare.kind !== 'ok') throw new Error(`bare call: ${JSON.stringify(bare)}`);
      return { ms: performance.now() - t, text: bare.text };
    };
    const timeEngine = async () => {
      const t = performance.now();
      await engine.afterEdit({ path: 'big.ts', prior, input, written });
      return performance.now() - t;
    };
    const timeEdit = async () => {
      const t = performance.now();
      const receipt = await runtime.edit({ path: 'big.ts', ...input });
      return { ms: performance.now() - t, receipt };
    };
    // The three in a rotating order, so none always runs first (or right after the edit's background flushes).
    let bare!: { ms: number; text: string };
    let engineTime = 0;
    let edit!: Awaited<ReturnType<typeof timeEdit>>;
    for (let k = 0; k < 3; k++) {
      const which = (i + k) % 3;
      if (which === 0) bare = await timeBare();
      else if (which === 1) engineTime = await timeEngine();
      else edit = await timeEdit();
    }
    if (edit.receipt.status !== 'formatted' || edit.receipt.content !== bare.text) throw new Error(`unexpected receipt: ${edit.receipt.status} ${edit.receipt.line}`);
    value = next;
    if (i >= 5) {
      bareMs.push(bare.ms);
      editMs.push(edit.ms);
      engineMs.push(engineTime);
      ratios.push(edit.ms / bare.ms);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const edit = median(editMs);
  const bare = median(bareMs);
  const engineOnly = median(engineMs);
  console.log(`runtime latency, ${lines}-line TypeScript file (rxjs), ${project.formatter} in one warm worker, ${RUNS} runs, project in ${root}:`);
  console.log(`  bare formatter call (worker round trip): median ${bare.toFixed(1)} ms`);
  console.log(`  engine.afterEdit, no file I/O (prepare, format, restore, reconcile, sha256): median ${engineOnly.toFixed(1)} ms (${(engineOnly / bare).toFixed(3)}× bare)`);
  console.log(`  runtime edit receipt (read, apply, CAS write W, format, reconcile, CAS write F + fdatasync): median ${edit.toFixed(1)} ms`);
  console.log(`  ratio edit/bare: ${(edit / bare).toFixed(3)} (goal ≤ 1.15); edit/engine: ${(edit / engineOnly).toFixed(3)}; median of the ${RUNS} paired ratios: ${median(ratios).toFixed(3)}`);
  const where = process.argv[3] ?? `${tmpdir()} (disk)`;
  recordResult({ group: 'per-edit', name: `warm: runtime edit receipt, ${project.formatter}, ${lines}-line TS, project on ${where}`, value: edit, unit: 'ms', anchor: 'bare formatter call', anchorValue: bare, goal: '≤ 1.15' });
} finally {
  await runtime.close();
  await pool.close();
  rmSync(root, { recursive: true, force: true });
}
}
