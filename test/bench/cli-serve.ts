/**
 * What a non-JS harness pays per edit, three ways, on the same edits of a ~1,000-line TypeScript file
 * in a Biome project:
 *   (a) anchor: today's hook, the native Biome CLI run as a process per edit (`biome format --write`);
 *   (b) `formatbox apply --json` as a process per edit (cold: Node start, runtime, wasm compile);
 *   (c) `formatbox serve`, one process for all edits (warm), JSON lines over a pipe;
 *   (d) `formatbox hook claude-code` as a process per edit, handing the edit to `serve --socket`.
 * Prints medians, ratios against (a), and the serve process's resident memory once warm.
 *
 *   node --import tsx test/bench/cli-serve.ts [edits=20]
 * Uses the built bin (dist/cli.js); builds it first when missing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { recordResult } from './report.js';

const EDITS = Number(process.argv[2] ?? 20);
const REPO = resolve('.');
const CLI = join(REPO, 'dist/cli.js');
const BIOME = join(REPO, 'node_modules/.bin/biome');
if (!existsSync(CLI)) spawnSync(process.execPath, ['build.mjs'], { cwd: REPO, stdio: 'inherit' });

const require = createRequire(import.meta.url);
const rxjs = join(require.resolve('rxjs/package.json'), '..', 'src', 'internal');
const corpus = ['Observable.ts', 'ajax/ajax.ts'].map((f) => readFileSync(join(rxjs, f), 'utf8')).join('\n').replace(/^import .*$/gm, '').replace(/^export \* from .*$/gm, '');
const env = { ...process.env, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(tmpdir(), 'fb-bench-no-config') };

function project(): string {
  const root = mkdtempSync(join(tmpdir(), 'fb-bench-cli-'));
  writeFileSync(join(root, 'biome.json'), '{ "formatter": { "indentStyle": "space" } }\n');
  writeFileSync(join(root, 'big.ts'), `${corpus}\nconst marker = 0;\n`);
  spawnSync(BIOME, ['format', '--write', 'big.ts'], { cwd: root });
  return root;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const editFor = (i: number) => ({ oldText: `const marker = ${i};`, newText: `const marker=${i + 1}` });

// (a) The native Biome CLI as a process per edit, after the edit is written.
const rootA = project();
const biomeMs: number[] = [];
for (let i = 0; i < EDITS; i++) {
  const file = join(rootA, 'big.ts');
  const { oldText, newText } = editFor(i);
  writeFileSync(file, readFileSync(file, 'utf8').replace(oldText, newText));
  const t = performance.now();
  const run = spawnSync(BIOME, ['format', '--write', 'big.ts'], { cwd: rootA });
  biomeMs.push(performance.now() - t);
  if (run.status !== 0) throw new Error(`biome: ${run.stderr}`);
}

// (b) formatbox apply --json, a process per edit.
const rootB = project();
const applyMs: number[] = [];
for (let i = 0; i < EDITS; i++) {
  const t = performance.now();
  const run = spawnSync(process.execPath, [CLI, 'apply', '--json', '--root', rootB], { input: JSON.stringify({ path: 'big.ts', input: editFor(i) }), encoding: 'utf8', env });
  applyMs.push(performance.now() - t);
  if (run.status !== 0 || JSON.parse(run.stdout).status !== 'formatted') throw new Error(`apply: ${run.stdout} ${run.stderr}`);
}

// (c) formatbox serve: one process, JSON lines.
const rootC = project();
const child = spawn(process.execPath, [CLI, 'serve', '--root', rootC], { env, stdio: ['pipe', 'pipe', 'inherit'] });
const replies = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
const call = async (request: unknown): Promise<{ status?: string }> => {
  child.stdin!.write(JSON.stringify(request) + '\n');
  const next = await replies.next();
  return JSON.parse(next.value as string);
};
const coldStart = performance.now();
await call({ path: 'big.ts', input: editFor(0) });
const firstServeMs = performance.now() - coldStart;
const serveMs: number[] = [];
for (let i = 1; i <= EDITS; i++) {
  const t = performance.now();
  const reply = await call({ path: 'big.ts', input: editFor(i) });
  serveMs.push(performance.now() - t);
  if (reply.status !== 'formatted') throw new Error(`serve: ${JSON.stringify(reply)}`);
}
const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
// The format worker is a thread of the same process, so VmRSS counts the wasm instances too.
child.stdin!.end();
await new Promise((done) => child.on('close', done));

// (d) hook claude-code as a process per edit, handing the edit to a warm `serve --socket`.
const rootD = project();
// A private (0700) directory: formatbox refuses a socket in the shared tmp dir.
const socketPath = join(mkdtempSync(join(tmpdir(), 'fb-sock-')), 's.sock');
const server = spawn(process.execPath, [CLI, 'serve', '--socket', socketPath], { env, stdio: ['ignore', 'ignore', 'pipe'] });
await new Promise<void>((ready) => server.stderr!.on('data', (chunk: Buffer) => chunk.toString().includes('serving on') && ready()));
const hookMs: number[] = [];
for (let i = 0; i <= EDITS; i++) {
  const file = join(rootD, 'big.ts');
  const { oldText, newText } = editFor(i);
  writeFileSync(file, readFileSync(file, 'utf8').replace(oldText, newText));
  const event = { hook_event_name: 'PostToolUse', cwd: rootD, tool_name: 'Edit', tool_input: { file_path: file, old_string: oldText, new_string: newText } };
  const t = performance.now();
  const run = spawnSync(process.execPath, [CLI, 'hook', 'claude-code', '--socket', socketPath], { input: JSON.stringify(event), encoding: 'utf8', env });
  if (i > 0) hookMs.push(performance.now() - t); // The first one warms the server.
  if (run.status !== 0 || !run.stdout.includes('formatted')) throw new Error(`hook: ${run.stdout} ${run.stderr}`);
}
server.kill('SIGTERM');
await new Promise((done) => server.on('close', done));
for (const root of [rootA, rootB, rootC, rootD]) rmSync(root, { recursive: true, force: true });

const a = median(biomeMs);
const b = median(applyMs);
const c = median(serveMs);
console.log(`per-edit cost, ${corpus.split('\n').length}-line TypeScript file, Biome project, ${EDITS} edits each (medians):`);
console.log(`  (a) native biome CLI process per edit (anchor):      ${a.toFixed(1)} ms   (formats only: no receipt)`);
console.log(`  (b) formatbox apply --json, process per edit (cold): ${b.toFixed(1)} ms   ${(b / a).toFixed(2)}× (a)`);
console.log(`  (c) formatbox serve, warm, receipt per edit:         ${c.toFixed(1)} ms   ${(c / a).toFixed(2)}× (a)   (first request, cold: ${firstServeMs.toFixed(0)} ms)`);
const d = median(hookMs);
console.log(`  (d) hook claude-code per edit via serve --socket:     ${d.toFixed(1)} ms   ${(d / a).toFixed(2)}× (a)   (Node start and the CLI, no wasm)`);
console.log(`  serve process resident memory when warm (Biome loaded): ${(rssKb / 1024).toFixed(0)} MiB`);

const what = `${corpus.split('\n').length}-line TS, Biome`;
recordResult({ group: 'per-edit', name: `cold: formatbox apply, a process per edit (${what})`, value: b, unit: 'ms', anchor: 'native biome CLI per edit', anchorValue: a });
recordResult({ group: 'per-edit', name: `warm: formatbox serve, receipt per edit (${what})`, value: c, unit: 'ms', anchor: 'native biome CLI per edit', anchorValue: a });
recordResult({ group: 'per-edit', name: `hook process per edit via serve --socket (${what})`, value: d, unit: 'ms', anchor: 'native biome CLI per edit', anchorValue: a });
recordResult({ group: 'memory', name: 'serve, warm with Biome loaded: resident', value: rssKb / 1024, unit: 'MB', anchor: 'budget', anchorValue: 300, goal: '≤ 1' });
