/**
 * What replacing files safely costs, apart from any formatter: the same new bytes written over the
 * same 2,000 files in four ways, each on a fresh copy of the tree, in its own process (wall time and
 * the process's CPU, its thread pool included):
 * - in place: open with O_TRUNC, write, close (what `biome format --write` does to a file it fixes);
 * - atomic: a temp file beside the file, written, renamed over it (no flush);
 * - formatbox's batch: the atomic write plus the compare-and-swap read of the file before its rename,
 *   with one syncfs before the renames and one after (native-biome-write.ts);
 * - per file durable: the atomic write with an fdatasync of each temp file (eight in flight) and an
 *   fsync of each directory, as a single edit's write flushes.
 * The old bytes are the JS/TS files of this repository's node_modules (nobody here wrote them); the
 * new ones are the same files with a line added at the end, so every file is rewritten.
 *
 *   node --import tsx test/bench/write-floor.ts [--files 2000] [--rounds 3]
 * The in-place run is the anchor; each other way prints its ratio to it, per round.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, constants, cpSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { fdatasync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { nodeModulesSources } from './corpus.js';
import { recordResult } from './report.js';

type Way = 'in-place' | 'atomic' | 'batch' | 'per-file';
const WAYS: readonly Way[] = ['in-place', 'atomic', 'batch', 'per-file'];

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const index = args.indexOf(name);
  return index >= 0 ? Number(args[index + 1]) : fallback;
};

if (args[0] === '--child') {
  const [, way, root, list] = args as [string, Way, string, string];
  const files = readFileSync(list, 'utf8').split('\n').filter(Boolean);
  const started = performance.now();
  const cpu = process.cpuUsage();
  await replaceAll(way, root, files);
  const used = process.cpuUsage(cpu);
  console.log(JSON.stringify({ wallS: (performance.now() - started) / 1000, cpuS: (used.user + used.system) / 1e6 }));
  process.exit(0);
}

const REPO = resolve('.');
const FILES = option('--files', 2000);
const ROUNDS = option('--rounds', 3);
const base = mkdtempSync(join(tmpdir(), 'fb-bench-write-floor-'));
try {
  const pool = nodeModulesSources(join(REPO, 'node_modules'));
  const step = pool.length / FILES;
  const files = Array.from({ length: Math.min(FILES, pool.length) }, (_, i) => pool[Math.floor(i * step)]!.replace(/(^|\/)node_modules\//g, '$1nm/'));
  const tree = join(base, 'tree');
  files.forEach((file, i) => {
    mkdirSync(dirname(join(tree, file)), { recursive: true });
    cpSync(join(REPO, 'node_modules', pool[Math.floor(i * step)]!), join(tree, file));
  });
  const list = join(base, 'files.txt');
  writeFileSync(list, files.join('\n'));
  const directories = new Set(files.map((file) => dirname(file))).size;
  console.log(`write floor bench: ${files.length} files in ${directories} directories, ${ROUNDS} rounds; load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const totals = new Map<Way, { wallS: number; cpuS: number }[]>(WAYS.map((way) => [way, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const way of WAYS) {
      const copy = join(base, `copy-${way}`);
      rmSync(copy, { recursive: true, force: true });
      cpSync(tree, copy, { recursive: true });
      spawnSync('sync', ['-f', copy]); // the copy's own writes are not the next run's to flush
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'test/bench/write-floor.ts', '--child', way, copy, list], { encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`${way}: ${run.stderr}`);
      totals.get(way)!.push(JSON.parse(run.stdout.trim().split('\n').pop()!));
      rmSync(copy, { recursive: true, force: true });
      spawnSync('sync', ['-f', base]); // nor its removal
    }
    const anchor = totals.get('in-place')![round]!;
    console.log(`  round ${round + 1}: ` + WAYS.map((way) => {
      const m = totals.get(way)![round]!;
      return `${way} ${m.wallS.toFixed(3)} s (CPU ${m.cpuS.toFixed(3)} s${way === 'in-place' ? '' : `, ${(m.cpuS / anchor.cpuS).toFixed(2)}× CPU`})`;
    }).join(' · '));
  }
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const anchorCpu = median(totals.get('in-place')!.map((m) => m.cpuS));
  for (const way of WAYS.slice(1)) {
    const cpu = median(totals.get(way)!.map((m) => m.cpuS));
    const extraMs = ((cpu - anchorCpu) / files.length) * 1000;
    console.log(`${way.padEnd(9)} median CPU ${cpu.toFixed(3)} s, ${(cpu / anchorCpu).toFixed(2)}× in place; ${extraMs.toFixed(3)} ms more a file`);
    recordResult({ group: 'write-floor', name: `${files.length} files replaced, ${way}: CPU`, value: cpu, unit: 's', anchor: 'in place (O_TRUNC, as biome --write)', anchorValue: anchorCpu, note: `median of ${ROUNDS}; ${directories} directories` });
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}

/** The new bytes of a file: its old bytes and one more line, so that every file changes. */
function newBytes(old: Buffer): Buffer {
  return Buffer.concat([old, Buffer.from('\n// formatted\n')]);
}

async function replaceAll(way: Way, root: string, files: readonly string[]): Promise<void> {
  const olds = files.map((file) => readFileSync(join(root, file)));
  let n = 0;
  const temp = (abs: string): string => `${dirname(abs)}/.${abs.slice(dirname(abs).length + 1)}.${process.pid}-${n++}.tmp`;
  if (way === 'in-place') {
    files.forEach((file, i) => {
      const fd = openSync(join(root, file), constants.O_WRONLY | constants.O_TRUNC);
      writeSync(fd, newBytes(olds[i]!));
      closeSync(fd);
    });
    return;
  }
  if (way === 'atomic') {
    files.forEach((file, i) => {
      const abs = join(root, file);
      const t = temp(abs);
      const fd = openSync(t, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
      writeSync(fd, newBytes(olds[i]!));
      closeSync(fd);
      renameSync(t, abs);
    });
    return;
  }
  if (way === 'batch') {
    const temps = files.map((file, i) => {
      const abs = join(root, file);
      const t = temp(abs);
      const fd = openSync(t, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
      writeSync(fd, newBytes(olds[i]!));
      closeSync(fd);
      return t;
    });
    spawnSync('sync', ['-f', root]);
    const scratch = Buffer.allocUnsafe(1 << 20);
    files.forEach((file, i) => {
      const abs = join(root, file);
      const fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW);
      const read = readSync(fd, scratch, 0, scratch.length, 0);
      closeSync(fd);
      if (read !== olds[i]!.length || !scratch.subarray(0, read).equals(olds[i]!)) throw new Error(`${file} changed`);
      renameSync(temps[i]!, abs);
    });
    spawnSync('sync', ['-f', root]);
    return;
  }
  // per file durable: eight in flight, each fdatasync in the thread pool, then each directory once.
  const queue = files.map((file, i) => [file, i] as const);
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const abs = join(root, next[0]);
      const t = temp(abs);
      const fd = openSync(t, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
      writeSync(fd, newBytes(olds[next[1]]!));
      await new Promise<void>((done, fail) => fdatasync(fd, (error) => (error ? fail(error) : done())));
      closeSync(fd);
      renameSync(t, abs);
    }
  }));
  for (const dir of new Set(files.map((file) => dirname(join(root, file))))) {
    const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    fsyncSync(fd);
    closeSync(fd);
  }
}
