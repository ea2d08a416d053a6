// formatbox/openai-agents with the real @openai/agents: a Runner on a scripted Responses API model on
// 127.0.0.1 (openai-server.ts) calls the hosted apply_patch tool (formatbox's Editor) and formatbox's
// edit/write function tools. What each call's output tells the model, as the next request holds it,
// is what is on disk; a follow-up that copies it succeeds; a syntax error, a path outside the
// project, a 2,000-line file, a CRLF file and an invalid config never end the run and stay bounded.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, OpenAIProvider, Runner, setTracingDisabled } from '@openai/agents';
import { formatboxTools } from '../../src/agents/openai-agents/index.js';
import { createRuntime } from '../../src/node/runtime.js';
import { formattedEditText, startScriptedModel, type ScriptStep } from './openai-server.js';

const MAX_DIFF_CHARS = 2000;
const LINE_ALLOWANCE = 600;
// The first format compiles Biome's wasm; on a loaded shared machine that can pass the default 10 s.
const LIMITS = { timeoutMs: 60_000 };
const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
setTracingDisabled(true);

function bigFile(functions: number): string {
  return Array.from({ length: functions }, (_, i) => `export function f${i}(a: number): number {\n  return a + ${i};\n}\n`).join('');
}

test('OpenAI Agents with formatbox as the apply_patch editor and edit/write tools: each output says what is on disk', { timeout: 120_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'fb-openai-agents-'));
  dirs.push(root);
  mkdirSync(join(root, '.git'));
  const files: Record<string, string> = {
    'biome.json': '{ "formatter": { "indentStyle": "space" } }\n',
    'a.ts': 'export const a = 1;\n',
    'gone.ts': 'export {};\n',
    'big.ts': bigFile(667), // 2,001 lines
    'crlf.ts': 'export const e = 1;\r\nexport const f = 2;\r\n',
  };
  for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
  const block = '\n' + Array.from({ length: 400 }, (_, i) => `const v${i}={k:${i},s:'x'}`).join('\n');
  const call = (tool: string, args: Record<string, unknown>): ScriptStep => () => ({ tool, args });
  const steps: Array<[string, ScriptStep]> = [
    ['patch', () => ({ applyPatch: { type: 'update_file', path: 'a.ts', diff: '@@\n-export const a = 1;\n+export const a = {b:1,c:[2]};\n' } })],
    // The follow-up copies the line the model was told is on disk (the patch as it is on disk).
    ['follow-up edit', (request) => {
      const onDisk = formattedEditText(request.toolResults[0] ?? '')?.split('\n').find((line) => line.startsWith('+'))?.slice(1);
      if (onDisk === undefined) throw new Error(`no patch block in ${request.toolResults[0]}`);
      return { tool: 'edit', args: { path: 'a.ts', old_string: onDisk, new_string: onDisk.replace('[2]', '[2, 3]') } };
    }],
    ['write', call('write', { path: 'b.ts', content: 'export const b={x:1}\n' })],
    ['create', () => ({ applyPatch: { type: 'create_file', path: 'c.ts', diff: '+export const c={d:[1,2]}\n' } })],
    ['delete', () => ({ applyPatch: { type: 'delete_file', path: 'gone.ts' } })],
    ['syntax error', call('write', { path: 'bad.ts', content: 'export const = ;\n' })],
    ['outside', () => ({ applyPatch: { type: 'create_file', path: '../o.ts', diff: '+export const o={o:1}\n' } })],
    ['injected header', () => ({ applyPatch: { type: 'update_file', path: 'a.ts', diff: '@@\n-x\n+y\n*** Delete File: biome.json\n' } })],
    ['2,000-line file', call('edit', { path: 'big.ts', old_string: 'return a + 7;', new_string: `return a;${block}` })],
    ['crlf', () => ({ applyPatch: { type: 'update_file', path: 'crlf.ts', diff: '@@\n export const e = 1;\n-export const f = 2;\n+export const f = {g:2};\n' } })],
    ['invalid config', call('write', { path: 'biome.json', content: '{ "formatter": { "indentStyle": "sideways" } }\n' })],
    ['edit under the invalid config', call('edit', { path: 'a.ts', old_string: 'c: [2, 3]', new_string: 'c:[2,3,4]' })],
  ];
  const model = await startScriptedModel(steps.map(([, step]) => step));
  const runtime = createRuntime({ root, limits: LIMITS });
  try {
    const { applyPatch, edit, write } = formatboxTools(runtime);
    const agent = new Agent({ name: 'coder', instructions: 'Edit files.', model: 'scripted', tools: [applyPatch, edit, write] });
    const runner = new Runner({ modelProvider: new OpenAIProvider({ apiKey: 'test', baseURL: model.baseUrl, useResponses: true }) });
    // The scripted server streams (as agents call models).
    const result = await runner.run(agent, 'Follow the plan.', { maxTurns: steps.length + 2, stream: true });
    await result.completed;
    assert.deepEqual(model.errors, []);
    assert.equal(result.finalOutput, 'done');
  } finally {
    await runtime.close();
    await model.close();
  }
  const last = model.scripted().at(-1)!;
  assert.equal(last.api, 'responses');
  const told = new Map(steps.map(([name], i) => [name, last.toolResults[i] ?? '']));
  const dump = () => [...told].map(([name, text]) => `--- ${name}:\n${text.slice(0, 800)}`).join('\n');
  const file = (name: string) => readFileSync(join(root, name), 'utf8');

  assert.ok(told.get('patch')!.includes('<<<\n*** Begin Patch\n*** Update File: a.ts\n@@\n-export const a = 1;\n+export const a = { b: 1, c: [2] };\n*** End of File\n*** End Patch\n>>>'), dump());
  console.log(`apply_patch: the model was told ${told.get('patch')!.length} characters`);
  assert.ok(!/error|failed/i.test(told.get('follow-up edit')!), dump());
  assert.equal(file('b.ts'), 'export const b = { x: 1 };\n');
  assert.ok(told.get('write')!.includes('+export const b = { x: 1 };'), dump());
  assert.equal(file('c.ts'), 'export const c = { d: [1, 2] };\n');
  assert.ok(told.get('create')!.includes('+export const c = { d: [1, 2] };'), dump());
  assert.equal(existsSync(join(root, 'gone.ts')), false);
  assert.equal(file('bad.ts'), 'export const = ;\n');
  assert.match(told.get('syntax error')!, /failed/, dump());
  assert.ok(told.get('syntax error')!.length <= LINE_ALLOWANCE, dump());
  assert.match(told.get('outside')!, /PATH_REFUSED/, dump());
  assert.equal(existsSync(join(root, '..', 'o.ts')), false);
  assert.match(told.get('injected header')!, /one operation is one file/, dump());
  assert.ok(existsSync(join(root, 'biome.json')));
  assert.ok(file('big.ts').includes('const v399 = { k: 399, s: "x" };'));
  assert.ok(told.get('2,000-line file')!.length <= MAX_DIFF_CHARS + LINE_ALLOWANCE, `${told.get('2,000-line file')!.length} chars`);
  assert.match(told.get('2,000-line file')!, /reread/);
  assert.equal(file('crlf.ts'), 'export const e = 1;\nexport const f = { g: 2 };\n');
  assert.ok(told.get('crlf')!.length <= MAX_DIFF_CHARS + LINE_ALLOWANCE, dump());
  assert.match(file('a.ts'), /c:\[2,3,4\]/);
  assert.match(told.get('edit under the invalid config')!, /biome\.json/, dump());
  assert.ok(told.get('edit under the invalid config')!.length <= LINE_ALLOWANCE, dump());
});
