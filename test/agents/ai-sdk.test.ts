// formatbox/ai-sdk with the real `ai` package: streamText drives formatbox's edit, write and
// apply_patch tools (over a Node runtime) through @ai-sdk/openai-compatible against a scripted Chat
// Completions model on 127.0.0.1 (openai-server.ts). Each tool result, as the next request holds
// it, says what is on disk; a follow-up that copies it succeeds; a syntax error, a path outside the
// project, a 2,000-line file, a CRLF file and an invalid config never end the session and stay
// bounded. Then the universal variant in workerd (Cloudflare's runtime): the same tools over the
// engine and an in-memory file port give the answers and files the Node runtime gives.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stepCountIs, streamText } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { formatboxTools } from '../../src/agents/ai-sdk/index.js';
import { createRuntime } from '../../src/node/runtime.js';
import { BUILTIN_WASM, resolvePackageFile } from '../../src/node/builtins.js';
import { formattedEditText, startScriptedModel, type ScriptStep } from './openai-server.js';
import { bundleForHost, resultsIn, runWorkerd } from '../runtimes/hosts.js';

const MAX_DIFF_CHARS = 2000;
const LINE_ALLOWANCE = 600;
// The first format compiles Biome's wasm; on a loaded shared machine that can pass the default 10 s.
const LIMITS = { timeoutMs: 60_000 };
const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'fb-ai-sdk-'));
  dirs.push(root);
  mkdirSync(join(root, '.git'));
  for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
  return root;
}

function bigFile(functions: number): string {
  return Array.from({ length: functions }, (_, i) => `export function f${i}(a: number): number {\n  return a + ${i};\n}\n`).join('');
}

const BIOME = '{ "formatter": { "indentStyle": "space" } }\n';
const BLOCK = '\n' + Array.from({ length: 400 }, (_, i) => `const v${i}={k:${i},s:'x'}`).join('\n');

test('AI SDK streamText with formatbox tools: each result says what is on disk, follow-ups succeed, nothing ends the session', { timeout: 120_000 }, async () => {
  const root = project({
    'biome.json': BIOME,
    'a.ts': 'export const a = 1;\n',
    'c.ts': 'export const c = 1;\n',
    'big.ts': bigFile(667), // 2,001 lines
    'crlf.ts': 'export const e = 1;\r\nexport const f = 2;\r\n',
  });
  const call = (tool: string, args: Record<string, unknown>): ScriptStep => () => ({ tool, args });
  const steps: Array<[string, ScriptStep]> = [
    ['edit', call('edit', { path: 'a.ts', old_string: 'export const a = 1;', new_string: 'export const a = {b:1,c:[2]};' })],
    // The follow-up copies the text the model was told is on disk.
    ['follow-up edit', (request) => {
      const onDisk = formattedEditText(request.toolResults[0] ?? '');
      if (onDisk === undefined) throw new Error(`no edit block in ${request.toolResults[0]}`);
      return { tool: 'edit', args: { path: 'a.ts', old_string: onDisk, new_string: onDisk.replace('[2]', '[2, 3]') } };
    }],
    ['write', call('write', { path: 'b.ts', content: 'export const b={x:1}\n' })],
    ['patch', call('apply_patch', { patch: '*** Begin Patch\n*** Update File: c.ts\n@@\n-export const c = 1;\n+export const c = {d:[1,2]};\n*** End Patch\n' })],
    ['syntax error', call('write', { path: 'bad.ts', content: 'export const = ;\n' })],
    ['outside', call('write', { path: '../o.ts', content: 'export const o={o:1}\n' })],
    ['2,000-line file', call('edit', { path: 'big.ts', old_string: 'return a + 7;', new_string: `return a;${BLOCK}` })],
    ['crlf', call('edit', { path: 'crlf.ts', old_string: 'export const f = 2;', new_string: 'export const f = {g:2};' })],
    ['invalid config', call('write', { path: 'biome.json', content: '{ "formatter": { "indentStyle": "sideways" } }\n' })],
    ['edit under the invalid config', call('edit', { path: 'a.ts', old_string: 'c: [2, 3]', new_string: 'c:[2,3,4]' })],
  ];
  const model = await startScriptedModel(steps.map(([, step]) => step));
  const runtime = createRuntime({ root, limits: LIMITS });
  try {
    const provider = createOpenAICompatible({ name: 'scripted', baseURL: model.baseUrl, apiKey: 'test' });
    // The scripted server streams (as agents call models); streamText is the AI SDK's streaming loop.
    const result = streamText({ model: provider.chatModel('scripted'), tools: formatboxTools(runtime), stopWhen: stepCountIs(steps.length + 2), prompt: 'Follow the plan.' });
    assert.equal(await result.text, 'done');
    assert.deepEqual(model.errors, []);
  } finally {
    await runtime.close();
    await model.close();
  }
  // The last request holds every tool result, in order: what the model was told after each step.
  const told = new Map(steps.map(([name], i) => [name, model.scripted().at(-1)!.toolResults[i] ?? '']));
  const dump = () => [...told].map(([name, text]) => `--- ${name}:\n${text.slice(0, 800)}`).join('\n');
  const file = (name: string) => readFileSync(join(root, name), 'utf8');

  assert.ok(told.get('edit')!.includes('<<<\nexport const a = { b: 1, c: [2] };\n>>>'), dump());
  console.log(`edit: the model was told ${told.get('edit')!.length} characters`);
  assert.ok(!/error/i.test(told.get('follow-up edit')!), dump());
  assert.equal(file('b.ts'), 'export const b = { x: 1 };\n');
  assert.ok(told.get('write')!.includes('+export const b = { x: 1 };'), dump());
  assert.equal(file('c.ts'), 'export const c = { d: [1, 2] };\n');
  assert.ok(told.get('patch')!.includes('+export const c = { d: [1, 2] };'), dump());
  assert.equal(file('bad.ts'), 'export const = ;\n');
  assert.match(told.get('syntax error')!, /failed/, dump());
  assert.ok(told.get('syntax error')!.length <= LINE_ALLOWANCE, dump());
  assert.match(told.get('outside')!, /PATH_REFUSED/, dump());
  assert.equal(existsSync(join(root, '..', 'o.ts')), false);
  assert.ok(file('big.ts').includes('const v399 = { k: 399, s: "x" };'));
  assert.ok(told.get('2,000-line file')!.length <= MAX_DIFF_CHARS + LINE_ALLOWANCE, `${told.get('2,000-line file')!.length} chars`);
  assert.match(told.get('2,000-line file')!, /reread/);
  assert.equal(file('crlf.ts'), 'export const e = 1;\nexport const f = { g: 2 };\n');
  assert.ok(told.get('crlf')!.length <= MAX_DIFF_CHARS + LINE_ALLOWANCE, dump());
  assert.match(file('a.ts'), /c:\[2,3,4\]/);
  assert.match(told.get('edit under the invalid config')!, /biome\.json/, dump());
  assert.ok(told.get('edit under the invalid config')!.length <= LINE_ALLOWANCE, dump());
});

const WORKERD = 'node_modules/.bin/workerd';
const skipWorkerd = existsSync(WORKERD) || process.env['CI'] ? false : 'workerd is not installed';
if (skipWorkerd) console.log(`# skipping the workerd run: ${skipWorkerd}`);

/** The calls both hosts make, in order, over the same files. */
const CALLS: Array<[string, Record<string, unknown>]> = [
  ['edit', { path: 'a.ts', old_string: 'export const a = 1;', new_string: 'export const a = {b:1,c:[2]};' }],
  ['edit', { path: 'a.ts', old_string: 'export const a = { b: 1, c: [2] };', new_string: 'export const a = { b: 1, c: [2, 3] };' }],
  ['write', { path: 'src/b.ts', content: 'export const b={x:1}\n' }],
  ['apply_patch', { patch: '*** Begin Patch\n*** Update File: c.ts\n@@\n-export const c = 1;\n+export const c = {d:[1,2]};\n*** Delete File: gone.ts\n*** End Patch\n' }],
  ['write', { path: 'bad.ts', content: 'export const = ;\n' }],
  ['write', { path: '../o.ts', content: 'export const o={o:1}\n' }],
  ['edit', { path: 'crlf.ts', old_string: 'export const f = 2;', new_string: 'export const f = {g:2};' }],
];
const FILES = { 'biome.json': BIOME, 'a.ts': 'export const a = 1;\n', 'c.ts': 'export const c = 1;\n', 'gone.ts': 'export {};\n', 'crlf.ts': 'export const e = 1;\r\nexport const f = 2;\r\n' };

const WORKER_ENTRY = `
import biome from './biome.wasm';
import { createEngine, createFormatters } from './src/index.ts';
import { formatboxTools } from './src/agents/ai-sdk/index.ts';
export default {
  async test() {
    const files = new Map(Object.entries(${JSON.stringify(FILES)}));
    const port = {
      read: async (path) => (files.has(path) ? files.get(path) : null),
      write: async (path, text) => void files.set(path, text),
      remove: async (path) => void files.delete(path),
    };
    const engine = createEngine({ formatters: createFormatters({ biome }), projectFiles: { 'biome.json': files.get('biome.json') } });
    const tools = formatboxTools({ engine, files: port });
    const answers = [];
    for (const [name, args] of ${JSON.stringify(CALLS)}) {
      try {
        answers.push({ ok: await tools[name].execute(args, { toolCallId: 'call', messages: [] }) });
      } catch (error) {
        answers.push({ error: error.message });
      }
    }
    console.log('RESULTS ' + JSON.stringify({ answers, files: Object.fromEntries([...files].sort()) }));
  },
};
`;

const CONFIG = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = ( services = [ (name = "main", worker = .worker) ] );
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js"), (name = "biome.wasm", wasm = embed "biome.wasm") ],
  compatibilityDate = "2024-09-01",
);
`;

test('formatbox/ai-sdk in workerd over a file port: the answers and files the Node runtime gives', { skip: skipWorkerd, timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fb-ai-sdk-workerd-'));
  dirs.push(dir);
  await bundleForHost(WORKER_ENTRY, join(dir, 'worker.js'), { conditions: ['browser', 'worker', 'workerd'], external: ['./*.wasm'] });
  assert.doesNotMatch(readFileSync(join(dir, 'worker.js'), 'utf8'), /from ["']node:/, 'no node: import in the bundle');
  copyFileSync(resolvePackageFile(BUILTIN_WASM.biome!), join(dir, 'biome.wasm'));
  writeFileSync(join(dir, 'config.capnp'), CONFIG);
  const inWorkerd = resultsIn<{ answers: Array<{ ok?: string; error?: string }>; files: Record<string, string> }>(runWorkerd(dir));

  const root = project(FILES);
  mkdirSync(join(root, 'src'));
  const runtime = createRuntime({ root, limits: LIMITS });
  const answers: Array<{ ok?: string; error?: string }> = [];
  try {
    const tools = formatboxTools(runtime);
    for (const [name, args] of CALLS) {
      try {
        answers.push({ ok: await (tools[name as keyof typeof tools].execute as (a: unknown, o: unknown) => Promise<string>)(args, { toolCallId: 'call', messages: [] }) });
      } catch (error) {
        answers.push({ error: (error as Error).message });
      }
    }
  } finally {
    await runtime.close();
  }
  // Errors are worded by each backend (the port names the path rule, the runtime the root); both refuse.
  assert.deepEqual(inWorkerd.answers.map((a) => a.ok ?? 'error'), answers.map((a) => a.ok ?? 'error'));
  assert.match(inWorkerd.answers[5]!.error!, /PATH_REFUSED/);
  assert.match(answers[5]!.error!, /PATH_REFUSED/);
  for (const [path, text] of Object.entries(inWorkerd.files)) assert.equal(text, readFileSync(join(root, path), 'utf8'), path);
  assert.equal(inWorkerd.files['gone.ts'], undefined);
  assert.equal(inWorkerd.files['a.ts'], 'export const a = { b: 1, c: [2, 3] };\n');
});
