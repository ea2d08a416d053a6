/**
 * The real Qwen Code CLI (pinned, from the npm registry) in headless mode (`--yolo`) against a
 * scripted OpenAI-compatible model on loopback (`--auth-type openai`, `OPENAI_BASE_URL`), set up by
 * `formatbox init qwen` in an isolated HOME. Qwen Code rewrites a tool's input only for a hook that
 * also approves the tool, which formatbox never does, so edits are formatted after the write: the
 * PostToolUse context holds the text on disk without angle-bracket markers (Qwen escapes `<` and
 * `>`) and a follow-up copying it applies. Bad input never blocks and stays bounded.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { agentBinary, boundBreach, formatboxNotes, runAgent } from './agent-cache.js';
import { BIG, CRLF, hookAgentWorld, type HookAgentWorld } from './hook-agent-session.js';
import { startScriptedModel, type ModelRequest, type ScriptStep } from './openai-server.js';

const MAX_DIFF_CHARS = 2000;
const { bin, skip } = agentBinary('qwen');

/** formatbox's hook context in what Qwen sent back after a tool call (unescaped back), or ''. */
function contextAfter(request: ModelRequest | undefined): string {
  const messages = (request?.body.messages ?? []) as Array<{ role: string; content?: unknown }>;
  const lastAssistant = messages.map((m) => m.role).lastIndexOf('assistant');
  const partsText = (content: unknown): string => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((part) => String((part as { text?: unknown })?.text ?? '')).join('') : '');
  const text = messages.slice(lastAssistant + 1).map((m) => partsText(m.content)).join('\n');
  const at = text.search(/formatbox: /);
  return at < 0 ? '' : text.slice(at).replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}

function plainBlockText(context: string): string | undefined {
  return /\nBEGIN\n([\s\S]*?)\nEND(?:\n|$)/.exec(context)?.[1];
}

describe('Qwen Code with formatbox (PostToolUse hook)', { skip, timeout: 600_000 }, () => {
  let world: HookAgentWorld;
  before(async () => {
    world = await hookAgentWorld('qwen');
  });
  after(async () => {
    await world?.close();
  });

  async function session(project: string, script: ScriptStep[]) {
    const model = await startScriptedModel(script);
    try {
      const env = { ...world.env, OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'scripted', OPENAI_MODEL: 'scripted' };
      const run = await runAgent(bin as string, ['--auth-type', 'openai', '--yolo', 'make the edits'], { cwd: project, env, timeoutMs: 240_000 });
      return { run, requests: model.scripted(), errors: model.errors };
    } finally {
      await model.close();
    }
  }

  it('formatbox init qwen merges its hook into settings.json, idempotently', () => {
    assert.match(execFileSync('formatbox', ['init', 'qwen'], { env: world.env, cwd: world.base, encoding: 'utf8' }), /\+.*hook qwen/);
    assert.match(execFileSync('formatbox', ['init', 'qwen'], { env: world.env, cwd: world.base, encoding: 'utf8' }), /already set up/);
    assert.match(execFileSync('formatbox', ['doctor'], { env: world.env, cwd: world.base, encoding: 'utf8' }), /qwen: \S+settings\.json: PostToolUse/);
  });

  it('after the write: the context holds the text on disk, a copying edit applies, bad input does not block', async () => {
    const project = world.project('after', { 'g.ts': 'export const g: number[] = [];\n', ...Object.fromEntries(Object.entries((await import('./hook-agent-session.js')).FIXTURES)) });
    const at = (name: string) => join(project, name);
    // Qwen Code edits only a file read in the session: each edit follows a read of its file.
    const read = (path: string): ScriptStep => () => ({ tool: 'read_file', args: { absolute_path: path, file_path: path } });
    const edits: Array<[string, ScriptStep]> = [
      [at('a.ts'), () => ({ tool: 'edit', args: { file_path: at('a.ts'), old_string: 'export const a = { b: 1 };', new_string: "export const a = {b:1,c:'x'}" } })],
      [at('a.ts'), (r) => {
        const text = plainBlockText(contextAfter(seen[2]));
        if (!text) throw new Error(`no formatted text in the hook context: ${contextAfter(seen[2]) || JSON.stringify((r.body.messages as unknown[]).slice(-3))}`);
        return { tool: 'edit', args: { file_path: at('a.ts'), old_string: text, new_string: text.replace('"x"', '"y"') } };
      }],
      [at('b.ts'), () => ({ tool: 'write_file', args: { file_path: at('b.ts'), content: 'export function f(a,b){return a+b}\n' } })],
      [at('bad.ts'), () => ({ tool: 'edit', args: { file_path: at('bad.ts'), old_string: 'export const ok = 1;', new_string: 'export const ok = (;' } })],
      [at('big.ts'), () => ({ tool: 'edit', args: { file_path: at('big.ts'), old_string: 'export const v1000 = 1000;', new_string: 'export const v1000={a:1}' } })],
      [at('crlf.ts'), () => ({ tool: 'edit', args: { file_path: at('crlf.ts'), old_string: 'export const c = 1;', new_string: 'export const c={x:1}' } })],
      [world.outside, () => ({ tool: 'edit', args: { file_path: world.outside, old_string: 'export const out = 1;', new_string: "export const out = {o:'1'}" } })],
      [at('app.py'), () => ({ tool: 'edit', args: { file_path: at('app.py'), old_string: 'x = 1', new_string: 'x=[1,2]' } })],
      [at('g.ts'), () => ({ tool: 'edit', args: { file_path: at('g.ts'), old_string: 'export const g: number[] = [];', new_string: 'export const g:Array<number>=[1]' } })],
    ];
    // Each request by the step it took (the number of tool results it holds).
    const seen: ModelRequest[] = [];
    const script: ScriptStep[] = [...edits.flatMap(([path, edit]) => [read(path), edit]), () => ({ text: 'done' })]
      .map((step) => (r: ModelRequest) => ((seen[r.toolResults.length] = r), step(r)));
    const { run, requests, errors } = await session(project, script);
    assert.deepEqual(errors, [], `the script failed; Qwen said:\n${run.stderr.slice(-3000)}`);
    assert.equal(requests.length, 19, `${requests.length} requests; Qwen said:\n${run.stderr.slice(-2000)}`);
    // The request after each edit (the one that reads the next file, or the last) holds its result.
    const [edit, copyEdit, write, syntax, big, crlf, outside, config, generic] = edits.map((_, k) => contextAfter(seen[2 * k + 2])) as string[];
    assert.equal(plainBlockText(edit!), 'export const a = { b: 1, c: "x" };', edit);
    assert.equal(copyEdit, '', 'the copy is formatted already');
    assert.equal(readFileSync(at('a.ts'), 'utf8'), 'export const a = { b: 1, c: "y" };\n');
    assert.equal(readFileSync(at('b.ts'), 'utf8'), 'export function f(a, b) {\n\treturn a + b;\n}\n');
    assert.match(write!, /^formatbox: formatted \(biome [\d.]+, wasm\): b\.ts/);
    assert.equal(readFileSync(at('bad.ts'), 'utf8'), 'export const ok = (;\n');
    assert.match(syntax!, /^formatbox: formatter failed \(biome[^)]*\): bad\.ts/);
    assert.equal(readFileSync(at('big.ts'), 'utf8'), BIG.replace('export const v1000 = 1000;', 'export const v1000 = { a: 1 };'));
    assert.equal(plainBlockText(big!), 'export const v1000 = { a: 1 };');
    assert.equal(readFileSync(at('crlf.ts'), 'utf8'), CRLF.replace(/\r\n/g, '\n').replace('export const c = 1;', 'export const c = { x: 1 };'));
    assert.match(crlf!, /^formatbox: formatted \(biome [\d.]+, wasm\): crlf\.ts/);
    assert.equal(outside, '');
    assert.doesNotMatch(readFileSync(world.outside, 'utf8'), /o: "1"/);
    assert.match(config!, /^formatbox: formatter failed \(ruff [\d.]+, wasm\): app\.py: invalid project config/);
    assert.match(generic!, /reread lines 1 of g\.ts/);
    for (const context of [edit, write, syntax, big, crlf, config, generic]) assert.equal(boundBreach(formatboxNotes(context!), MAX_DIFF_CHARS), undefined);
    console.log(`qwen after-write: ${edit!.length} formatbox chars per edit (escaped by Qwen: same length here, no < or >)`);
  });
});
