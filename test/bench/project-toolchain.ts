// The project's own Prettier in the OS sandbox (untrusted mode, projectCode: 'sandbox'), on a real
// Tailwind v3 project (prettier-plugin-tailwindcss, packages from the npm registry, cached per user):
// - a warm sandboxed edit against the same edit with in-process Prettier (trusted mode: the same
//   project Prettier, config and plugin in formatbox's worker), alternating (goal ≤ 1.5×);
// - the first use: a fresh worker's first file, start included (goal ≤ 1 s), beside the project's
//   own `prettier --check` of one file, and the same for a project whose only code is its config;
// - project-wide: `formatTree` check (what `formatbox format --check` runs) against the project's
//   own `prettier --check` with the plugin, files/s (goal ≥ 1.5×), with one thread (and sandboxed
//   worker) per core.
//
//   node --import tsx test/bench/project-toolchain.ts [--rounds N] [--files N]
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createRuntime, formatTree } from '../../src/node/index.js';
import { stopProjectToolchains } from '../../src/node/project-toolchain/index.js';
import { installedPackages, projectWith } from '../sandbox/npm-projects.js';
import { recordResult } from './report.js';

const option = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) || fallback : fallback;
};
const rounds = option('--rounds', 20);
const fileCount = option('--files', 120);

const TAILWIND_V3 = { prettier: '3.6.2', 'prettier-plugin-tailwindcss': '0.6.14', tailwindcss: '3.4.17' };
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const fmt = (ms: number): string => ms.toFixed(1);

function component(index: number): string {
  return `import { useState } from "react";\nexport function Item${index}({ title }) {\n  const [open, setOpen] = useState(false)\n  return <li className="text-sm p-2 flex hover:bg-gray-100 items-center mt-${index % 8}" onClick={() => setOpen(!open)}>\n<span className='font-medium truncate text-gray-900'>{title}</span>{open && <p className="text-xs block text-gray-500">open</p>}</li>\n}\n`;
}

const files: Record<string, string> = {
  '.prettierrc': '{ "plugins": ["prettier-plugin-tailwindcss"] }\n',
  'tailwind.config.js': "module.exports = { content: ['./src/**/*.jsx'], theme: { extend: {} }, plugins: [] };\n",
  'src/App.jsx': 'export default function App() {\n  return <main className="p-4 flex">hi</main>;\n}\n',
};
for (let i = 0; i < fileCount; i++) files[`src/items/Item${i}.jsx`] = component(i);

const packages = installedPackages('tailwind-v3', TAILWIND_V3);
const project = projectWith(packages, files);
const root = project.root;
const prettierCli = (args: string[]): void => {
  try {
    execFileSync(process.execPath, [join(root, 'node_modules/prettier/bin/prettier.cjs'), ...args], { cwd: root, stdio: 'ignore', timeout: 600_000 });
  } catch {
    // `--check` exits 1 when files would change: that is the measurement, not a failure.
  }
};

try {
  // 1. Warm edits: sandboxed vs in-process (trusted), alternating.
  // Tailwind's first file takes seconds on a loaded machine: the warm-up is not what is measured.
  const limits = { timeoutMs: 180_000 };
  const sandboxed = createRuntime({ root, limits });
  const inProcess = createRuntime({ root, trust: 'trusted', limits });
  const classes = ['p-4 flex', 'flex p-4 m-1', 'm-2 flex p-4 text-white', 'p-4 flex'];
  let current = 'p-4 flex';
  const edit = async (runtime: typeof sandboxed): Promise<number> => {
    const next = classes[(classes.indexOf(current) + 1) % classes.length]!;
    const started = performance.now();
    const receipt = await runtime.edit({ path: 'src/App.jsx', oldText: `className="${current}"`, newText: `className="${next}"` });
    const ms = performance.now() - started;
    if (receipt.status !== 'formatted' && receipt.status !== 'unchanged') throw new Error(receipt.line);
    current = /className="([^"]*)"/.exec(receipt.content)![1]!;
    return ms;
  };
  for (let i = 0; i < 4; i++) {
    await edit(sandboxed);
    await edit(inProcess);
  }
  const warmSandbox: number[] = [];
  const warmInProcess: number[] = [];
  for (let i = 0; i < rounds; i++) {
    warmSandbox.push(await edit(sandboxed));
    warmInProcess.push(await edit(inProcess));
  }
  await sandboxed.close();
  await inProcess.close();
  const warmRatio = median(warmSandbox) / median(warmInProcess);
  console.log(`warm edit: sandboxed ${fmt(median(warmSandbox))} ms, in-process ${fmt(median(warmInProcess))} ms (median of ${rounds}): ${warmRatio.toFixed(2)}×`);
  recordResult({ group: 'project-toolchain', name: 'warm sandboxed edit (Tailwind v3)', value: median(warmSandbox), unit: 'ms', anchor: 'in-process Prettier (trusted mode), same edit', anchorValue: median(warmInProcess), goal: '≤ 1.5' });

  // 2. First use: a fresh worker (stopped before each run), start included.
  const firstUse = async (path: string): Promise<number> => {
    stopProjectToolchains();
    const runtime = createRuntime({ root });
    const started = performance.now();
    const receipt = await runtime.format({ path });
    const ms = performance.now() - started;
    await runtime.close();
    if (receipt.formatter?.via !== 'sandbox') throw new Error(receipt.line);
    return ms;
  };
  const cliOnce = (path: string): number => {
    const started = performance.now();
    prettierCli(['--check', path]);
    return performance.now() - started;
  };
  const firstRuns = Math.max(3, Math.round(rounds / 5));
  const firsts: number[] = [];
  const clis: number[] = [];
  for (let i = 0; i < firstRuns; i++) {
    firsts.push(await firstUse('src/App.jsx'));
    clis.push(cliOnce('src/App.jsx'));
  }
  console.log(`first use (Tailwind v3): ${fmt(median(firsts))} ms; the project's prettier --check of one file: ${fmt(median(clis))} ms`);
  recordResult({ group: 'project-toolchain', name: 'first use, sandboxed worker start + first file (Tailwind v3)', value: median(firsts), unit: 'ms', anchor: "the project's prettier --check of one file", anchorValue: median(clis), goal: '≤ 1000 ms', met: median(firsts) <= 1000 });
  // The same with the plugin off: the part of the start that is the sandbox, Node and Prettier.
  writeFileSync(join(root, 'prettier.config.cjs'), 'module.exports = { semi: true };\n');
  rmSync(join(root, '.prettierrc'));
  const plain: number[] = [];
  for (let i = 0; i < firstRuns; i++) plain.push(await firstUse('src/App.jsx'));
  console.log(`first use (prettier.config.cjs, no plugin): ${fmt(median(plain))} ms`);
  recordResult({ group: 'project-toolchain', name: 'first use, sandboxed worker start + first file (prettier.config.cjs, no plugin)', value: median(plain), unit: 'ms', goal: '≤ 1000 ms', met: median(plain) <= 1000 });
  writeFileSync(join(root, '.prettierrc'), files['.prettierrc']!);
  rmSync(join(root, 'prettier.config.cjs'));

  // 3. Project-wide check: formatTree (fresh worker, cache off) vs the project's prettier --check.
  const count = Object.keys(files).filter((p) => p.startsWith('src/')).length;
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let i = 0; i < 3; i++) {
    stopProjectToolchains();
    let started = performance.now();
    let seen = 0;
    for await (const outcome of formatTree({ root, paths: [join(root, 'src')], check: true, cache: false, threads: availableParallelism() })) {
      if (outcome.kind !== 'error' && outcome.receipt.formatter && outcome.receipt.formatter.via !== 'sandbox') throw new Error(outcome.receipt.line);
      seen++;
    }
    ours.push(performance.now() - started);
    if (seen !== count) throw new Error(`formatTree saw ${seen} files of ${count}`);
    started = performance.now();
    prettierCli(['--check', 'src']);
    theirs.push(performance.now() - started);
  }
  const oursRate = count / (median(ours) / 1000);
  const theirsRate = count / (median(theirs) / 1000);
  console.log(`project-wide check, ${count} files: formatbox ${oursRate.toFixed(1)} files/s, prettier --check ${theirsRate.toFixed(1)} files/s: ${(oursRate / theirsRate).toFixed(2)}×`);
  recordResult({ group: 'project-toolchain', name: `project-wide check, ${count} Tailwind v3 files`, value: oursRate, unit: 'files/s', anchor: "the project's prettier --check with the plugin", anchorValue: theirsRate, ratio: oursRate / theirsRate, goal: '≥ 1.5' });
} finally {
  stopProjectToolchains();
  project.cleanup();
}
