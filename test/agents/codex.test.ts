/**
 * The real Codex CLI (pinned, from the npm registry) driven through `codex exec` by a scripted model
 * on loopback (a model provider with `wire_api = "responses"`), set up as the README says:
 * - `formatbox mcp` as an MCP server with `default_tools_approval_mode = "approve"` (without it
 *   `codex exec` answers every MCP call "MCP tool call requires approval, but approval policy is
 *   never"), under `-s workspace-write`;
 * - `formatbox hook codex` as a PostToolUse hook on Codex's own `apply_patch`, trusted the way
 *   Codex's own review does it: the hook's `currentHash` from `codex app-server`'s `hooks/list`,
 *   written to `[hooks.state."<key>"] trusted_hash`.
 * The test reads the model's NEXT request: it must hold the text now on disk, and a follow-up edit
 * or patch that copies it must apply. Bad input never blocks and stays bounded.
 *
 * Codex refuses to set up its sandbox helpers when CODEX_HOME is under a temporary directory, so
 * CODEX_HOME lives in the agent cache (removed afterwards).
 */
import { strict as assert } from 'node:assert';
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cleanUp, installCopy, isolatedEnv } from '../cli/built-cli.js';
import { agentBinary, agentCache, boundBreach, formatboxNotes, runAgent, type AgentRun } from './agent-cache.js';
import { formattedEditText, startScriptedModel, type ModelRequest, type ScriptStep } from './openai-server.js';

const MAX_DIFF_CHARS = 2000; // formatbox's default budget
const { bin, skip } = agentBinary('codex');

/** What Codex sent back for an MCP call: the text after its `Output:` line. */
function outputOf(toolResult: string): string {
  const at = toolResult.indexOf('Output:');
  return at < 0 ? toolResult : toolResult.slice(at + 'Output:'.length).replace(/^\n/, '');
}

/** The formatted new text of an edit, from a delimited block in the text or the receipt's rewritten input. */
function formattedNewText(toolResult: string): string | undefined {
  const output = outputOf(toolResult);
  const block = formattedEditText(output);
  if (block !== undefined) return block;
  try {
    const receipt = JSON.parse(output) as { input?: { newText?: unknown } };
    return typeof receipt.input?.newText === 'string' ? receipt.input.newText : undefined;
  } catch {
    return undefined;
  }
}

/** The developer messages Codex added to a request (where hook context goes). */
function developerTexts(request: ModelRequest): string[] {
  const input = Array.isArray(request.body.input) ? (request.body.input as Record<string, unknown>[]) : [];
  return input
    .filter((item) => item.type === 'message' && item.role === 'developer')
    .flatMap((item) => (Array.isArray(item.content) ? (item.content as { text?: string }[]) : []).map((part) => part.text ?? ''));
}

/** `codex app-server`'s `hooks/list` for CODEX_HOME: each hook's key and current hash. */
function listHooks(codexHome: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ key: string; currentHash: string; trustStatus: string }[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin as string, ['app-server'], { cwd, env: { ...env, CODEX_HOME: codexHome }, stdio: ['pipe', 'pipe', 'pipe'] });
    let buffer = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('codex app-server did not answer hooks/list'));
    }, 30_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      for (const line of buffer.split('\n').slice(0, -1)) {
        const message = JSON.parse(line) as { id?: number; result?: { data?: { hooks: { key: string; currentHash: string; trustStatus: string }[] }[] } };
        if (message.id === 2) {
          clearTimeout(timer);
          child.kill();
          resolve(message.result?.data?.flatMap((entry) => entry.hooks) ?? []);
        }
      }
      buffer = buffer.slice(buffer.lastIndexOf('\n') + 1);
    });
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'formatbox-test', version: '0' } } });
    send({ jsonrpc: '2.0', method: 'initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'hooks/list', params: { cwds: [cwd] } });
  });
}

describe('Codex with formatbox (MCP server and apply_patch hook)', { skip, timeout: 300_000 }, () => {
  let base: string;
  let codexHome: string;
  let binDir: string;
  let runtimeDir: string;
  let baseEnv: NodeJS.ProcessEnv;

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'fb-codex-'));
    mkdirSync(agentCache(), { recursive: true });
    codexHome = mkdtempSync(join(agentCache(), 'codex-home-'));
    const copy = await installCopy();
    // `formatbox` on PATH, as an installed package puts it: the config below is the README's.
    binDir = join(base, 'bin');
    mkdirSync(binDir);
    writeFileSync(join(binDir, 'formatbox'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(copy.cli)} "$@"\n`);
    chmodSync(join(binDir, 'formatbox'), 0o755);
    const isolated = isolatedEnv();
    runtimeDir = isolated.runtimeDir;
    baseEnv = {
      PATH: `${binDir}:${process.env.PATH}`,
      HOME: join(base, 'home'),
      TMPDIR: tmpdir(),
      XDG_RUNTIME_DIR: runtimeDir,
      XDG_CONFIG_HOME: join(base, 'home', '.config'),
      CODEX_HOME: codexHome,
    };
  });
  after(async () => {
    await cleanUp(runtimeDir, base, codexHome);
  });

  async function session(name: string, model: string, files: Record<string, string>, script: ScriptStep[], configExtra: (project: string) => Promise<void> = async () => undefined, sandbox = 'workspace-write'): Promise<{ project: string; run: AgentRun; requests: ModelRequest[]; errors: string[] }> {
    const project = join(base, name);
    mkdirSync(project, { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: project });
    for (const [path, text] of Object.entries(files)) writeFileSync(join(project, path), text);
    const scripted = await startScriptedModel(script);
    writeFileSync(join(codexHome, 'config.toml'), `model = "${model}"
model_provider = "scripted"
approval_policy = "never"

[model_providers.scripted]
name = "Scripted"
base_url = "${scripted.baseUrl}"
wire_api = "responses"

[mcp_servers.formatbox]
command = "formatbox"
args = ["mcp"]
default_tools_approval_mode = "approve"
required = true

[[hooks.PostToolUse]]
matcher = "^apply_patch$"
[[hooks.PostToolUse.hooks]]
type = "command"
command = "formatbox hook codex"
`);
    await configExtra(project);
    try {
      const run = await runAgent(bin as string, ['exec', '-s', sandbox, 'make the edits'], { cwd: project, env: { ...baseEnv, HOME: join(base, `${name}-home`) }, timeoutMs: 150_000 });
      return { project, run, requests: scripted.scripted(), errors: scripted.errors };
    } finally {
      await scripted.close();
    }
  }

  const mcp = (tool: string, args: Record<string, unknown>) => ({ tool, namespace: 'mcp__formatbox', args });
  let mcpResults: string[] = [];

  it('formatbox mcp under -s workspace-write: the next request holds the formatted text, a copying edit applies, bad input does not block', async () => {
    const big = Array.from({ length: 400 }, (_, i) => `export const v${i} = ${i};`).join('\n') + '\n';
    const files = { 'biome.json': '{}\n', 'ruff.toml': 'line-length = "wide"\n', 'a.ts': 'export const a = { b: 1 };\n', 'bad.ts': 'export const ok = 1;\n', 'big.ts': big, 'app.py': 'x = 1\n' };
    writeFileSync(join(base, 'outside.ts'), 'export const out = 1;\n');
    const script: ScriptStep[] = [
      (r) => {
        // Codex shows an unknown model's MCP tools directly, in a namespace per server.
        if (!r.tools.includes('mcp__formatbox.edit')) throw new Error(`Codex offered no formatbox edit tool: ${r.tools.join(', ')}`);
        return mcp('edit', { path: 'a.ts', old_string: 'export const a = { b: 1 };', new_string: "export const a = {b:1,c:'x'}" });
      },
      (r) => {
        const text = formattedNewText(r.toolResults[0] ?? '');
        if (!text) throw new Error(`no formatted text in the MCP result: ${r.toolResults[0]}`);
        return mcp('edit', { path: 'a.ts', old_string: text, new_string: text.replace('"x"', '"y"') });
      },
      () => mcp('write', { path: 'b.ts', content: 'export function f(a,b){return a+b}\n' }),
      () => mcp('apply_patch', { patch: "*** Begin Patch\n*** Update File: a.ts\n@@\n-export const a = { b: 1, c: \"y\" };\n+export const a = {b:1,c:'z'}\n*** End Patch\n" }),
      () => mcp('edit', { path: 'bad.ts', old_string: 'export const ok = 1;', new_string: 'export const ok = (;' }),
      () => mcp('edit', { path: 'big.ts', old_string: big, new_string: big.replace(/ = /g, '=').replace(/;/g, '') }),
      () => mcp('edit', { path: '../outside.ts', old_string: 'export const out = 1;', new_string: "export const out = {o:'1'}" }),
      () => mcp('edit', { path: 'app.py', old_string: 'x = 1', new_string: 'x=[1,2]' }),
      () => ({ text: 'done' }),
    ];
    const { project, run, requests, errors } = await session('mcp', 'formatbox-scripted', files, script);
    assert.deepEqual(errors, [], `the script failed; Codex said:\n${run.stderr.slice(-3000)}`);
    assert.equal(run.code, 0, run.stderr.slice(-3000));
    mcpResults = requests[requests.length - 1]?.toolResults ?? [];
    if (process.env.FB_DEBUG) writeFileSync(process.env.FB_DEBUG, JSON.stringify(mcpResults, null, 1));
    assert.equal(mcpResults.length, 8, JSON.stringify(mcpResults.map((r) => r.slice(0, 300))));
    const [edit, copyEdit, write, patch, syntax, large, outside, config] = mcpResults.map(outputOf) as [string, string, string, string, string, string, string, string];

    assert.equal(formattedNewText(mcpResults[0] as string), 'export const a = { b: 1, c: "x" };', edit);
    assert.match(copyEdit, /already formatted|"status":"unchanged"/, copyEdit);
    assert.match(write, /formatted \(biome [\d.]+, wasm\): b\.ts/);
    assert.match(write, /return a \+ b;/, 'the write result holds the formatted text');
    assert.match(patch, /formatted \(biome [\d.]+, wasm\): a\.ts/);
    assert.equal(readFileSync(join(project, 'a.ts'), 'utf8'), 'export const a = { b: 1, c: "z" };\n');
    assert.equal(readFileSync(join(project, 'b.ts'), 'utf8'), 'export function f(a, b) {\n\treturn a + b;\n}\n');

    assert.match(syntax, /formatter failed \(biome[^)]*\): bad\.ts/);
    assert.equal(readFileSync(join(project, 'bad.ts'), 'utf8'), 'export const ok = (;\n');
    assert.match(large, /formatted \(biome [\d.]+, wasm\): big\.ts/);
    assert.equal(readFileSync(join(project, 'big.ts'), 'utf8'), big);
    assert.match(outside, /refused \S*outside\.ts: it is outside the project root/, outside);
    assert.equal(readFileSync(join(base, 'outside.ts'), 'utf8'), 'export const out = 1;\n', 'a path outside the project is never written');
    assert.match(config, /formatter failed \(ruff [\d.]+, wasm\): app\.py: invalid project config: ruff\.toml:1:1/);
  });

  it('formatbox mcp results stay bounded (≤ maxDiffChars + the receipt)', () => {
    assert.equal(mcpResults.length, 8, 'the MCP session ran');
    for (const [i, result] of mcpResults.entries()) {
      assert.ok(result.length <= MAX_DIFF_CHARS + 1500, `MCP result ${i} is ${result.length} characters`);
    }
  });

  it('formatbox mcp under -s read-only: the MCP server (outside Codex’s sandbox) edits and formats', async () => {
    const script: ScriptStep[] = [
      () => mcp('edit', { path: 'a.ts', old_string: 'export const a = { b: 1 };', new_string: "export const a = {b:1,c:'x'}" }),
      (r) => {
        const text = formattedNewText(r.toolResults[0] ?? '');
        if (!text) throw new Error(`no formatted text in the MCP result: ${r.toolResults[0]}`);
        return mcp('edit', { path: 'a.ts', old_string: text, new_string: text.replace('"x"', '"y"') });
      },
      () => ({ text: 'done' }),
    ];
    const { project, run, requests, errors } = await session('read-only', 'formatbox-scripted', { 'biome.json': '{}\n', 'a.ts': 'export const a = { b: 1 };\n' }, script, undefined, 'read-only');
    assert.deepEqual(errors, [], `the script failed; Codex said:\n${run.stderr.slice(-3000)}`);
    assert.equal(requests[requests.length - 1]?.toolResults.length, 2);
    assert.match(outputOf(requests[requests.length - 1]?.toolResults[1] ?? ''), /already formatted|"status":"unchanged"/);
    assert.equal(readFileSync(join(project, 'a.ts'), 'utf8'), 'export const a = { b: 1, c: "y" };\n');
  });

  it('formatbox hook codex on Codex’s own apply_patch: the next request holds the formatted text, a copying patch applies', async () => {
    let trust: { key: string; currentHash: string; trustStatus: string }[] = [];
    // Codex may write outside the session's project (/tmp is one of its writable roots): not ours.
    const outsideDir = join(base, 'elsewhere');
    mkdirSync(join(outsideDir, '.git'), { recursive: true });
    writeFileSync(join(outsideDir, 'biome.json'), '{}\n');
    const outsideFile = join(outsideDir, 'o.ts');
    const script: ScriptStep[] = [
      (r) => {
        if (!r.tools.includes('apply_patch')) throw new Error(`Codex offered no apply_patch: ${r.tools.join(', ')}`);
        return { customTool: 'apply_patch', input: `*** Begin Patch\n*** Update File: a.ts\n@@\n-export const a = { b: 1 };\n+export const a = {b:1,c:'x'}\n*** Add File: c.ts\n+export const c = [1,2,3]\n*** Add File: ${outsideFile}\n+export const o = [1,2,3]\n*** End Patch\n` };
      },
      (r) => {
        const context = developerTexts(r).find((text) => text.includes('formatbox: formatted'));
        const line = context?.split('\n').find((l) => l.startsWith('+export const a'))?.slice(1);
        if (!line) throw new Error(`no formatted a.ts line in the next request's hook context: ${JSON.stringify(developerTexts(r)).slice(-2000)}`);
        return { customTool: 'apply_patch', input: `*** Begin Patch\n*** Update File: a.ts\n@@\n-${line}\n+${line.replace('"x"', '"z"')}\n*** End Patch\n` };
      },
      () => ({ text: 'done' }),
    ];
    // gpt-5.5 is a model Codex knows: it gets Codex's freeform apply_patch tool.
    const { project, run, requests, errors } = await session('hook', 'gpt-5.5', { 'biome.json': '{}\n', 'a.ts': 'export const a = { b: 1 };\n' }, script, async (project) => {
      trust = await listHooks(codexHome, project, baseEnv);
      const ours = trust.filter((hook) => hook.key.endsWith(':post_tool_use:0:0'));
      assert.equal(ours.length, 1, JSON.stringify(trust));
      assert.equal(ours[0]?.trustStatus, 'untrusted', 'a new hook is not trusted until reviewed');
      appendFileSync(join(codexHome, 'config.toml'), `\n[hooks.state.${JSON.stringify(ours[0]?.key)}]\ntrusted_hash = ${JSON.stringify(ours[0]?.currentHash)}\n`);
    });
    assert.deepEqual(errors, [], `the script failed; Codex said:\n${run.stderr.slice(-3000)}`);
    assert.equal(run.code, 0, run.stderr.slice(-3000));
    const results = requests[requests.length - 1]?.toolResults ?? [];
    assert.equal(results.length, 2);
    assert.match(results[0] as string, /Success\. Updated the following files/);
    const context = developerTexts(requests[1] as ModelRequest).find((text) => text.includes('formatbox:')) ?? '';
    assert.match(context, /formatbox: formatted \(biome [\d.]+, wasm\): a\.ts/);
    assert.match(context, /formatbox: formatted \(biome [\d.]+, wasm\): c\.ts/);
    assert.match(context, /\n\+export const c = \[1, 2, 3\];/);
    assert.equal(boundBreach(formatboxNotes(context), MAX_DIFF_CHARS), undefined);
    assert.match(results[1] as string, /Success\. Updated the following files/, results[1]);
    assert.equal(readFileSync(join(project, 'a.ts'), 'utf8'), 'export const a = { b: 1, c: "z" };\n');
    assert.equal(readFileSync(join(project, 'c.ts'), 'utf8'), 'export const c = [1, 2, 3];\n');
    assert.doesNotMatch(context, /o\.ts/);
    assert.equal(readFileSync(outsideFile, 'utf8'), 'export const o = [1,2,3]\n', 'a file outside the session\'s project is left as written');
  });
});
