/**
 * The real cline CLI (pinned, from the npm registry) against a scripted model on loopback (`cline
 * auth --provider openai --baseurl`, an OpenAI-compatible provider whose model gets cline's `editor`
 * tool), set up by `formatbox init cline` in an isolated HOME. Before the write, cline's transcript
 * keeps the model's call and its result does not show the text, so formatbox's hook context tells
 * the model each changed edit's text on disk; a follow-up copying it applies. After the write (a
 * session with only the PostToolUse script) the same text arrives from the post-tool hook. Bad
 * input never blocks. cline's hub daemon, started by each session, is stopped after it.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { agentBinary, boundBreach, formatboxNotes, runAgent } from './agent-cache.js';
import { BIG, CRLF, hookAgentWorld, type HookAgentWorld } from './hook-agent-session.js';
import { formattedEditText, startScriptedModel, type ModelRequest, type ScriptStep } from './openai-server.js';

const MAX_DIFF_CHARS = 2000;
const { bin, skip } = agentBinary('cline');

/** The hook context cline added after the last tool result of `request` (its user messages there). */
function hookContextOf(request: ModelRequest | undefined): string {
  const messages = (request?.body.messages ?? []) as Array<{ role: string; content?: unknown }>;
  const lastTool = messages.map((m) => m.role).lastIndexOf('tool');
  return messages.slice(lastTool + 1).filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
}

/** Stops the cline hub daemons this test's HOME started (found by their environment). */
function stopHubs(home: string): void {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (!cmdline.includes('--cline-hub-daemon')) continue;
      if (!readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(`HOME=${home}`)) continue;
      process.kill(Number(name), 'SIGTERM');
    } catch {
      // gone, or not ours to read
    }
  }
}

describe('cline with formatbox (PreToolUse and PostToolUse hooks)', { skip, timeout: 600_000 }, () => {
  let world: HookAgentWorld;
  before(async () => {
    world = await hookAgentWorld('cline');
  });
  after(async () => {
    if (world) stopHubs(world.env.HOME as string);
    await world?.close();
  });

  async function session(project: string, script: ScriptStep[]) {
    const model = await startScriptedModel(script);
    const env = { ...world.env, CLINE_NO_AUTO_UPDATE: '1' };
    try {
      const auth = await runAgent(bin as string, ['auth', '--provider', 'openai', '--baseurl', model.baseUrl, '--apikey', 'scripted', '--modelid', 'scripted'], { cwd: project, env, timeoutMs: 180_000 });
      assert.equal(auth.code, 0, `cline auth (${auth.ms} ms): ${auth.stdout.slice(-1000)}\n${auth.stderr.slice(-1000)}`);
      const run = await runAgent(bin as string, ['make the edits'], { cwd: project, env, timeoutMs: 240_000 });
      return { run, requests: model.scripted(), errors: model.errors };
    } finally {
      stopHubs(world.env.HOME as string);
      await model.close();
    }
  }

  it('formatbox init cline writes its two hook scripts, idempotently', () => {
    const first = execFileSync('formatbox', ['init', 'cline'], { env: world.env, cwd: world.base, encoding: 'utf8' });
    assert.match(first, /\+formatbox hook cline \|\| true/);
    assert.match(execFileSync('formatbox', ['init', 'cline'], { env: world.env, cwd: world.base, encoding: 'utf8' }), /already set up/);
    assert.match(execFileSync('formatbox', ['doctor'], { env: world.env, cwd: world.base, encoding: 'utf8' }), /cline: \S+hooks: PreToolUse and PostToolUse/);
  });

  it('before the write: the hook context holds the text on disk, a copying edit applies, bad input does not block', async () => {
    const project = world.project('before');
    const at = (name: string) => join(project, name);
    const script: ScriptStep[] = [
      () => ({ tool: 'editor', args: { path: at('a.ts'), old_text: 'export const a = { b: 1 };', new_text: "export const a = {b:1,c:'x'}" } }),
      (r) => {
        const text = formattedEditText(hookContextOf(r));
        if (!text) throw new Error(`no formatted text in the hook context: ${hookContextOf(r)}`);
        return { tool: 'editor', args: { path: at('a.ts'), old_text: text, new_text: text.replace('"x"', '"y"') } };
      },
      () => ({ tool: 'editor', args: { path: at('b.ts'), new_text: 'export function f(a,b){return a+b}\n' } }),
      () => ({ tool: 'editor', args: { path: at('bad.ts'), old_text: 'export const ok = 1;', new_text: 'export const ok = (;' } }),
      () => ({ tool: 'editor', args: { path: at('big.ts'), old_text: 'export const v1000 = 1000;', new_text: 'export const v1000={a:1}' } }),
      () => ({ tool: 'editor', args: { path: at('crlf.ts'), old_text: 'export const c = 1;', new_text: 'export const c={x:1}' } }),
      () => ({ tool: 'editor', args: { path: world.outside, old_text: 'export const out = 1;', new_text: "export const out = {o:'1'}" } }),
      () => ({ tool: 'editor', args: { path: at('app.py'), old_text: 'x = 1', new_text: 'x=[1,2]' } }),
      () => ({ text: 'done' }),
    ];
    const { run, requests, errors } = await session(project, script);
    assert.deepEqual(errors, [], `the script failed; cline said:\n${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`);
    assert.equal(requests.length, 9, JSON.stringify(requests.at(-1)?.toolResults));
    const contexts = requests.slice(1).map(hookContextOf);
    const [edit, copyEdit, write, syntax, big, crlf, outside, config] = contexts as string[];
    assert.equal(formattedEditText(edit!), 'export const a = { b: 1, c: "x" };');
    assert.match(requests[2]!.toolResults[1]!, /"success":true/);
    assert.doesNotMatch(copyEdit!, /formatbox:/, 'the copy is formatted already');
    assert.equal(readFileSync(at('a.ts'), 'utf8'), 'export const a = { b: 1, c: "y" };\n');
    assert.equal(readFileSync(at('b.ts'), 'utf8'), 'export function f(a, b) {\n\treturn a + b;\n}\n');
    assert.match(write!, /formatbox: formatted \(biome [\d.]+, wasm\): b\.ts/);
    assert.equal(readFileSync(at('bad.ts'), 'utf8'), 'export const ok = (;\n');
    assert.match(syntax!, /formatbox: formatter failed \(biome[^)]*\): bad\.ts/);
    assert.equal(readFileSync(at('big.ts'), 'utf8'), BIG.replace('export const v1000 = 1000;', 'export const v1000 = { a: 1 };'));
    assert.equal(formattedEditText(big!), 'export const v1000 = { a: 1 };');
    assert.equal(readFileSync(at('crlf.ts'), 'utf8').replace(/\r\n/g, '\n'), CRLF.replace(/\r\n/g, '\n').replace('export const c = 1;', 'export const c = { x: 1 };'));
    assert.match(crlf!, /formatbox: formatted \(biome [\d.]+, wasm\): crlf\.ts/);
    assert.doesNotMatch(outside!, /formatbox:/);
    assert.doesNotMatch(readFileSync(world.outside, 'utf8'), /o: "1"/);
    assert.match(config!, /formatbox: formatter failed \(ruff [\d.]+, wasm\): app\.py: invalid project config/);
    for (const context of contexts) assert.equal(boundBreach(formatboxNotes(context.replace(/<\/?hook_context[^>]*>/g, '')), MAX_DIFF_CHARS), undefined);
    const notes = formatboxNotes(edit!.replace(/<\/?hook_context[^>]*>/g, '').trim());
    console.log(`cline before-write: ${notes.length} formatbox chars per edit (+ cline's hook_context wrapper; its own result ${requests[1]!.toolResults[0]!.length} chars)`);
  });

  it('after the write (PostToolUse alone): the hook context holds the formatted text, a copying edit applies', async () => {
    const project = world.project('after', { 'biome.json': '{}\n', 'a.ts': 'export const a = { b: 1 };\n' });
    const pre = join(world.env.HOME as string, '.cline', 'hooks', 'PreToolUse');
    renameSync(pre, `${pre}.off`);
    try {
      const script: ScriptStep[] = [
        () => ({ tool: 'editor', args: { path: join(project, 'a.ts'), old_text: 'export const a = { b: 1 };', new_text: "export const a = {b:1,c:'x'}" } }),
        (r) => {
          const text = formattedEditText(hookContextOf(r));
          if (!text) throw new Error(`no formatted text in the hook context: ${hookContextOf(r)}`);
          return { tool: 'editor', args: { path: join(project, 'a.ts'), old_text: text, new_text: text.replace('"x"', '"y"') } };
        },
        () => ({ text: 'done' }),
      ];
      const { run, requests, errors } = await session(project, script);
      assert.deepEqual(errors, [], `the script failed; cline said:\n${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`);
      assert.equal(requests.length, 3);
      assert.match(hookContextOf(requests[1]), /source="PostToolUse"/);
      assert.equal(formattedEditText(hookContextOf(requests[1])), 'export const a = { b: 1, c: "x" };');
      assert.equal(readFileSync(join(project, 'a.ts'), 'utf8'), 'export const a = { b: 1, c: "y" };\n');
      const notes = formatboxNotes(hookContextOf(requests[1]).replace(/<\/?hook_context[^>]*>/g, '').trim());
      console.log(`cline after-write: ${notes.length} formatbox chars per edit (+ cline's hook_context wrapper)`);
    } finally {
      renameSync(`${pre}.off`, pre);
    }
  });
});
