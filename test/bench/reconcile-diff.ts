/**
 * Benchmarks for the reconcile part (not a test; prints figures):
 *   node --import tsx test/bench/reconcile-diff.ts
 * 1. unifiedDiff vs jsdiff's createTwoFilesPatch on real files against their Prettier/Ruff output.
 * 2. Receipt overhead: afterEdit (format + reconcile + note + sha256) vs the bare format call, warm,
 *    for a one-line edit in an already formatted file.
 */
import { readFileSync } from 'node:fs';
import { createTwoFilesPatch } from 'diff';
import { unifiedDiff, applyUnifiedDiff } from '../../src/core/diff.js';
import { afterEdit } from '../../src/reconcile/index.js';
import { formatWith } from '../reconcile/real-formatters.js';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function time(fn: () => unknown | Promise<unknown>, runs: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}

const prettier = formatWith('prettier');
const ruff = formatWith('ruff');
const dom = readFileSync('node_modules/typescript/lib/lib.dom.d.ts', 'utf8').split('\n');
/** The first `count` lines of lib.dom.d.ts, cut after a top-level closing brace so it parses. */
const head = (count: number): string => dom.slice(0, dom.findIndex((l, i) => i >= count && l === '}') + 1).join('\n') + '\n';
const ts1k = head(1000);
const ts10k = head(10000);
const py = readFileSync('/usr/lib/python3.11/argparse.py', 'utf8');

console.log('| file | changed lines | formatbox unifiedDiff ms | jsdiff ms |');
console.log('|---|---|---|---|');
for (const [name, text, format, jsdiffToo] of [
  ['1k-line TS (lib.dom.d.ts head) → Prettier', ts1k, prettier, true],
  ['10k-line TS (lib.dom.d.ts head) → Prettier', ts10k, prettier, false],
  [`${py.split('\n').length}-line Python (argparse.py) → Ruff`, py, ruff, true],
] as const) {
  const formatted = (await format('x.' + (name.includes('Python') ? 'py' : 'ts'), text)).content;
  const diff = unifiedDiff(text, formatted);
  if (applyUnifiedDiff(text, diff) !== formatted) throw new Error('diff does not apply');
  const changed = diff.split('\n').filter((l) => /^[-+](?![-+]{2} )/.test(l)).length;
  const ours = await time(() => unifiedDiff(text, formatted), 5);
  const theirs = jsdiffToo ? (await time(() => createTwoFilesPatch('a', 'b', text, formatted), 3)).toFixed(0) : 'not run (≈ a minute, see DEPENDENCY-NOTES)';
  console.log(`| ${name} | ${changed} | ${ours.toFixed(1)} | ${theirs} |`);
}

// Receipt overhead, warm.
const formattedTs = (await prettier('a.ts', ts1k)).content;
const lines = formattedTs.split('\n');
const target = lines.findIndex((l, i) => i > 500 && /^\s+\w+: \w+;$/.test(l) && formattedTs.split(l).length === 2);
const oldText = lines[target] as string;
const input = { oldText, newText: oldText.replace(/: /, ':').replace(/;$/, '') };
const written = formattedTs.replace(oldText, input.newText);
/** Bare format vs full receipt, interleaved so machine load hits both alike. */
async function pair(bareFn: () => Promise<unknown>, receiptFn: () => Promise<unknown>, runs: number): Promise<[number, number]> {
  for (let i = 0; i < 5; i++) await receiptFn();
  const bare: number[] = [];
  const full: number[] = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    await bareFn();
    bare.push(performance.now() - t);
    t = performance.now();
    await receiptFn();
    full.push(performance.now() - t);
  }
  return [median(bare), median(full)];
}
const [bare, receipt] = await pair(() => prettier('a.ts', written), () => afterEdit({ format: prettier }, { path: 'a.ts', prior: formattedTs, input }), 40);
console.log(`\nwarm receipt vs bare Prettier call, one-line edit in a formatted ${lines.length}-line .ts: bare ${bare.toFixed(1)} ms, receipt ${receipt.toFixed(1)} ms, ratio ${(receipt / bare).toFixed(2)}`);
const biome = formatWith('biome');
const formattedB = (await biome('a.ts', ts1k)).content;
const lb = formattedB.split('\n');
const tb = lb.findIndex((l, i) => i > 500 && /^\s+\w+: \w+;$/.test(l) && formattedB.split(l).length === 2);
const inputB = { oldText: lb[tb] as string, newText: (lb[tb] as string).replace(/: /, ':') };
const writtenB = formattedB.replace(inputB.oldText, inputB.newText);
const [bareB, receiptB] = await pair(() => biome('a.ts', writtenB), () => afterEdit({ format: biome }, { path: 'a.ts', prior: formattedB, input: inputB }), 40);
console.log(`warm receipt vs bare Biome call, same edit shape: bare ${bareB.toFixed(1)} ms, receipt ${receiptB.toFixed(1)} ms, ratio ${(receiptB / bareB).toFixed(2)}`);
// The receipt's own cost, without formatter noise: afterEdit with a format stub that returns F at once.
const outcome = await biome('a.ts', writtenB);
const stub = async () => outcome;
const own = await time(() => afterEdit({ format: stub }, { path: 'a.ts', prior: formattedB, input: inputB }), 50);
console.log(`receipt work alone (apply, diff, reconcile, verify, note, sha256) on that ${lb.length}-line file: ${own.toFixed(2)} ms`);
process.exit(0);
