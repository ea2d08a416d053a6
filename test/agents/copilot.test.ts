/**
 * The real GitHub Copilot CLI (pinned, from the npm registry) in prompt mode against a scripted model
 * on loopback (`COPILOT_PROVIDER_BASE_URL`, `COPILOT_PROVIDER_TYPE=openai`), set up by `formatbox
 * init copilot` (the user's hooks directory in an isolated HOME). The test reads the model's NEXT
 * request: before the write, Copilot's transcript holds the rewritten arguments as the model's own
 * call and the tool result has no formatbox text; a follow-up edit copying that text applies. After
 * the write (a session with only the post-tool hook, and edits the pre-tool hook passes through),
 * the text on disk arrives in the tool result. Bad input never blocks and stays bounded.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { agentBinary, boundBreach, formatboxNotes, runAgent } from './agent-cache.js';
import { BIG, CRLF, hookAgentWorld, type HookAgentWorld } from './hook-agent-session.js';
import { formattedEditText, startScriptedModel, type ModelRequest, type ScriptStep } from './openai-server.js';

const MAX_DIFF_CHARS = 2000;
const { bin, skip } = agentBinary('copilot');

/** The arguments of the last tool call the transcript shows as the model's own. */
function lastCallArgs(request: ModelRequest): Record<string, unknown> {
  const messages = (request.body.messages ?? []) as Array<{ role: string; tool_calls?: Array<{ function: { arguments: string } }> }>;
  const call = messages.filter((m) => m.role === 'assistant' && m.tool_calls?.length).at(-1)?.tool_calls?.at(-1);
  return call ? (JSON.parse(call.function.arguments) as Record<string, unknown>) : {};
}

describe('GitHub Copilot CLI with formatbox (preToolUse and postToolUse hooks)', { skip, timeout: 600_000 }, () => {
  let world: HookAgentWorld;
  before(async () => {
    world = await hookAgentWorld('copilot');
  });
  after(async () => {
    await world?.close();
  });

  async function session(project: string, script: ScriptStep[]) {
    const model = await startScriptedModel(script);
    try {
      const env = { ...world.env, COPILOT_PROVIDER_BASE_URL: model.baseUrl, COPILOT_PROVIDER_TYPE: 'openai', COPILOT_MODEL: 'gpt-4.1', COPILOT_PROVIDER_API_KEY: 'scripted' };
      const run = await runAgent(bin as string, ['-p', 'make the edits', '--allow-all-tools'], { cwd: project, env, timeoutMs: 240_000 });
      return { run, requests: model.scripted(), errors: model.errors };
    } finally {
      await model.close();
    }
  }

  it('formatbox init copilot writes the user hook file, merged and idempotent', () => {
    const hooks = join(world.env.HOME as string, '.copilot', 'hooks', 'formatbox.json');
    mkdirSync(join(world.env.HOME as string, '.copilot', 'hooks'), { recursive: true });
    writeFileSync(hooks, JSON.stringify({ version: 1, hooks: { sessionStart: [{ type: 'command', bash: 'true' }] } }, null, 2));
    const first = execFileSync('formatbox', ['init', 'copilot'], { env: world.env, cwd: world.base, encoding: 'utf8' });
    assert.match(first, /\+.*hook copilot/);
    const second = execFileSync('formatbox', ['init', 'copilot'], { env: world.env, cwd: world.base, encoding: 'utf8' });
    assert.match(second, /already set up/);
    const written = JSON.parse(readFileSync(hooks, 'utf8'));
    assert.deepEqual(written.hooks.sessionStart, [{ type: 'command', bash: 'true' }], 'the user\'s own hook stays');
    assert.equal(written.hooks.preToolUse.length, 1);
    assert.equal(written.hooks.postToolUse.length, 1);
    assert.match(execFileSync('formatbox', ['doctor'], { env: world.env, cwd: world.base, encoding: 'utf8' }), /copilot: \S+formatbox\.json: preToolUse and postToolUse/);
  });

  it('before the write: the transcript holds the formatted text, a copying edit applies, bad input does not block', async () => {
    const project = world.project('before');
    const at = (name: string) => join(project, name);
    const bigCrlf = BIG.replace(/\n/g, '\r\n');
    writeFileSync(at('bigcrlf.ts'), bigCrlf);
    const seen: Record<string, unknown>[] = [];
    const script: ScriptStep[] = [
      () => ({ tool: 'edit', args: { path: at('a.ts'), old_str: 'export const a = { b: 1 };', new_str: "export const a = {b:1,c:'x'}" } }),
      (r) => {
        const args = lastCallArgs(r);
        seen.push(args);
        return { tool: 'edit', args: { path: at('a.ts'), old_str: String(args.new_str), new_str: String(args.new_str).replace('"x"', '"y"') } };
      },
      (r) => (seen.push(lastCallArgs(r)), { tool: 'create', args: { path: at('b.ts'), file_text: 'export function f(a,b){return a+b}\n' } }),
      (r) => (seen.push(lastCallArgs(r)), { tool: 'edit', args: { path: at('bad.ts'), old_str: 'export const ok = 1;', new_str: 'export const ok = (;' } }),
      () => ({ tool: 'edit', args: { path: at('big.ts'), old_str: 'export const v1000 = 1000;', new_str: 'export const v1000={a:1}' } }),
      (r) => (seen.push(lastCallArgs(r)), { tool: 'edit', args: { path: at('crlf.ts'), old_str: 'export const c = 1;', new_str: 'export const c={x:1}' } }),
      () => ({ tool: 'edit', args: { path: at('bigcrlf.ts'), old_str: 'export const v5 = 5;', new_str: 'export const v5={a:5}' } }),
      () => ({ tool: 'edit', args: { path: world.outside, old_str: 'export const out = 1;', new_str: "export const out = {o:'1'}" } }),
      () => ({ tool: 'edit', args: { path: at('app.py'), old_str: 'x = 1', new_str: 'x=[1,2]' } }),
      () => ({ text: 'done' }),
    ];
    const { run, requests, errors } = await session(project, script);
    assert.deepEqual(errors, [], `the script failed; Copilot said:\n${run.stderr.slice(-3000)}`);
    const results = requests.at(-1)?.toolResults ?? [];
    assert.equal(results.length, 9, JSON.stringify(results.map((r) => r.slice(0, 300))));
    const [edit, copyEdit, create, syntax, big, crlf, bigCrlfResult, outside, config] = results as string[];

    // The rewritten call is the model's own in the transcript; the tool result is Copilot's alone.
    assert.equal(seen[0]?.new_str, 'export const a = { b: 1, c: "x" };');
    assert.equal(formatboxNotes(edit!), '', edit);
    assert.match(copyEdit!, /updated with changes/, copyEdit);
    assert.equal(readFileSync(at('a.ts'), 'utf8'), 'export const a = { b: 1, c: "y" };\n');
    assert.equal(seen[2]?.file_text, 'export function f(a, b) {\n\treturn a + b;\n}\n');
    assert.equal(readFileSync(at('b.ts'), 'utf8'), 'export function f(a, b) {\n\treturn a + b;\n}\n');
    assert.equal(formatboxNotes(create!), '', create);
    // A syntax error passes through and is said once, after the write.
    assert.equal(readFileSync(at('bad.ts'), 'utf8'), 'export const ok = (;\n');
    assert.match(syntax!, /formatbox: formatter failed \(biome[^)]*\): bad\.ts/);
    // A 2,000-line file: only the edited line is rewritten.
    assert.equal(seen[3]?.new_str, 'export const v1000 = { a: 1 };');
    assert.equal(formatboxNotes(big!), '', big);
    assert.equal(readFileSync(at('big.ts'), 'utf8'), BIG.replace('export const v1000 = 1000;', 'export const v1000 = { a: 1 };'));
    // CRLF: Biome writes LF, but Copilot writes an edit with the file's own line endings, so the
    // rewrite cannot give F; the post-tool hook finishes it and says so, bounded.
    assert.equal(readFileSync(at('crlf.ts'), 'utf8'), CRLF.replace(/\r\n/g, '\n').replace('export const c = 1;', 'export const c = { x: 1 };'));
    assert.match(crlf!, /formatbox: formatted \(biome [\d.]+, wasm\): crlf\.ts/);
    // A 2,000-line CRLF file: rewriting every line break would fill the transcript; it passes
    // through, is formatted after the write, and the model gets a bounded note.
    assert.equal(readFileSync(at('bigcrlf.ts'), 'utf8'), BIG.replace('export const v5 = 5;', 'export const v5 = { a: 5 };'));
    assert.match(bigCrlfResult!, /formatbox: formatted \(biome [\d.]+, wasm\): bigcrlf\.ts/);
    assert.equal(boundBreach(formatboxNotes(bigCrlfResult!), MAX_DIFF_CHARS), undefined);
    // Outside the project: formatbox says nothing and writes nothing.
    assert.equal(formatboxNotes(outside!), '', outside);
    assert.doesNotMatch(readFileSync(world.outside, 'utf8'), /o: "1"/);
    assert.match(config!, /formatbox: formatter failed \(ruff [\d.]+, wasm\): app\.py: invalid project config/);
    assert.equal(readFileSync(at('app.py'), 'utf8'), 'x=[1,2]\n');
    for (const result of results) assert.equal(boundBreach(formatboxNotes(result), MAX_DIFF_CHARS), undefined);
    const own = edit!.length;
    console.log(`copilot before-write: ${formatboxNotes(edit!).length} formatbox chars per edit (tool result ${own} chars, all Copilot's)`);
  });

  it('after the write (post-tool hook alone): the next request holds the formatted text, a copying edit applies', async () => {
    const project = world.project('after');
    const hooks = join(world.env.HOME as string, '.copilot', 'hooks', 'formatbox.json');
    const full = readFileSync(hooks, 'utf8');
    const config = JSON.parse(full);
    delete config.hooks.preToolUse;
    writeFileSync(hooks, JSON.stringify(config));
    try {
      const script: ScriptStep[] = [
        () => ({ tool: 'edit', args: { path: join(project, 'a.ts'), old_str: 'export const a = { b: 1 };', new_str: "export const a = {b:1,c:'x'}" } }),
        (r) => {
          const text = formattedEditText(r.toolResults[0] ?? '');
          if (!text) throw new Error(`no formatted text in the tool result: ${r.toolResults[0]}`);
          return { tool: 'edit', args: { path: join(project, 'a.ts'), old_str: text, new_str: text.replace('"x"', '"y"') } };
        },
        () => ({ text: 'done' }),
      ];
      const { run, requests, errors } = await session(project, script);
      assert.deepEqual(errors, [], `the script failed; Copilot said:\n${run.stderr.slice(-3000)}`);
      const results = requests.at(-1)?.toolResults ?? [];
      assert.equal(results.length, 2);
      assert.equal(formattedEditText(results[0]!), 'export const a = { b: 1, c: "x" };');
      assert.match(results[1]!, /updated with changes/);
      assert.equal(formatboxNotes(results[1]!), '', 'the copy is formatted already');
      assert.equal(readFileSync(join(project, 'a.ts'), 'utf8'), 'export const a = { b: 1, c: "y" };\n');
      const notes = formatboxNotes(results[0]!);
      console.log(`copilot after-write: ${results[0]!.length - notes.length} chars of Copilot's own (with its hook header), ${notes.length} formatbox chars per edit`);
    } finally {
      writeFileSync(hooks, full);
    }
  });
});
