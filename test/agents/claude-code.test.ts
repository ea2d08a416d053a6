// The real Claude Code CLI (the pinned version .ci/run installs into the agent cache) driven by a
// scripted model on 127.0.0.1 (anthropic-server.ts), set up by `formatbox init claude-code` itself,
// with the command hook and the http hook (SessionStart starts the daemon) in acceptEdits mode
// (the edit formatted before the write: PreToolUse), the command hook in default mode with allow
// rules (no permission granted by formatbox: formatted after the write, PostToolUse) and
// `formatbox mcp`. For each: an unformatted Edit, then the NEXT model request must hold the formatted text; a follow-up
// Edit that copies that text must succeed; a Write is answered with what is on disk; and bad input
// (a syntax error, a file outside the project, a 400-line edit, an invalid config) never blocks the
// session and what the model is told stays within maxDiffChars plus the receipt line.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastToolFailed, lastUserText, type MessagesRequest } from './anthropic-server.js';
import { CLAUDE_CODE_VERSION, findClaude, runClaude, type Step } from './claude.js';
import { cleanUp, freePort, installCopy, isolatedEnv, runCli } from '../cli/built-cli.js';

const claude = findClaude();
const missing = claude === undefined ? `Claude Code ${CLAUDE_CODE_VERSION} is not in the agent cache (.ci/run installs it)` : undefined;
if (missing && process.env.CI) throw new Error(missing);

const MAX_DIFF_CHARS = 2000; // the engine's default
/** The receipt line and the words around it ("formatbox: … The file on disk differs …"). */
const LINE_ALLOWANCE = 600;

const built = claude ? await installCopy() : undefined;
const iso = isolatedEnv();
const dirs: string[] = [];
after(() => cleanUp(iso.runtimeDir, ...(built ? [built.dir] : []), ...dirs));


function bigFile(functions: number): string {
  return Array.from({ length: functions }, (_, i) => `export function f${i}(a: number): number {\n  return a + ${i};\n}\n`).join('');
}

interface Setup {
  root: string;
  home: string;
  outside: string;
  args: string[];
}

type Mode = 'command' | 'http' | 'after-write' | 'mcp';

async function setUp(mode: Mode): Promise<Setup> {
  const root = mkdtempSync(join(tmpdir(), 'fb-cc-proj-'));
  const home = mkdtempSync(join(tmpdir(), 'fb-cc-home-'));
  const outside = mkdtempSync(join(tmpdir(), 'fb-cc-outside-'));
  dirs.push(root, home, outside);
  mkdirSync(join(root, '.git'));
  writeFileSync(join(root, 'biome.json'), '{ "formatter": { "indentStyle": "space" } }\n');
  writeFileSync(join(root, 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'big.ts'), bigFile(1400)); // 4,200 lines
  writeFileSync(join(outside, 'biome.json'), '{}\n');
  // A user who has trusted this workspace (project permissions apply only then).
  writeFileSync(join(home, '.claude.json'), JSON.stringify({ projects: { [root]: { hasTrustDialogAccepted: true } } }));
  const initArgs = mode === 'command' || mode === 'after-write' ? ['--command'] : mode === 'http' ? ['--port', String(await freePort())] : ['--command', '--mcp'];
  const init = await runCli(built!.cli, ['init', 'claude-code', '--project', '--bin', `${process.execPath} ${built!.cli}`, ...initArgs], { env: { ...iso.env, HOME: home }, cwd: root });
  assert.equal(init.code, 0, init.stdout + init.stderr);
  if (mode === 'mcp') {
    // Only the MCP tools format in this run: no hook.
    const settings = JSON.parse(readFileSync(join(root, '.claude', 'settings.json'), 'utf8'));
    delete settings.hooks;
    writeFileSync(join(root, '.claude', 'settings.json'), JSON.stringify(settings));
  }
  if (mode === 'after-write') {
    // Default mode: the user allows edits by rule. formatbox cannot know every rule, so it does
    // not rewrite (a rewrite must not stand in for the user's answer): it formats after the write.
    const settings = JSON.parse(readFileSync(join(root, '.claude', 'settings.json'), 'utf8'));
    settings.permissions = { allow: ['Edit', 'Write'] };
    writeFileSync(join(root, '.claude', 'settings.json'), JSON.stringify(settings));
  }
  return { root, home, outside, args: ['--add-dir', outside, ...(mode === 'mcp' ? ['--mcp-config', join(root, '.mcp.json'), '--strict-mcp-config'] : [])] };
}

/** What formatbox told the model in `told` (the hook's additional context), for size checks. */
function formatboxPart(told: string): string {
  const at = told.indexOf('formatbox: ');
  if (at < 0) return '';
  const end = told.slice(at).search(/\n\n(Pre|Post)ToolUse:/);
  return told.slice(at, end < 0 ? undefined : at + end);
}

const BLOCK = '\n' + Array.from({ length: 400 }, (_, i) => `const v${i}={k:${i},s:'x'}`).join('\n');

/** The actions, named, as tool calls for the hook (Claude Code's own tools) or for formatbox mcp. */
function plan(mode: Mode, setup: Setup): Array<[string, Step]> {
  const file = (name: string) => join(setup.root, name);
  if (mode === 'mcp') {
    const call = (tool: string, input: Record<string, unknown>) => () => ({ tool: `mcp__formatbox__${tool}`, input });
    return [
      // Claude Code defers MCP tools behind ToolSearch: load them first.
      ['tool search', () => ({ tool: 'ToolSearch', input: { query: 'select:mcp__formatbox__edit,mcp__formatbox__write', max_results: 5 } })],
      ['edit', call('edit', { path: 'a.ts', old_string: 'export const a = 1;', new_string: 'export const a = {b:1,c:[2]};' })],
      ['follow-up edit', call('edit', { path: 'a.ts', old_string: 'export const a = { b: 1, c: [2] };', new_string: 'export const a = { b: 1, c: [2, 3] };' })],
      ['write', call('write', { path: 'b.ts', content: 'export const b={x:1}\n' })],
      ['syntax error', call('write', { path: 'bad.ts', content: 'export const = ;\n' })],
      ['outside', call('write', { path: join(setup.outside, 'o.ts'), content: 'export const o={o:1}\n' })],
      ['400-line edit', call('edit', { path: 'big.ts', old_string: 'return a + 7;', new_string: `return a;${BLOCK}` })],
      ['invalid config', call('write', { path: 'biome.json', content: '{ "formatter": { "indentStyle": "sideways" } }\n' })],
      ['edit under the invalid config', call('edit', { path: 'a.ts', old_string: 'c: [2, 3]', new_string: 'c:[2,3,4]' })],
    ];
  }
  return [
    ['read', () => ({ tool: 'Read', input: { file_path: file('a.ts') } })],
    ['edit', () => ({ tool: 'Edit', input: { file_path: file('a.ts'), old_string: 'export const a = 1;', new_string: 'export const a = {b:1,c:[2]};' } })],
    ['follow-up edit', () => ({ tool: 'Edit', input: { file_path: file('a.ts'), old_string: 'export const a = { b: 1, c: [2] };', new_string: 'export const a = { b: 1, c: [2, 3] };' } })],
    ['write', () => ({ tool: 'Write', input: { file_path: file('b.ts'), content: 'export const b={x:1}\n' } })],
    ['syntax error', () => ({ tool: 'Write', input: { file_path: file('bad.ts'), content: 'export const = ;\n' } })],
    ['outside', () => ({ tool: 'Write', input: { file_path: join(setup.outside, 'o.ts'), content: 'export const o={o:1}\n' } })],
    ['read big', () => ({ tool: 'Read', input: { file_path: file('big.ts') } })],
    ['400-line edit', () => ({ tool: 'Edit', input: { file_path: file('big.ts'), old_string: 'return a + 7;', new_string: `return a;${BLOCK}` } })],
    ['invalid config', () => ({ tool: 'Write', input: { file_path: file('biome.json'), content: '{ "formatter": { "indentStyle": "sideways" } }\n' } })],
    ['edit under the invalid config', () => ({ tool: 'Edit', input: { file_path: file('a.ts'), old_string: 'c: [2, 3]', new_string: 'c:[2,3,4]' } })],
  ];
}

/** The steps for runClaude, keeping, per action, the next request (which shows the action's result). */
function stepsOf(actions: Array<[string, Step]>, results: Map<string, MessagesRequest>): Step[] {
  return [...actions.map(([, step], i): Step => (request) => {
    if (i > 0) results.set(actions[i - 1]![0], request);
    return step(request);
  }), (request) => {
    results.set(actions[actions.length - 1]![0], request);
    return { text: 'done' };
  }];
}

const TITLES: Record<Mode, string> = { command: 'the command hook, before the write', http: 'the http hook, before the write', 'after-write': 'the command hook in default mode, after the write', mcp: 'formatbox mcp' };

for (const mode of ['command', 'http', 'after-write', 'mcp'] as const) {
  test(`Claude Code ${CLAUDE_CODE_VERSION} with formatbox (${TITLES[mode]}): the next request holds the formatted text`, { skip: missing, timeout: 240_000 }, async () => {
    const setup = await setUp(mode);
    const results = new Map<string, MessagesRequest>();
    const run = await runClaude(claude!, { cwd: setup.root, home: setup.home, steps: stepsOf(plan(mode, setup), results), args: setup.args, ...(mode === 'after-write' ? { permissionMode: 'default' } : {}), env: { XDG_RUNTIME_DIR: iso.runtimeDir, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(setup.home, '.config') } });
    assert.equal(run.code, 0, run.stderr + run.stdout.slice(-3000));
    const dump = () => [...results].map(([name, request]) => `--- after ${name}:\n${lastUserText(request).slice(0, 1500)}`).join('\n');
    const at = (name: string) => {
      const request = results.get(name);
      assert.ok(request, `no request after the ${name} step\n${dump()}`);
      return { text: lastUserText(request), failed: lastToolFailed(request) };
    };

    // 1. The unformatted edit: the next request holds the formatted text, bounded.
    const edit = at('edit');
    assert.equal(edit.failed, false, dump());
    if (mode === 'mcp') {
      // Claude Code shows the model the structured result: the edit as formatted, no file content.
      assert.ok(edit.text.includes('"newText":"export const a = { b: 1, c: [2] };"'), dump());
      assert.ok(!edit.text.includes('"content"'), 'no file content');
      assert.equal(edit.text.split('formatted (biome').length, 2, 'the receipt line once');
    } else {
      assert.ok(edit.text.includes('<<<\nexport const a = { b: 1, c: [2] };\n>>>'), dump());
      // Before the write, Claude Code writes F itself: it sees no hook change the file afterwards.
      if (mode !== 'after-write') assert.doesNotMatch(edit.text, /hook modified|modified by (a|the) .*hook/i, dump());
    }
    // 2. A follow-up edit that copies that text succeeds.
    const followUp = at('follow-up edit');
    assert.equal(followUp.failed, false, dump());
    // 3. A write: told what is on disk (the formatter's change).
    const write = at('write');
    assert.equal(write.failed, false, dump());
    assert.ok(write.text.includes('+export const b = { x: 1 };'), dump());
    assert.equal(readFileSync(join(setup.root, 'b.ts'), 'utf8'), 'export const b = { x: 1 };\n');
    // 4. A syntax error: the write stands, the model is told briefly, the session goes on.
    const syntax = at('syntax error');
    assert.equal(readFileSync(join(setup.root, 'bad.ts'), 'utf8'), 'export const = ;\n');
    assert.match(syntax.text, /formatter failed|not formatted|failed/, dump());
    assert.ok(formatboxPart(syntax.text).length <= MAX_DIFF_CHARS + LINE_ALLOWANCE, `${formatboxPart(syntax.text).length} chars`);
    // 5. A file outside the project: the hook says nothing and touches nothing; MCP refuses it.
    const outside = at('outside');
    if (mode === 'mcp') {
      assert.equal(outside.failed, true);
      assert.match(outside.text, /PATH_REFUSED/);
    } else {
      assert.equal(readFileSync(join(setup.outside, 'o.ts'), 'utf8'), 'export const o={o:1}\n');
      assert.equal(formatboxPart(outside.text), '', dump());
    }
    // 6. A 400-line edit: what formatbox says stays bounded (a reread hint, not the 400 lines).
    const large = at('400-line edit');
    assert.equal(large.failed, false, dump());
    const part = mode === 'mcp' ? large.text : formatboxPart(large.text);
    assert.ok(part.length > 0, dump());
    assert.ok(part.length <= MAX_DIFF_CHARS + LINE_ALLOWANCE, `400-line edit: formatbox told the model ${part.length} chars`);
    assert.match(part, /reread/);
    assert.ok(readFileSync(join(setup.root, 'big.ts'), 'utf8').includes("const v399 = { k: 399, s: 'x' };") || readFileSync(join(setup.root, 'big.ts'), 'utf8').includes('const v399 = { k: 399, s: "x" };'));
    // 7. An invalid config: the next edit stands as written and the model is told why, briefly.
    const invalid = at('edit under the invalid config');
    assert.equal(invalid.failed, false, dump());
    assert.match(readFileSync(join(setup.root, 'a.ts'), 'utf8'), /c:\[2,3,4\]/);
    assert.match(invalid.text, /biome\.json/, dump());
    assert.ok((mode === 'mcp' ? invalid.text : formatboxPart(invalid.text)).length <= MAX_DIFF_CHARS + LINE_ALLOWANCE);
    console.log(`${mode}: ${Math.round(run.ms)} ms for the session; 400-line edit told ${part.length} chars`);
    if (process.env.FORMATBOX_TEST_DUMP) console.log(dump());
  });
}
