/**
 * Per edit inside opencode and Codex, against `node -e 0` and `.bin/biome format --write` (a
 * process per edit, what a formatter hook costs today) in the same run:
 *   (a) node_modules/.bin/biome format --write, a process per edit (the anchor)
 *   (b) bare node -e 0
 *   (c) the opencode plugin's hooks (tool.execute.before + after) in opencode's own Bun, warm:
 *       what formatbox adds to an opencode edit (no process start)
 *   (d) `formatbox hook codex` per one-file patch, via the warm daemon: what Codex's hook adds
 * The agent CLIs come from the agent cache (.ci/run installs them); (c) is left out without opencode.
 *
 *   node --import tsx test/bench/agent-plugins.ts [edits]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { agentBinPath, OPENCODE_VERSION } from '../agents/agent-cache.js';
import { isolatedEnv } from '../cli/built-cli.js';
import { recordResult } from './report.js';

const EDITS = Number(process.argv[2] ?? 20);
const REPO = resolve('.');
const CLI = join(REPO, 'dist/cli.js');
const PLUGIN = join(REPO, 'dist/opencode-plugin.js');
const BIOME_BIN = join(REPO, 'node_modules/.bin/biome');
const OPENCODE = agentBinPath(`opencode-${OPENCODE_VERSION}`, 'opencode');
if (!existsSync(CLI) || !existsSync(PLUGIN)) throw new Error('run `npm run build` first (dist/cli.js, dist/opencode-plugin.js)');

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? NaN;
const source = (i: number) => `export const a${i} = {b:1,c:'x${i}'}\n`;

function project(): string {
  const root = mkdtempSync(join(tmpdir(), 'fb-bench-agents-'));
  mkdirSync(join(root, '.git'));
  writeFileSync(join(root, 'biome.json'), '{}\n');
  return root;
}

function timed(command: string, args: string[], options: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv }): number {
  const started = performance.now();
  const run = spawnSync(command, args, { ...options, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${run.status}: ${run.stderr}`);
  return performance.now() - started;
}

const roots: string[] = [];
// (a) and (b)
const rootA = project();
roots.push(rootA);
const biomeMs: number[] = [];
const nodeMs: number[] = [];
for (let i = 0; i < EDITS; i++) {
  writeFileSync(join(rootA, 'a.ts'), source(i));
  biomeMs.push(timed(BIOME_BIN, ['format', '--write', 'a.ts'], { cwd: rootA }));
  nodeMs.push(timed(process.execPath, ['-e', '0'], {}));
}

// (c) The plugin in opencode's Bun: one process, EDITS warm edits after two not counted.
let pluginMs: number | undefined;
if (existsSync(OPENCODE)) {
  const rootC = project();
  roots.push(rootC);
  const script = join(rootC, 'bench.mjs');
  writeFileSync(script, `import plugin from ${JSON.stringify(PLUGIN)};
import { writeFileSync } from 'node:fs';
const file = ${JSON.stringify(join(rootC, 'a.ts'))};
const hooks = await plugin.server({ directory: ${JSON.stringify(rootC)} }, {});
const times = [];
for (let i = 0; i < ${EDITS + 2}; i++) {
  writeFileSync(file, 'export const a = 1;\\n');
  const args = { filePath: file, oldString: 'export const a = 1;', newString: "export const a = {b:1,c:'x" + i + "'}" };
  const started = performance.now();
  await hooks['tool.execute.before']({ tool: 'edit', sessionID: 's', callID: 'c' + i }, { args });
  writeFileSync(file, args.newString + '\\n');
  const result = { title: '', output: 'Edit applied successfully.', metadata: {} };
  await hooks['tool.execute.after']({ tool: 'edit', sessionID: 's', callID: 'c' + i, args }, result);
  if (!result.output.includes('formatbox: formatted')) throw new Error(result.output);
  times.push(performance.now() - started);
}
await hooks.dispose();
console.log(JSON.stringify(times.slice(2)));
process.exit(0);
`);
  const run = spawnSync(OPENCODE, [script], { cwd: rootC, env: { ...process.env, BUN_BE_BUN: '1' }, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`the plugin bench failed: ${run.stderr}`);
  pluginMs = median(JSON.parse(run.stdout.trim().split('\n').pop() ?? '[]') as number[]);
}

// (d) formatbox hook codex through the daemon (started by a first call, not counted).
const rootD = project();
roots.push(rootD);
const { env, runtimeDir } = isolatedEnv();
const hookMs: number[] = [];
for (let i = 0; i <= EDITS; i++) {
  writeFileSync(join(rootD, 'a.ts'), source(i));
  const event = { hook_event_name: 'PostToolUse', cwd: rootD, tool_name: 'apply_patch', tool_input: { command: `*** Begin Patch\n*** Update File: a.ts\n@@\n-x\n+${source(i)}*** End Patch\n` } };
  const ms = timed(process.execPath, [CLI, 'hook', 'codex'], { cwd: rootD, input: JSON.stringify(event), env });
  if (i > 0) hookMs.push(ms);
}
spawnSync(process.execPath, [CLI, 'daemon', 'stop'], { env });
for (const dir of [...roots, runtimeDir]) rmSync(dir, { recursive: true, force: true });

const a = median(biomeMs);
const b = median(nodeMs);
const d = median(hookMs);
const row = (name: string, ms: number | undefined, note = '') => console.log(`| ${name.padEnd(62)} | ${ms === undefined ? '    n/a' : ms.toFixed(1).padStart(7)} ms | ${ms === undefined ? '  n/a' : (ms / a).toFixed(2).padStart(5)}× | ${note}`);
console.log(`per edit of a one-line TypeScript file, Biome project, medians of ${EDITS}:\n`);
console.log(`| ${'how'.padEnd(62)} | per edit   | vs (a) |`);
console.log(`|${'-'.repeat(64)}|------------|--------|`);
row('(a) node_modules/.bin/biome format --write, process/edit', a, 'anchor');
row('(b) bare node -e 0', b);
row('(c) opencode plugin, before + after hooks, in opencode\'s Bun', pluginMs, pluginMs === undefined ? `opencode not installed at ${OPENCODE}` : 'in-process, warm');
row('(d) formatbox hook codex, one-file patch, via the daemon', d, `${(d - b).toFixed(1)} ms beyond bare Node`);
if (pluginMs !== undefined) recordResult({ group: 'agents', name: 'opencode plugin per edit (in opencode, warm)', value: pluginMs, unit: 'ms', anchor: '.bin/biome format --write per edit', anchorValue: a, goal: '≤ 0.25' });
recordResult({ group: 'agents', name: 'formatbox hook codex per patch (daemon)', value: d, unit: 'ms', anchor: '.bin/biome format --write per edit', anchorValue: a, note: `node -e 0: ${b.toFixed(1)} ms` });
