// formatbox/claude-agent-sdk with the real @anthropic-ai/claude-agent-sdk (the devDependency, which
// runs its own Claude Code build) and a scripted model on 127.0.0.1 (anthropic-server.ts). One
// session: an unformatted Edit and a Write are formatted before the write (the tool writes F; the
// next request holds the text on disk; a follow-up that copies it succeeds), an edit whose file the
// formatter also changes elsewhere is formatted after the write, and a syntax error, a file outside
// the project, a 2,000-line file, a CRLF file and an invalid config never block and stay bounded.
// A second session under `default` permissions shows the hooks grant nothing: the user's
// canUseTool is still asked, with the rewritten input.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query, type Options } from '@anthropic-ai/claude-agent-sdk';
import { formatboxHooks } from '../../src/agents/claude-agent-sdk/index.js';
import { lastToolFailed, lastUserText, startScriptedModel, type MessagesRequest, type Turn } from './anthropic-server.js';

const MAX_DIFF_CHARS = 2000; // the default budget
/** The receipt line and the words around it. */
const LINE_ALLOWANCE = 600;
// The first format compiles Biome's wasm; on a loaded shared machine that can pass the default 10 s.
const LIMITS = { timeoutMs: 60_000 };
const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** 3 lines per function: `functions` × 3 lines. */
function bigFile(functions: number): string {
  return Array.from({ length: functions }, (_, i) => `export function f${i}(a: number): number {\n  return a + ${i};\n}\n`).join('');
}

interface Session {
  code: 'ok' | string;
  /** Per named action: the next model request (which shows that action's result). */
  after: Map<string, MessagesRequest>;
}

/** Runs one query() with the actions as the model's tool calls, in order, then a final text. */
async function runSession(root: string, actions: Array<[string, Turn]>, options: Partial<Options>): Promise<Session> {
  const home = tempDir('fb-sdk-home-');
  const seen = new Map<string, MessagesRequest>();
  let next = 0;
  const model = await startScriptedModel((request) => {
    if (next > 0) seen.set(actions[next - 1]![0], request);
    return next < actions.length ? actions[next++]![1] : undefined;
  });
  try {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'test', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' };
    let code = 'no result';
    for await (const message of query({ prompt: 'Follow the plan.', options: { cwd: root, env, settingSources: [], ...options } })) {
      if (message.type === 'result') code = message.subtype === 'success' ? 'ok' : message.subtype;
    }
    return { code, after: seen };
  } finally {
    await model.close();
  }
}

/** What formatbox told the model after an action (its PostToolUse context). */
function formatboxPart(told: string): string {
  const at = told.indexOf('formatbox: ');
  return at < 0 ? '' : told.slice(at);
}

test('Claude Agent SDK with formatbox hooks: formatted before the write, the next request holds the text on disk, nothing blocks', { timeout: 240_000 }, async () => {
  const root = tempDir('fb-sdk-proj-');
  const outside = tempDir('fb-sdk-outside-');
  mkdirSync(join(root, '.git'));
  writeFileSync(join(root, 'biome.json'), '{ "formatter": { "indentStyle": "space" } }\n');
  writeFileSync(join(root, 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'c.ts'), 'export const c={c:1}\nexport const d = 2;\n');
  writeFileSync(join(root, 'big.ts'), bigFile(667)); // 2,001 lines
  writeFileSync(join(root, 'crlf.ts'), 'export const e = 1;\r\nexport const f = 2;\r\n');
  writeFileSync(join(outside, 'biome.json'), '{}\n');
  const file = (name: string) => join(root, name);
  const block = '\n' + Array.from({ length: 400 }, (_, i) => `const v${i}={k:${i},s:'x'}`).join('\n');
  const actions: Array<[string, Turn]> = [
    ['read', { tool: 'Read', input: { file_path: file('a.ts') } }],
    ['edit', { tool: 'Edit', input: { file_path: file('a.ts'), old_string: 'export const a = 1;', new_string: 'export const a = {b:1,c:[2]};' } }],
    ['follow-up edit', { tool: 'Edit', input: { file_path: file('a.ts'), old_string: 'export const a = { b: 1, c: [2] };', new_string: 'export const a = { b: 1, c: [2, 3] };' } }],
    ['write', { tool: 'Write', input: { file_path: file('b.ts'), content: 'export const b={x:1}\n' } }],
    ['read c', { tool: 'Read', input: { file_path: file('c.ts') } }],
    ['edit with changes elsewhere', { tool: 'Edit', input: { file_path: file('c.ts'), old_string: 'export const d = 2;', new_string: 'export const d = [3];' } }],
    ['syntax error', { tool: 'Write', input: { file_path: file('bad.ts'), content: 'export const = ;\n' } }],
    ['outside', { tool: 'Write', input: { file_path: join(outside, 'o.ts'), content: 'export const o={o:1}\n' } }],
    ['read big', { tool: 'Read', input: { file_path: file('big.ts') } }],
    ['2,000-line file', { tool: 'Edit', input: { file_path: file('big.ts'), old_string: 'return a + 7;', new_string: `return a;${block}` } }],
    ['read crlf', { tool: 'Read', input: { file_path: file('crlf.ts') } }],
    ['crlf', { tool: 'Edit', input: { file_path: file('crlf.ts'), old_string: 'export const f = 2;', new_string: 'export const f = {g:2};' } }],
    ['invalid config', { tool: 'Write', input: { file_path: file('biome.json'), content: '{ "formatter": { "indentStyle": "sideways" } }\n' } }],
    ['edit under the invalid config', { tool: 'Edit', input: { file_path: file('a.ts'), old_string: 'c: [2, 3]', new_string: 'c:[2,3,4]' } }],
  ];
  const formatbox = formatboxHooks({ root, limits: LIMITS });
  // Which calls were rewritten before the write (the hook's own answers, by file).
  const rewritten: string[] = [];
  const pre = formatbox.hooks.PreToolUse[0]!.hooks[0]!;
  const hooks = { ...formatbox.hooks, PreToolUse: [{ matcher: 'Edit|MultiEdit|Write', hooks: [async (...args: Parameters<typeof pre>) => {
    const answer = await pre(...args);
    if ('hookSpecificOutput' in answer && answer.hookSpecificOutput.hookEventName === 'PreToolUse') rewritten.push(String(answer.hookSpecificOutput.updatedInput.file_path).slice(root.length + 1));
    return answer;
  }] }] };
  let session: Session;
  try {
    session = await runSession(root, actions, { hooks, permissionMode: 'acceptEdits', additionalDirectories: [outside] });
  } finally {
    await formatbox.close();
  }
  assert.equal(session.code, 'ok');
  // Before the write where a verified rewrite exists (c.ts: one edit widened over the other change);
  // after it for a CRLF file or where the formatter could not run (bad.ts, a.ts under the invalid
  // config); nothing where the edit is already formatted (the follow-up).
  assert.deepEqual(rewritten, ['a.ts', 'b.ts', 'c.ts', 'big.ts']);
  const dump = () => [...session.after].map(([name, request]) => `--- after ${name}:\n${lastUserText(request).slice(0, 1200)}`).join('\n');
  const at = (name: string) => {
    const request = session.after.get(name);
    assert.ok(request, `no request after ${name}\n${dump()}`);
    return { text: lastUserText(request), failed: lastToolFailed(request) };
  };

  // 1. Before the write: the tool wrote F itself, so Claude Code adds no "hook modified" note; the
  //    model is told its edit as it is on disk.
  const edit = at('edit');
  assert.equal(edit.failed, false, dump());
  assert.ok(edit.text.includes('<<<\nexport const a = { b: 1, c: [2] };\n>>>'), dump());
  assert.doesNotMatch(edit.text, /modified|Read the file/i, dump());
  console.log(JSON.stringify(formatboxPart(edit.text)));
  console.log(`edit: the model was told ${edit.text.length} characters (${formatboxPart(edit.text).length} from formatbox)`);
  // 2. The follow-up that copies it succeeds.
  assert.equal(at('follow-up edit').failed, false, dump());
  // 3. A write: the tool wrote F; the model is told the formatter's change to what it sent.
  const write = at('write');
  assert.equal(write.failed, false, dump());
  assert.ok(write.text.includes('+export const b = { x: 1 };'), dump());
  assert.equal(readFileSync(file('b.ts'), 'utf8'), 'export const b = { x: 1 };\n');
  // 4. The formatter changes text outside the edit: the rewrite covers both, the other change told as a diff.
  const elsewhere = at('edit with changes elsewhere');
  assert.equal(elsewhere.failed, false, dump());
  assert.equal(readFileSync(file('c.ts'), 'utf8'), 'export const c = { c: 1 };\nexport const d = [3];\n');
  assert.ok(elsewhere.text.includes('+export const c = { c: 1 };'), dump());
  // 5. A syntax error: written as sent, told in one line.
  const syntax = at('syntax error');
  assert.equal(readFileSync(file('bad.ts'), 'utf8'), 'export const = ;\n');
  assert.match(formatboxPart(syntax.text), /failed/, dump());
  assert.ok(formatboxPart(syntax.text).length <= LINE_ALLOWANCE, dump());
  // 6. Outside the project: untouched, nothing said.
  assert.equal(readFileSync(join(outside, 'o.ts'), 'utf8'), 'export const o={o:1}\n');
  assert.equal(formatboxPart(at('outside').text), '', dump());
  // 7. A 2,000-line file with a 400-line edit: bounded (a reread hint, not the lines).
  const big = at('2,000-line file');
  assert.equal(big.failed, false, dump());
  assert.ok(readFileSync(file('big.ts'), 'utf8').includes('const v399 = { k: 399, s: "x" };'));
  assert.ok(formatboxPart(big.text).length > 0 && formatboxPart(big.text).length <= MAX_DIFF_CHARS + LINE_ALLOWANCE, `${formatboxPart(big.text).length} chars`);
  assert.match(formatboxPart(big.text), /reread/);
  // 8. A CRLF file (Biome writes LF): done, and what the model is told stays bounded.
  const crlf = at('crlf');
  assert.equal(crlf.failed, false, dump());
  assert.equal(readFileSync(file('crlf.ts'), 'utf8'), 'export const e = 1;\nexport const f = { g: 2 };\n');
  assert.ok(formatboxPart(crlf.text).length <= MAX_DIFF_CHARS + LINE_ALLOWANCE, dump());
  // 9. An invalid config: the next edit stands as written, told why in a line naming the config.
  const invalid = at('edit under the invalid config');
  assert.equal(invalid.failed, false, dump());
  assert.match(readFileSync(file('a.ts'), 'utf8'), /c:\[2,3,4\]/);
  assert.match(formatboxPart(invalid.text), /biome\.json/, dump());
  assert.ok(formatboxPart(invalid.text).length <= LINE_ALLOWANCE, dump());
});

test('Claude Agent SDK under default permissions: the hooks grant nothing; canUseTool is asked with the rewritten input', { timeout: 120_000 }, async () => {
  const root = tempDir('fb-sdk-perm-');
  mkdirSync(join(root, '.git'));
  writeFileSync(join(root, 'biome.json'), '{}\n');
  writeFileSync(join(root, 'a.ts'), 'export const a = 1;\n');
  const asked: Array<{ tool: string; input: Record<string, unknown> }> = [];
  const formatbox = formatboxHooks({ root, limits: LIMITS });
  let session: Session;
  try {
    session = await runSession(root, [
      ['edit', { tool: 'Edit', input: { file_path: join(root, 'a.ts'), old_string: 'export const a = 1;', new_string: 'export const a = {b:1};' } }],
      ['denied write', { tool: 'Write', input: { file_path: join(root, 'n.ts'), content: 'export const n={n:1}\n' } }],
    ], {
      hooks: formatbox.hooks,
      permissionMode: 'default',
      canUseTool: async (tool, input) => {
        asked.push({ tool, input });
        return tool === 'Write' ? { behavior: 'deny', message: 'not now' } : { behavior: 'allow', updatedInput: input };
      },
    });
  } finally {
    await formatbox.close();
  }
  assert.equal(session.code, 'ok');
  assert.deepEqual(asked.map((a) => a.tool), ['Edit', 'Write'], 'the user was asked for both');
  assert.equal(asked[0]!.input.new_string, 'export const a = { b: 1 };', 'asked with the rewritten input');
  assert.equal(readFileSync(join(root, 'a.ts'), 'utf8'), 'export const a = { b: 1 };\n');
  assert.throws(() => readFileSync(join(root, 'n.ts')), /ENOENT/, 'a denied write stays denied');
});
