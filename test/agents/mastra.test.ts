// formatbox/mastra with the real @mastra/core: an Agent with a LocalFilesystem workspace (its own
// edit_file and write_file tools write the files) and formatbox's output processor, on a scripted
// Chat Completions model on 127.0.0.1 (openai-server.ts, through Mastra's own OpenAI-compatible model config). Each
// tool result, as the next request holds it, says what is on disk after formatting; a follow-up
// that copies it succeeds; a syntax error, a path outside the workspace, a 2,000-line file, a CRLF
// file and an invalid config never end the run and stay bounded.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '@mastra/core/agent';
import { LocalFilesystem, Workspace } from '@mastra/core/workspace';
import { formatboxProcessor } from '../../src/agents/mastra/index.js';
import { formattedEditText, startScriptedModel, type ScriptStep } from './openai-server.js';

const MAX_DIFF_CHARS = 2000;
const LINE_ALLOWANCE = 600;
// The first format compiles Biome's wasm; on a loaded shared machine that can pass the default 10 s.
const LIMITS = { timeoutMs: 60_000 };
const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function bigFile(functions: number): string {
  return Array.from({ length: functions }, (_, i) => `export function f${i}(a: number): number {\n  return a + ${i};\n}\n`).join('');
}

test('Mastra agent with a workspace and formatbox\'s processor: each edit result says what is on disk', { timeout: 120_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'fb-mastra-'));
  dirs.push(root);
  mkdirSync(join(root, '.git'));
  const files: Record<string, string> = {
    'biome.json': '{ "formatter": { "indentStyle": "space" } }\n',
    'a.ts': 'export const a = 1;\n',
    'big.ts': bigFile(667), // 2,001 lines
    'crlf.ts': 'export const e = 1;\r\nexport const f = 2;\r\n',
  };
  for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
  const block = '\n' + Array.from({ length: 400 }, (_, i) => `const v${i}={k:${i},s:'x'}`).join('\n');
  const EDIT = 'mastra_workspace_edit_file';
  const WRITE = 'mastra_workspace_write_file';
  const call = (tool: string, args: Record<string, unknown>): ScriptStep => () => ({ tool, args });
  const steps: Array<[string, ScriptStep]> = [
    ['read', call('mastra_workspace_read_file', { path: 'a.ts' })],
    ['edit', call(EDIT, { path: 'a.ts', old_string: 'export const a = 1;', new_string: 'export const a = {b:1,c:[2]};' })],
    ['follow-up edit', (request) => {
      const onDisk = formattedEditText(request.toolResults[1] ?? '');
      if (onDisk === undefined) throw new Error(`no edit block in ${request.toolResults[1]}`);
      return { tool: EDIT, args: { path: 'a.ts', old_string: onDisk, new_string: onDisk.replace('[2]', '[2, 3]') } };
    }],
    ['write', call(WRITE, { path: 'b.ts', content: 'export const b={x:1}\n' })],
    ['syntax error', call(WRITE, { path: 'bad.ts', content: 'export const = ;\n' })],
    ['outside', call(WRITE, { path: '../o.ts', content: 'export const o={o:1}\n' })],
    ['read big', call('mastra_workspace_read_file', { path: 'big.ts', limit: 5 })],
    ['2,000-line file', call(EDIT, { path: 'big.ts', old_string: 'return a + 7;', new_string: `return a;${block}` })],
    ['read crlf', call('mastra_workspace_read_file', { path: 'crlf.ts' })],
    ['crlf', call(EDIT, { path: 'crlf.ts', old_string: 'export const f = 2;', new_string: 'export const f = {g:2};' })],
    ['invalid config', call(WRITE, { path: 'biome.json', content: '{ "formatter": { "indentStyle": "sideways" } }\n', overwrite: true })],
    ['edit under the invalid config', call(EDIT, { path: 'a.ts', old_string: 'c: [2, 3]', new_string: 'c:[2,3,4]' })],
  ];
  const model = await startScriptedModel(steps.map(([, step]) => step));
  const formatbox = formatboxProcessor({ root, limits: LIMITS });
  try {
    const workspace = new Workspace({ filesystem: new LocalFilesystem({ basePath: root }) });
    const agent = new Agent({ id: 'coder', name: 'coder', instructions: 'Edit files.', model: { providerId: 'scripted', modelId: 'scripted', url: model.baseUrl, apiKey: 'test', api: 'chat' }, workspace, outputProcessors: [formatbox] });
    const stream = await agent.stream('Follow the plan.', { maxSteps: steps.length + 2 });
    assert.equal(await stream.text, 'done');
    assert.deepEqual(model.errors, []);
  } finally {
    await formatbox.close();
    await model.close();
  }
  const last = model.scripted().at(-1)!;
  const told = new Map(steps.map(([name], i) => [name, last.toolResults[i] ?? '']));
  const dump = () => [...told].map(([name, text]) => `--- ${name}:\n${text.slice(0, 800)}`).join('\n');
  const file = (name: string) => readFileSync(join(root, name), 'utf8');
  const formatboxPart = (text: string) => text.slice(Math.max(0, text.indexOf('formatbox: ')));

  assert.ok(told.get('edit')!.includes('<<<\nexport const a = { b: 1, c: [2] };\n>>>'), dump());
  console.log(`edit: the model was told ${told.get('edit')!.length} characters (${formatboxPart(told.get('edit')!).length} from formatbox)`);
  if (process.env.FORMATBOX_SHOW) console.log(dump());
  assert.ok(!/error|failed/i.test(told.get('follow-up edit')!), dump());
  assert.equal(file('b.ts'), 'export const b = { x: 1 };\n');
  assert.ok(told.get('write')!.includes('+export const b = { x: 1 };'), dump());
  assert.equal(file('bad.ts'), 'export const = ;\n');
  assert.match(told.get('syntax error')!, /failed/, dump());
  assert.ok(formatboxPart(told.get('syntax error')!).length <= LINE_ALLOWANCE, dump());
  assert.equal(existsSync(join(root, '..', 'o.ts')), false);
  assert.doesNotMatch(told.get('outside')!, /formatbox/, dump());
  assert.ok(file('big.ts').includes('const v399 = { k: 399, s: "x" };'));
  assert.ok(formatboxPart(told.get('2,000-line file')!).length <= MAX_DIFF_CHARS + LINE_ALLOWANCE, `${told.get('2,000-line file')!.length} chars`);
  assert.match(told.get('2,000-line file')!, /reread/);
  assert.equal(file('crlf.ts'), 'export const e = 1;\nexport const f = { g: 2 };\n');
  assert.ok(formatboxPart(told.get('crlf')!).length <= MAX_DIFF_CHARS + LINE_ALLOWANCE, dump());
  assert.match(file('a.ts'), /c:\[2,3,4\]/);
  assert.match(told.get('edit under the invalid config')!, /biome\.json/, dump());
  assert.ok(formatboxPart(told.get('edit under the invalid config')!).length <= LINE_ALLOWANCE, dump());
});
