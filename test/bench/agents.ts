/**
 * formatbox inside the real agents, against anchors measured in the same run (`node -e 0`, a bare
 * Node start; `.bin/biome format --write`, the formatter as a process per edit):
 *   - per edit inside a real Claude Code session (the pinned CLI from the agent cache, driven by
 *     the scripted model): the time from the model's Edit answer to Claude Code's next request,
 *     median over the edits, with no hook, with the command hook and with the http hook;
 *   - `formatbox mcp`: `initialize` answered (the SDK's client connect), and the first tool call.
 *
 *   node --import tsx test/bench/agents.ts [edits=12]
 * Uses the built bin (dist/cli.js); builds it first when missing. Skips Claude Code when the cache
 * lacks it (.ci/run installs it).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { findClaude, runClaude, type Step } from '../agents/claude.js';
import { freePort } from '../cli/built-cli.js';
import { recordResult } from './report.js';

const EDITS = Number(process.argv[2] ?? (process.env.FORMATBOX_BENCH_QUICK === '1' ? 4 : 12));
const REPO = resolve('.');
const CLI = join(REPO, 'dist/cli.js');
const BIOME = join(REPO, 'node_modules/.bin/biome');
if (!existsSync(CLI)) spawnSync(process.execPath, ['build.mjs'], { cwd: REPO, stdio: 'inherit' });

const scratch = mkdtempSync(join(tmpdir(), 'fb-bench-agents-'));
const runtimeDir = join(scratch, 'xdg');
mkdirSync(runtimeDir, { mode: 0o700 });
const env = { ...process.env, XDG_RUNTIME_DIR: runtimeDir, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(scratch, 'no-config') };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

function project(markers: number): string {
  const root = mkdtempSync(join(scratch, 'proj-'));
  mkdirSync(join(root, '.git'));
  writeFileSync(join(root, 'biome.json'), '{ "formatter": { "indentStyle": "space" } }\n');
  const body = Array.from({ length: 300 }, (_, i) => `export function f${i}(a: number): number {\n  return a + ${i};\n}\n`).join('');
  writeFileSync(join(root, 'a.ts'), `${body}${Array.from({ length: markers }, (_, i) => `const m${i} = 0;\n`).join('')}`);
  return root;
}

// Anchors.
const nodeMs: number[] = [];
const biomeMs: number[] = [];
const anchorRoot = project(1);
for (let i = 0; i < 10; i++) {
  let t = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  nodeMs.push(performance.now() - t);
  writeFileSync(join(anchorRoot, 'b.ts'), `const m${i}=1\n`);
  t = performance.now();
  spawnSync(BIOME, ['format', '--write', 'b.ts'], { cwd: anchorRoot });
  biomeMs.push(performance.now() - t);
}
const node = median(nodeMs);
const biome = median(biomeMs);
console.log(`anchors: node -e 0 ${fmt(node)}, .bin/biome format --write ${fmt(biome)}`);

function record(name: string, value: number): void {
  console.log(`${name}: ${fmt(value)} (${(value / node).toFixed(2)}× node -e 0, ${(value / biome).toFixed(2)}× biome format --write)`);
  recordResult({ group: 'agents', name, value, unit: 'ms', anchor: '.bin/biome format --write', anchorValue: biome });
  recordResult({ group: 'agents', name: `${name} vs node -e 0`, value, unit: 'ms', anchor: 'node -e 0', anchorValue: node });
}


// Per edit inside Claude Code.
const claude = findClaude();
if (!claude) {
  console.log('Claude Code is not in the agent cache (.ci/run installs it): its rows are left out');
} else {
  const perEdit: Record<string, number> = {};
  for (const mode of ['no hook', 'command hook', 'http hook'] as const) {
    const root = project(EDITS);
    const home = mkdtempSync(join(scratch, 'home-'));
    writeFileSync(join(home, '.claude.json'), JSON.stringify({ projects: { [root]: { hasTrustDialogAccepted: true } } }));
    if (mode !== 'no hook') {
      const args = mode === 'command hook' ? ['--command'] : ['--port', String(await freePort())];
      const init = spawnSync(process.execPath, [CLI, 'init', 'claude-code', '--project', '--bin', `${process.execPath} ${CLI}`, ...args], { cwd: root, env: { ...env, HOME: home }, encoding: 'utf8' });
      if (init.status !== 0) throw new Error(`init: ${init.stdout}${init.stderr}`);
    }
    const file = join(root, 'a.ts');
    // A warm-up edit first (the daemon's first format compiles Biome's wasm), then the measured ones.
    const steps: Step[] = [() => ({ tool: 'Read', input: { file_path: file } })];
    for (let i = 0; i <= EDITS - 1; i++) steps.push(() => ({ tool: 'Edit', input: { file_path: file, old_string: `const m${i} = 0;`, new_string: `const m${i}=1` } }));
    const run = await runClaude(claude, { cwd: root, home, steps, env: { XDG_RUNTIME_DIR: runtimeDir, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(home, '.config') } });
    if (run.code !== 0) throw new Error(`claude (${mode}) exited ${run.code}: ${run.stderr.slice(-500)}`);
    // Turn k+1 arrives after the Edit answered at turn k; the first two edits warm up.
    const gaps: number[] = [];
    for (let k = 3; k < run.times.length; k++) gaps.push(run.times[k]!.received - run.times[k - 1]!.answered);
    perEdit[mode] = median(gaps);
    record(`Claude Code per edit, ${mode} (median of ${gaps.length})`, perEdit[mode]!);
  }
  for (const mode of ['command hook', 'http hook'] as const) {
    const added = perEdit[mode]! - perEdit['no hook']!;
    console.log(`${mode} adds ${fmt(added)} per edit over no hook (${(added / biome).toFixed(2)}× biome format --write)`);
    recordResult({ group: 'agents', name: `Claude Code: what the ${mode} adds per edit`, value: added, unit: 'ms', anchor: '.bin/biome format --write', anchorValue: biome, goal: mode === 'http hook' ? '≤ 0.25' : undefined });
  }
}

// formatbox mcp: initialize, then the first tool call; a minimal server on the same SDK as the floor.
const minimal = join(scratch, 'minimal-mcp.mjs');
writeFileSync(minimal, `import { Server } from ${JSON.stringify(join(REPO, 'node_modules/@modelcontextprotocol/sdk/dist/esm/server/index.js'))};
import { StdioServerTransport } from ${JSON.stringify(join(REPO, 'node_modules/@modelcontextprotocol/sdk/dist/esm/server/stdio.js'))};
await new Server({ name: 'minimal', version: '1' }, { capabilities: { tools: {} } }).connect(new StdioServerTransport());\n`);
const minimalMs: number[] = [];
for (let i = 0; i < 5; i++) {
  const client = new Client({ name: 'bench', version: '1' });
  const t = performance.now();
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [minimal], stderr: 'ignore' }));
  minimalMs.push(performance.now() - t);
  await client.close();
}
const initializeMs: number[] = [];
const firstCallMs: number[] = [];
for (let i = 0; i < 5; i++) {
  const root = project(1);
  const client = new Client({ name: 'bench', version: '1' });
  const t = performance.now();
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--root', root], env: env as Record<string, string>, stderr: 'ignore' }));
  initializeMs.push(performance.now() - t);
  const c = performance.now();
  await client.callTool({ name: 'edit', arguments: { path: 'a.ts', old_string: 'const m0 = 0;', new_string: 'const m0=1' } });
  firstCallMs.push(performance.now() - c);
  await client.close();
}
record('a minimal MCP server on the same SDK: initialize answered', median(minimalMs));
record('formatbox mcp: initialize answered', median(initializeMs));
recordResult({ group: 'agents', name: 'formatbox mcp: initialize vs a minimal SDK server', value: median(initializeMs), unit: 'ms', anchor: 'minimal MCP server, same SDK', anchorValue: median(minimalMs) });
console.log(`formatbox mcp initialize / minimal SDK server: ${(median(initializeMs) / median(minimalMs)).toFixed(2)}×`);
record('formatbox mcp: first tool call (edit)', median(firstCallMs));

spawnSync(process.execPath, [CLI, 'daemon', 'stop'], { env });
rmSync(scratch, { recursive: true, force: true });
