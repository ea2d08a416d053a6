/**
 * The real Gemini CLI (pinned, from the npm registry) in headless mode (`-p`, `--yolo`) against a
 * scripted Gemini API on loopback (`GOOGLE_GEMINI_BASE_URL`, streamGenerateContent SSE), set up by
 * `formatbox init gemini` in an isolated HOME. Before the write, Gemini's own tool result shows the
 * code as written (formatted) and formatbox adds nothing; a follow-up copying that text applies.
 * After the write (a session with only the AfterTool hook), the text on disk arrives in the
 * hook context without angle-bracket markers (Gemini escapes `<` and `>`). Bad input never blocks.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { agentBinary, boundBreach, formatboxNotes, runAgent } from './agent-cache.js';
import { startScriptedGemini } from './gemini-server.js';
import { BIG, CRLF, hookAgentWorld, type HookAgentWorld } from './hook-agent-session.js';
import type { ScriptStep } from './openai-server.js';

const MAX_DIFF_CHARS = 2000;
const { bin, skip } = agentBinary('gemini');

/** The hook context Gemini appended to a tool result (unescaped back), or ''. */
function hookContext(result: string): string {
  const match = /<hook_context>([\s\S]*?)<\/hook_context>/.exec(result);
  return match ? match[1]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>') : '';
}

/** The edit block of the context: the text between the BEGIN and END lines. */
function plainBlockText(context: string): string | undefined {
  return /\nBEGIN\n([\s\S]*?)\nEND(?:\n|$)/.exec(context)?.[1];
}

describe('Gemini CLI with formatbox (BeforeTool and AfterTool hooks)', { skip, timeout: 600_000 }, () => {
  let world: HookAgentWorld;
  let settings: string;
  before(async () => {
    world = await hookAgentWorld('gemini');
    settings = join(world.env.HOME as string, '.gemini', 'settings.json');
    mkdirSync(join(world.env.HOME as string, '.gemini'), { recursive: true });
    // The scripted API speaks the Gemini API with a key; the user's own settings stay beside ours.
    writeFileSync(settings, JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }, null, 2));
  });
  after(async () => {
    await world?.close();
  });

  async function session(project: string, script: ScriptStep[]) {
    writeFileSync(join(world.env.HOME as string, '.gemini', 'trustedFolders.json'), JSON.stringify({ [project]: 'TRUST_FOLDER' }));
    const model = await startScriptedGemini(script);
    try {
      const env = { ...world.env, GOOGLE_GEMINI_BASE_URL: model.baseUrl, GEMINI_API_KEY: 'scripted' };
      const run = await runAgent(bin as string, ['-p', 'make the edits', '--yolo'], { cwd: project, env, timeoutMs: 240_000 });
      return { run, requests: model.scripted(), errors: model.errors };
    } finally {
      await model.close();
    }
  }

  it('formatbox init gemini merges its hooks into settings.json, idempotently', () => {
    const first = execFileSync('formatbox', ['init', 'gemini'], { env: world.env, cwd: world.base, encoding: 'utf8' });
    assert.match(first, /\+.*hook gemini/);
    assert.match(execFileSync('formatbox', ['init', 'gemini'], { env: world.env, cwd: world.base, encoding: 'utf8' }), /already set up/);
    const written = JSON.parse(readFileSync(settings, 'utf8'));
    assert.equal(written.security.auth.selectedType, 'gemini-api-key', 'the user\'s settings stay');
    assert.equal(written.hooks.BeforeTool.length, 1);
    assert.equal(written.hooks.AfterTool.length, 1);
    assert.match(execFileSync('formatbox', ['doctor'], { env: world.env, cwd: world.base, encoding: 'utf8' }), /gemini: \S+settings\.json: BeforeTool and AfterTool/);
  });

  it('before the write: Gemini’s result shows the formatted code, a copying edit applies, bad input does not block', async () => {
    const project = world.project('before');
    const at = (name: string) => join(project, name);
    writeFileSync(at('bigcrlf.ts'), BIG.replace(/\n/g, '\r\n'));
    const script: ScriptStep[] = [
      () => ({ tool: 'replace', args: { file_path: at('a.ts'), old_string: 'export const a = { b: 1 };', new_string: "export const a = {b:1,c:'x'}", instruction: 'add c' } }),
      (r) => {
        const line = r.toolResults[0]?.split('\n').find((l) => l.startsWith('export const a'));
        if (!line) throw new Error(`no written line in the tool result: ${r.toolResults[0]}`);
        return { tool: 'replace', args: { file_path: at('a.ts'), old_string: line, new_string: line.replace('"x"', '"y"'), instruction: 'change c' } };
      },
      () => ({ tool: 'write_file', args: { file_path: at('b.ts'), content: 'export function f(a,b){return a+b}\n' } }),
      () => ({ tool: 'replace', args: { file_path: at('bad.ts'), old_string: 'export const ok = 1;', new_string: 'export const ok = (;', instruction: 'break it' } }),
      () => ({ tool: 'replace', args: { file_path: at('big.ts'), old_string: 'export const v1000 = 1000;', new_string: 'export const v1000={a:1}', instruction: 'object' } }),
      () => ({ tool: 'replace', args: { file_path: at('crlf.ts'), old_string: 'export const c = 1;', new_string: 'export const c={x:1}', instruction: 'object' } }),
      () => ({ tool: 'replace', args: { file_path: at('bigcrlf.ts'), old_string: 'export const v5 = 5;', new_string: 'export const v5={a:5}', instruction: 'object' } }),
      () => ({ tool: 'replace', args: { file_path: world.outside, old_string: 'export const out = 1;', new_string: "export const out = {o:'1'}", instruction: 'object' } }),
      () => ({ tool: 'replace', args: { file_path: at('app.py'), old_string: 'x = 1', new_string: 'x=[1,2]', instruction: 'list' } }),
      () => ({ text: 'done' }),
    ];
    const { run, requests, errors } = await session(project, script);
    assert.deepEqual(errors, [], `the script failed; Gemini said:\n${run.stderr.slice(-3000)}`);
    const results = requests.at(-1)?.toolResults ?? [];
    assert.equal(results.length, 9, JSON.stringify(results.map((r) => r.slice(0, 300))));
    const [edit, copyEdit, write, syntax, big, crlf, bigCrlf, outside, config] = results as string[];

    assert.match(edit!, /Here is the updated code:\nexport const a = \{ b: 1, c: "x" \};/);
    assert.equal(hookContext(edit!), '', 'nothing from formatbox');
    assert.match(copyEdit!, /Successfully modified file/, copyEdit);
    assert.equal(readFileSync(at('a.ts'), 'utf8'), 'export const a = { b: 1, c: "y" };\n');
    assert.match(write!, /export function f\(a, b\) \{\n\treturn a \+ b;\n\}/);
    assert.equal(readFileSync(at('b.ts'), 'utf8'), 'export function f(a, b) {\n\treturn a + b;\n}\n');
    assert.equal(readFileSync(at('bad.ts'), 'utf8'), 'export const ok = (;\n');
    assert.match(hookContext(syntax!), /^formatbox: formatter failed \(biome[^)]*\): bad\.ts/);
    assert.match(big!, /export const v1000 = \{ a: 1 \};/);
    assert.equal(readFileSync(at('big.ts'), 'utf8'), BIG.replace('export const v1000 = 1000;', 'export const v1000 = { a: 1 };'));
    assert.equal(readFileSync(at('crlf.ts'), 'utf8'), CRLF.replace(/\r\n/g, '\n').replace('export const c = 1;', 'export const c = { x: 1 };'));
    assert.equal(readFileSync(at('bigcrlf.ts'), 'utf8'), BIG.replace('export const v5 = 5;', 'export const v5 = { a: 5 };'));
    assert.match(hookContext(bigCrlf!), /^formatbox: formatted \(biome [\d.]+, wasm\): bigcrlf\.ts/);
    assert.equal(hookContext(outside!), '');
    assert.doesNotMatch(readFileSync(world.outside, 'utf8'), /o: "1"/);
    assert.match(hookContext(config!), /^formatbox: formatter failed \(ruff [\d.]+, wasm\): app\.py: invalid project config/);
    for (const result of results) assert.equal(boundBreach(formatboxNotes(hookContext(result)), MAX_DIFF_CHARS), undefined);
    console.log(`gemini before-write: 0 formatbox chars per edit (Gemini's own result ${edit!.length} chars, its hook line included); crlf: ${hookContext(crlf!).length}`);
  });

  it('after the write (AfterTool alone): the context holds the formatted text without angle brackets, a copying edit applies', async () => {
    const project = world.project('after', { 'biome.json': '{}\n', 'a.ts': 'export const a = { b: 1 };\n', 'g.ts': 'export const g: number[] = [];\n' });
    const full = readFileSync(settings, 'utf8');
    const config = JSON.parse(full);
    delete config.hooks.BeforeTool;
    writeFileSync(settings, JSON.stringify(config));
    try {
      const script: ScriptStep[] = [
        () => ({ tool: 'replace', args: { file_path: join(project, 'a.ts'), old_string: 'export const a = { b: 1 };', new_string: "export const a = {b:1,c:'x'}", instruction: 'add c' } }),
        (r) => {
          const text = plainBlockText(hookContext(r.toolResults[0] ?? ''));
          if (!text) throw new Error(`no formatted text in the hook context: ${r.toolResults[0]}`);
          return { tool: 'replace', args: { file_path: join(project, 'a.ts'), old_string: text, new_string: text.replace('"x"', '"y"'), instruction: 'change c' } };
        },
        () => ({ tool: 'replace', args: { file_path: join(project, 'g.ts'), old_string: 'export const g: number[] = [];', new_string: 'export const g:Array<number>=[1]', instruction: 'generic' } }),
        () => ({ text: 'done' }),
      ];
      const { run, requests, errors } = await session(project, script);
      assert.deepEqual(errors, [], `the script failed; Gemini said:\n${run.stderr.slice(-3000)}`);
      const results = requests.at(-1)?.toolResults ?? [];
      assert.equal(results.length, 3);
      const context = hookContext(results[0]!);
      assert.equal(plainBlockText(context), 'export const a = { b: 1, c: "x" };');
      assert.match(results[1]!, /Successfully modified file/);
      assert.equal(hookContext(results[1]!), '', 'the copy is formatted already');
      assert.equal(readFileSync(join(project, 'a.ts'), 'utf8'), 'export const a = { b: 1, c: "y" };\n');
      // Text holding < or > would reach the model escaped: the lines to reread instead.
      assert.match(hookContext(results[2]!), /reread lines 1 of g\.ts/);
      assert.doesNotMatch(results[2]!, /&lt;|&gt;/);
      console.log(`gemini after-write: ${context.length} formatbox chars per edit (+ Gemini's <hook_context> wrapper)`);
    } finally {
      writeFileSync(settings, full);
    }
  });
});
