/**
 * The cost of formatting with the version a project pins instead of the shipped one:
 * - first use: a new runtime's first format when the pinned version is not yet in the store (its
 *   download, verification, unpacking and first load), against the shipped version's first format;
 * - first use from the store: the same with the entry already stored (another root, a later process);
 * - warm: the median format of one file once both are loaded.
 * Prettier 3.3.3 (standalone in its own worker) and Biome 2.5.14 (wasm-nodejs in its own worker).
 *
 *   node --import tsx test/bench/pinned-versions.ts [runs]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRuntime, type RuntimeOptions } from '../../src/node/index.js';
import { createPinnedFormatters } from '../../src/node/pinned-formatters.js';
import { createFormatterStore } from '../../src/node/formatter-store/store.js';
import { writeTree } from '../write-tree.js';
import { recordResult } from './report.js';

const runs = Number(process.argv[2] ?? 30);
const repo = fileURLToPath(new URL('../..', import.meta.url));
const SAMPLE = readFileSync(join(repo, 'node_modules/rxjs/src/internal/Observable.ts'), 'utf8');

const CASES: { formatter: string; version: string; files: Record<string, string> }[] = [
  { formatter: 'prettier', version: '3.3.3', files: { '.prettierrc': '{}\n', 'package.json': JSON.stringify({ devDependencies: { prettier: '3.3.3' } }) } },
  { formatter: 'biome', version: '2.5.14', files: { 'biome.json': '{}\n', 'package.json': JSON.stringify({ devDependencies: { '@biomejs/biome': '2.5.14' } }) } },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function firstAndWarm(root: string, options: Partial<RuntimeOptions>): Promise<{ first: number; warm: number; version: string | undefined }> {
  const runtime = createRuntime({ root, ...options });
  try {
    let started = performance.now();
    const receipt = await runtime.formatText({ path: 'a.ts', text: SAMPLE });
    const first = performance.now() - started;
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      started = performance.now();
      await runtime.formatText({ path: 'a.ts', text: SAMPLE });
      times.push(performance.now() - started);
    }
    return { first, warm: median(times), version: receipt.formatter?.version };
  } finally {
    await runtime.close();
  }
}

const base = mkdtempSync(join(tmpdir(), 'fb-bench-pinned-'));
try {
  for (const { formatter, version, files } of CASES) {
    const root = join(base, `${formatter}-project`);
    writeTree(root, { '.git/': '', ...files });
    const shipped = await firstAndWarm(root, { pinned: false });
    const storeDir = join(base, `${formatter}-store`);
    const cold = createPinnedFormatters({ store: createFormatterStore({ dir: storeDir }), timeoutMs: 30_000, waitMs: 300_000 });
    const fetched = await firstAndWarm(root, { pinned: cold });
    await cold.close();
    const stored = createPinnedFormatters({ store: createFormatterStore({ dir: storeDir }), timeoutMs: 30_000 });
    const fromStore = await firstAndWarm(root, { pinned: stored });
    await stored.close();
    if (fetched.version !== version || fromStore.version !== version) throw new Error(`${formatter}: ran ${fetched.version}/${fromStore.version}, not ${version}`);
    console.log(`${formatter} ${version} vs shipped ${shipped.version}: first use ${fetched.first.toFixed(0)} ms (download included), from the store ${fromStore.first.toFixed(0)} ms, shipped first ${shipped.first.toFixed(0)} ms; warm ${fromStore.warm.toFixed(2)} ms vs ${shipped.warm.toFixed(2)} ms`);
    const anchor = `shipped ${formatter} ${shipped.version}`;
    recordResult({ group: 'pinned-versions', name: `${formatter} ${version}: first format, not yet stored (download included)`, value: fetched.first, unit: 'ms', anchor: `${anchor}, first format`, anchorValue: shipped.first });
    recordResult({ group: 'pinned-versions', name: `${formatter} ${version}: first format, from the store`, value: fromStore.first, unit: 'ms', anchor: `${anchor}, first format`, anchorValue: shipped.first });
    recordResult({ group: 'pinned-versions', name: `${formatter} ${version}: warm format (median of ${runs}, rxjs Observable.ts)`, value: fromStore.warm, unit: 'ms', anchor: `${anchor}, warm`, anchorValue: shipped.warm });
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
