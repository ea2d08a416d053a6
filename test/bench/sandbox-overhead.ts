// What the sandbox adds: rustfmt through formatbox's bubblewrap sandbox (the real adapter: bwrap,
// pids cgroup, config file in the tmpfs) against the same rustfmt binary spawned directly with the
// same arguments and input, on the same files. Runs alternate (sandboxed, direct, sandboxed, …) so
// both see the same machine load. Prints median and p95 of each, and of the per-file difference.
//
//   node --import tsx test/bench/sandbox-overhead.ts [--rounds N]
//
// Files: the Rust corpus of test/sandbox/crates.ts (anyhow and memchr as Debian installs them).
// A second table shows the bare cost of each mode with a trivial command (cat / sed -i), where the
// formatter's own time is ~0: stdin→stdout, and temp-file mode (which adds the in-sandbox supervisor).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { detectSandbox } from '../../src/node/sandbox/index.js';
import { resolveRustfmt } from '../../src/node/sandbox/tools.js';
import { createSubprocessFormatters } from '../../src/node/subprocess.js';
import { commandFormatter } from '../../src/formatters/command.js';
import { recordResult } from './report.js';
import { rustCrates } from '../sandbox/crates.js';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 5;
const crates = rustCrates();
if ('missing' in crates) throw new Error(crates.missing);
const rootOf = (name: string): string => crates.find((c) => c.name === name)!.root;

const sandbox = detectSandbox();
if (sandbox.unavailable) throw new Error(sandbox.unavailable);
const rustfmt = resolveRustfmt();
if ('missing' in rustfmt) throw new Error(rustfmt.missing);
const rustfmtBinary = rustfmt.binary;

interface Sample {
  file: string;
  sandboxed: number;
  direct: number;
}


function direct(args: string[], input: string, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(rustfmtBinary, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out).toString('utf8')) : reject(new Error(`rustfmt exit ${code}`))));
    child.stdin.end(input);
  });
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
};
const fmt = (ms: number) => ms.toFixed(1);

const config = mkdtempSync(join(tmpdir(), 'fb-bench-'));
const samples: Sample[] = [];
try {
  const files: Array<{ project: string; path: string; text: string; configText?: string }> = [];
  for (const { name: project, root, files: paths } of crates) {
    let configText: string | undefined;
    try {
      configText = readFileSync(join(root, 'rustfmt.toml'), 'utf8');
    } catch {
      configText = undefined;
    }
    for (const path of paths) {
      files.push({ project, path, text: readFileSync(join(root, path), 'utf8'), ...(configText ? { configText } : {}) });
    }
  }
  const adapters = new Map(['anyhow', 'memchr'].map((p) => [p, createSubprocessFormatters({ sandbox, root: rootOf(p) }).adapters.find((a) => a.name === 'rustfmt')!]));

  // Warm-up: page cache for rustfmt and its libraries, and the adapter's version probe.
  for (const file of files.slice(0, 3)) {
    await adapters.get(file.project)!.format({ path: file.path, language: 'rust', text: file.text, settings: { edition: '2021' } });
    await direct(['--emit', 'stdout', '--edition', '2021'], file.text, '/');
  }

  for (let round = 0; round < rounds; round++) {
    for (const file of files) {
      const settings = { edition: '2021', ...(file.configText ? { configText: file.configText } : {}) };
      const configPath = join(config, 'rustfmt.toml');
      writeFileSync(configPath, file.configText ?? '');
      const args = ['--emit', 'stdout', '--color', 'never', '--edition', '2021', '--config-path', configPath];
      const order = round % 2 === 0 ? ['sandboxed', 'direct'] : ['direct', 'sandboxed'];
      const times: Record<string, number> = {};
      let outputs: Record<string, string> = {};
      for (const which of order) {
        const started = performance.now();
        if (which === 'sandboxed') {
          const result = await adapters.get(file.project)!.format({ path: file.path, language: 'rust', text: file.text, settings });
          if (result.kind !== 'ok') throw new Error(`${file.path}: ${JSON.stringify(result)}`);
          outputs = { ...outputs, sandboxed: result.text };
        } else {
          outputs = { ...outputs, direct: await direct(args, file.text, '/') };
        }
        times[which] = performance.now() - started;
      }
      if (outputs.sandboxed !== outputs.direct) throw new Error(`${file.project}/${file.path}: outputs differ`);
      samples.push({ file: `${file.project}/${file.path}`, sandboxed: times.sandboxed!, direct: times.direct! });
    }
  }
} finally {
  rmSync(config, { recursive: true, force: true });
}

const sandboxed = samples.map((s) => s.sandboxed);
const directs = samples.map((s) => s.direct);
const added = samples.map((s) => s.sandboxed - s.direct);
console.log(`rustfmt ${rustfmt.binary}`);
console.log(`sandbox: ${sandbox.describe()}`);
console.log(`${samples.length} runs each (${samples.length / rounds} files x ${rounds} rounds, alternating), outputs identical\n`);
console.log('| rustfmt | median ms | p95 ms |');
console.log('|---|---|---|');
console.log(`| direct (spawn, same args) | ${fmt(quantile(directs, 0.5))} | ${fmt(quantile(directs, 0.95))} |`);
console.log(`| through the bwrap sandbox | ${fmt(quantile(sandboxed, 0.5))} | ${fmt(quantile(sandboxed, 0.95))} |`);
console.log(`| added by the sandbox (per-file difference) | ${fmt(quantile(added, 0.5))} | ${fmt(quantile(added, 0.95))} |`);
console.log(`\nload average at the end: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} (${(await import('node:os')).cpus().length} CPUs)`);
const goal = quantile(added, 0.5) <= 30;
console.log(`\ngoal (sandbox adds <= 30 ms, median): ${goal ? 'met' : 'NOT met'}`);
recordResult({ group: 'sandbox', name: 'rustfmt through bwrap, per file', value: quantile(sandboxed, 0.5), unit: 'ms', anchor: 'rustfmt run directly', anchorValue: quantile(directs, 0.5), goal: 'adds ≤ 30 ms', met: goal, note: `adds ${fmt(quantile(added, 0.5))} ms` });

// Bare cost per mode: a trivial "formatter", so the time is the sandbox's (and the spawn's).
const text = readFileSync(join(rootOf('anyhow'), 'src/lib.rs'), 'utf8');
const cat = commandFormatter({ name: 'cat', languages: ['rust'], argv: ['/bin/cat'] }, { sandbox });
const sed = commandFormatter({ name: 'sed', languages: ['rust'], argv: ['/bin/sed', '-i', 's/^$//', '{file}'] }, { sandbox });
const spawnCat = () => new Promise<void>((resolve) => {
  const child = spawn('/bin/cat', [], { stdio: ['pipe', 'pipe', 'ignore'] });
  child.stdout.resume();
  child.on('close', () => resolve());
  child.stdin.end(text);
});
const bare: Record<string, number[]> = { 'cat, spawned directly': [], 'cat through the sandbox (stdin mode)': [], 'sed -i {file} through the sandbox (temp-file mode)': [] };
for (let i = 0; i < rounds * 10; i++) {
  let started = performance.now();
  await spawnCat();
  bare['cat, spawned directly']!.push(performance.now() - started);
  started = performance.now();
  const a = await cat.format({ path: 'lib.rs', language: 'rust', text, settings: {} });
  bare['cat through the sandbox (stdin mode)']!.push(performance.now() - started);
  started = performance.now();
  const b = await sed.format({ path: 'lib.rs', language: 'rust', text, settings: {} });
  bare['sed -i {file} through the sandbox (temp-file mode)']!.push(performance.now() - started);
  if (a.kind !== 'ok' || b.kind !== 'ok' || a.text !== text || b.text !== text) throw new Error('bare run failed');
}
console.log(`\n| bare cost (${rounds * 10} runs) | median ms | p95 ms |`);
console.log('|---|---|---|');
for (const [name, values] of Object.entries(bare)) console.log(`| ${name} | ${fmt(quantile(values, 0.5))} | ${fmt(quantile(values, 0.95))} |`);
