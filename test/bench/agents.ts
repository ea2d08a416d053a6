/**
 * formatbox inside the real agents, against anchors measured in the same run (`node -e 0`, a bare
 * Node start; `.bin/biome format --write`, the formatter as a process per edit):
 *   - per edit inside a real Claude Code session (the pinned CLI from the agent cache, driven by
 *     the scripted model): the time from the model's Edit answer to Claude Code's next request,
 *     median over the edits, and the characters the model receives for the edit (its next request's
 *     tool result and hook context), with no hook, with the command and the http hook before the
 *     write (acceptEdits: PreToolUse) and with the http hook after the write (default mode with an
 *     allow rule: PostToolUse); and the follow-up success rate: each unformatted edit is followed by
 *     one that copies the formatted text (with no formatter it cannot apply);
 *   - `formatbox mcp`: `initialize` answered (the SDK's client connect), and the first tool call.
 *
 *   node --import tsx test/bench/agents.ts [edits=12]
 * Uses the built bin (dist/cli.js); builds it first when missing. Skips Claude Code when the cache
 * lacks it (.ci/run installs it).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { findClaude, runClaude, type Step } from '../agents/claude.js';
import { lastToolFailed, lastUserText } from '../agents/anthropic-server.js';
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
  const chars: Record<string, number> = {};
  const modes = ['no hook', 'command hook, before the write', 'http hook, before the write', 'http hook, after the write'] as const;
  for (const mode of modes) {
    const root = project(EDITS);
    const home = mkdtempSync(join(scratch, 'home-'));
    writeFileSync(join(home, '.claude.json'), JSON.stringify({ projects: { [root]: { hasTrustDialogAccepted: true } } }));
    const after = mode === 'http hook, after the write';
    if (mode !== 'no hook') {
      const args = mode.startsWith('command hook') ? ['--command'] : ['--port', String(await freePort())];
      const init = spawnSync(process.execPath, [CLI, 'init', 'claude-code', '--project', '--bin', `${process.execPath} ${CLI}`, ...args], { cwd: root, env: { ...env, HOME: home }, encoding: 'utf8' });
      if (init.status !== 0) throw new Error(`init: ${init.stdout}${init.stderr}`);
    }
    if (after) {
      // Default mode with an allow rule: formatbox grants nothing, so it formats after the write.
      const path = join(root, '.claude', 'settings.json');
      const settings = JSON.parse(readFileSync(path, 'utf8'));
      settings.permissions = { ...settings.permissions, allow: ['Edit', 'Write'] };
      writeFileSync(path, JSON.stringify(settings));
    }
    const file = join(root, 'a.ts');
    // A Read first, then per marker an unformatted edit and a follow-up that copies the formatted text.
    const steps: Step[] = [() => ({ tool: 'Read', input: { file_path: file } })];
    for (let i = 0; i <= EDITS - 1; i++) {
      steps.push(() => ({ tool: 'Edit', input: { file_path: file, old_string: `const m${i} = 0;`, new_string: `const m${i}=1` } }));
      steps.push(() => ({ tool: 'Edit', input: { file_path: file, old_string: `const m${i} = 1;`, new_string: `const m${i} = 2;` } }));
    }
    const run = await runClaude(claude, { cwd: root, home, steps, ...(after ? { permissionMode: 'default' } : {}), env: { XDG_RUNTIME_DIR: runtimeDir, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(home, '.config') } });
    if (run.code !== 0) throw new Error(`claude (${mode}) exited ${run.code}: ${run.stderr.slice(-500)}`);
    // Turn t+1 shows the result of the step taken at turn t: the unformatted edits are the steps
    // at turns 1, 3, 5, …; the first one warms up (the daemon compiles Biome's wasm).
    const gaps: number[] = [];
    const told: number[] = [];
    let followUps = 0;
    let followUpsOk = 0;
    for (let t = 1; t + 1 < run.turns.length; t++) {
      if (t % 2 === 1) {
        if (t >= 3) gaps.push(run.times[t + 1]!.received - run.times[t]!.answered);
        told.push(lastUserText(run.turns[t + 1]!).length);
      } else {
        followUps++;
        if (!lastToolFailed(run.turns[t + 1]!)) followUpsOk++;
      }
    }
    perEdit[mode] = median(gaps);
    chars[mode] = median(told);
    record(`Claude Code per edit, ${mode} (median of ${gaps.length})`, perEdit[mode]!);
    console.log(`Claude Code, ${mode}: the model receives ${chars[mode]} characters per edit (median of ${told.length}); follow-ups that copy the formatted text: ${followUpsOk}/${followUps}`);
    recordResult({ group: 'agents', name: `Claude Code, ${mode}: characters per edit`, value: chars[mode]!, unit: 'chars', anchor: 'no hook (the tool result alone)', anchorValue: chars['no hook'] ?? chars[mode]! });
    recordResult({ group: 'agents', name: `Claude Code, ${mode}: follow-ups that apply`, value: followUps === 0 ? 0 : (100 * followUpsOk) / followUps, unit: '%', goal: mode === 'no hook' ? undefined : '≥ 100' });
  }
  for (const mode of modes.slice(1)) {
    const added = perEdit[mode]! - perEdit['no hook']!;
    console.log(`${mode} adds ${fmt(added)} and ${chars[mode]! - chars['no hook']!} characters per edit over no hook (${(added / biome).toFixed(2)}× biome format --write)`);
    recordResult({ group: 'agents', name: `Claude Code: what the ${mode} adds per edit`, value: added, unit: 'ms', anchor: '.bin/biome format --write', anchorValue: biome, goal: mode.startsWith('http hook') ? '≤ 0.25' : undefined });
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
