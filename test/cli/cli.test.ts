// The CLI as a separate process: `apply --json`, `serve` (JSON lines, driven from Node and from a
// Python harness), `format --check/--write/--json`, `hook claude-code`, the user config, exit codes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { applyInput } from '../../src/tools/index.js';
import { applyUnifiedDiff } from '../../src/core/diff.js';
import type { Receipt, SingleFileInput } from '../../src/core/types.js';

const REPO = resolve('.');
const CLI = ['--import', 'tsx', join(REPO, 'src/cli/main.ts')];
const roots: string[] = [];
after(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'fb-cli-'));
  roots.push(root);
  for (const [path, content] of Object.entries({ 'biome.json': '{ "formatter": { "indentStyle": "space" } }\n', ...files })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/** Runs the CLI from the repository (so tsx resolves), with an empty user config unless given. */
function cli(args: string[], stdin = '', env: Record<string, string> = {}): { code: number; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [...CLI, ...args], {
    cwd: REPO,
    input: stdin,
    encoding: 'utf8',
    env: { ...process.env, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(tmpdir(), 'fb-cli-no-config'), ...env },
    timeout: 120_000,
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

function replays(prior: string, receipt: Receipt): string {
  const text = applyInput(prior, receipt.input as SingleFileInput);
  return receipt.diff ? applyUnifiedDiff(text, receipt.diff) : text;
}

test('apply --json: one request, one receipt that replays to the disk; errors are JSON with the exit code of the table', () => {
  const prior = 'export const a = 1;\n';
  const root = project({ 'src/a.ts': prior });
  const ok = cli(['apply', '--json', '--root', root], JSON.stringify({ path: 'src/a.ts', input: { oldText: 'const a = 1;', newText: 'const a=[1,2]' } }));
  assert.equal(ok.code, 0, ok.stderr);
  const receipt = JSON.parse(ok.stdout) as Receipt;
  assert.equal(receipt.status, 'formatted');
  assert.deepEqual(receipt.input, { oldText: 'const a = 1;', newText: 'const a = [1, 2];' });
  assert.equal(replays(prior, receipt), readFileSync(join(root, 'src/a.ts'), 'utf8'));

  const missing = cli(['apply', '--json', '--root', root], JSON.stringify({ path: 'src/a.ts', input: { oldText: 'nope', newText: 'x' } }));
  assert.equal(missing.code, 3);
  assert.deepEqual(JSON.parse(missing.stdout).error.code, 'EDIT_NOT_APPLICABLE');
  const outside = cli(['apply', '--json', '--root', root], JSON.stringify({ path: '../x.ts', input: { content: 'x' } }));
  assert.equal(outside.code, 4);
  assert.equal(JSON.parse(outside.stdout).error.code, 'PATH_REFUSED');
  const garbage = cli(['apply', '--json', '--root', root], 'not json');
  assert.equal(garbage.code, 2);
  assert.equal(JSON.parse(garbage.stdout).error.code, 'INVALID_REQUEST');
});

test('apply --json with prior: the harness wrote the file itself; formatbox formats and reconciles (afterWrite)', () => {
  const prior = 'export const a = 1;\n';
  const written = 'export const a = {b:2};\n';
  const root = project({ 'src/a.ts': written });
  const result = cli(['apply', '--json'], JSON.stringify({ root, path: 'src/a.ts', prior, input: { oldText: 'const a = 1;', newText: 'const a = {b:2};' } }));
  assert.equal(result.code, 0, result.stderr);
  const receipt = JSON.parse(result.stdout) as Receipt;
  assert.deepEqual(receipt.input, { oldText: 'const a = 1;', newText: 'const a = { b: 2 };' });
  assert.equal(replays(prior, receipt), readFileSync(join(root, 'src/a.ts'), 'utf8'));
});

test('serve: JSON lines in order, ids echoed, a bad line answered without stopping, several roots, a patch', async () => {
  const one = project({ 'a.ts': 'const a = 1;\n' });
  const two = project({ 'b.ts': 'const b = 1;\n' });
  const requests = [
    { id: 1, root: one, path: 'a.ts', input: { oldText: 'const a = 1;', newText: 'const a=2' } },
    'this is not json',
    { id: 'x', root: two, path: 'b.ts', input: { content: 'const b={c:1}' } },
    { id: 3, root: one, input: { patch: '*** Begin Patch\n*** Add File: c.ts\n+let c=3\n*** End Patch\n' } },
    { id: 4, root: one, method: 'doctor' },
    { id: 5, root: one, path: 'missing.ts', input: { oldText: 'a', newText: 'b' } },
  ];
  const child = spawn(process.execPath, [...CLI, 'serve'], { cwd: REPO, env: { ...process.env, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(tmpdir(), 'fb-cli-no-config') } });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stdin.end(requests.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n');
  const code = await new Promise<number | null>((done) => child.on('close', done));
  assert.equal(code, 0);
  const replies = stdout.trim().split('\n').map((line) => JSON.parse(line));
  assert.equal(replies.length, 6);
  assert.equal(replies[0].id, 1);
  assert.deepEqual(replies[0].input, { oldText: 'const a = 1;', newText: 'const a = 2;' });
  assert.equal(replies[1].error.code, 'INVALID_REQUEST');
  assert.equal(replies[2].id, 'x');
  assert.equal(readFileSync(join(two, 'b.ts'), 'utf8'), 'const b = { c: 1 };\n');
  assert.equal(replies[3].id, 3);
  assert.match(replies[3].input.patch, /\+let c = 3;/);
  assert.equal(readFileSync(join(one, 'c.ts'), 'utf8'), 'let c = 3;\n');
  assert.equal(replies[4].id, 4);
  assert.ok(Array.isArray(replies[4].languages));
  assert.deepEqual(replies[5], { id: 5, error: { code: 'FILE_NOT_FOUND', message: 'missing.ts does not exist; create it with write' } });
});

test('serve driven by a Python harness (a non-JS client): edits, receipts, replay check', () => {
  const root = project({ 'm.ts': 'export const m = 1;\n' });
  const harness = `
import json, subprocess, sys
proc = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def call(request):
    proc.stdin.write(json.dumps(request) + "\\n"); proc.stdin.flush()
    return json.loads(proc.stdout.readline())
prior = open("${root}/m.ts").read()
r = call({"id": 1, "root": "${root}", "path": "m.ts", "input": {"oldText": "const m = 1;", "newText": "const m=[1,2]"}})
old, new = r["input"]["oldText"], r["input"]["newText"]
assert prior.replace(old, new) == open("${root}/m.ts").read(), "replay"
r2 = call({"id": 2, "root": "${root}", "path": "m.ts", "input": {"oldText": new, "newText": "const m = 3;"}})
proc.stdin.close(); proc.wait()
print(json.dumps({"first": r["input"], "second": r2["status"], "exit": proc.returncode}))
`;
  const result = spawnSync('python3', ['-c', harness, process.execPath, ...CLI, 'serve'], { cwd: REPO, encoding: 'utf8', timeout: 120_000 });
  assert.equal(result.status, 0, result.stderr);
  assert.deepEqual(JSON.parse(result.stdout), { first: { oldText: 'const m = 1;', newText: 'const m = [1, 2];' }, second: 'unchanged', exit: 0 });
});

test('format: --check writes nothing and exits 1 when files would change; --write formats; a syntax error exits 2', () => {
  const root = project({ 'src/a.ts': 'const a=1\n', 'src/b.ts': 'const b = 2;\n', 'node_modules/x/c.ts': 'const c=1\n', 'README.md': '#  title\n' });
  const check = cli(['format', '--check', '--root', root, root]);
  assert.equal(check.code, 1, check.stderr);
  assert.match(check.stdout, /^would reformat: src\/a\.ts$/m);
  assert.doesNotMatch(check.stdout, /b\.ts|node_modules|README/);
  assert.equal(readFileSync(join(root, 'src/a.ts'), 'utf8'), 'const a=1\n');

  const json = cli(['format', '--check', '--json', '--root', root, join(root, 'src')]);
  const lines = json.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.filter((l) => 'path' in l).map((l) => [l.path, l.status]), [['src/a.ts', 'would-change'], ['src/b.ts', 'unchanged']]);
  assert.deepEqual(Object.keys(lines.at(-1)), ['summary']);

  const write = cli(['format', '--write', '--root', root, root]);
  assert.equal(write.code, 0, write.stderr);
  assert.equal(readFileSync(join(root, 'src/a.ts'), 'utf8'), 'const a = 1;\n');
  assert.equal(readFileSync(join(root, 'node_modules/x/c.ts'), 'utf8'), 'const c=1\n');
  assert.equal(cli(['format', '--check', '--root', root, root]).code, 0);

  writeFileSync(join(root, 'src/bad.ts'), 'const = ;\n');
  const bad = cli(['format', '--write', '--root', root, root]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^error: src\/bad\.ts: ./m, 'a file\'s problem: on stderr, in the one form');
  assert.equal(readFileSync(join(root, 'src/bad.ts'), 'utf8'), 'const = ;\n');
});

test('hook claude-code: Edit, MultiEdit and Write events get the bytes on disk back as context; nothing when nothing changed', () => {
  const root = project({ 'src/h.ts': 'export function f() {\n  return 1;\n}\n' });
  const file = join(root, 'src/h.ts');
  const hook = (event: Record<string, unknown>) => cli(['hook', 'claude-code'], JSON.stringify({ hook_event_name: 'PostToolUse', cwd: root, ...event }));

  // Edit: Claude Code already wrote W; P is recovered by undoing the edit.
  writeFileSync(file, 'export function f() {\n  return {a:1};\n}\n');
  const edit = hook({ tool_name: 'Edit', tool_input: { file_path: file, old_string: 'return 1;', new_string: 'return {a:1};' } });
  assert.equal(edit.code, 0, edit.stderr);
  const context = JSON.parse(edit.stdout).hookSpecificOutput.additionalContext as string;
  assert.match(context, /^formatbox: formatted \(biome [^)]*\): src\/h\.ts/);
  assert.match(context, /your edit: new_string is now on disk as \(exactly the text between the <<< and >>> lines\):\n<<<\nreturn \{ a: 1 \};\n>>>/);
  assert.equal(readFileSync(file, 'utf8'), 'export function f() {\n  return { a: 1 };\n}\n');

  // Already formatted: nothing to say.
  const again = hook({ tool_name: 'Edit', tool_input: { file_path: file, old_string: 'return 1;', new_string: 'return { a: 1 };' } });
  assert.equal(again.code, 0);
  assert.equal(again.stdout, '');

  // MultiEdit with the tool response's originalFile as P.
  const original = readFileSync(file, 'utf8');
  const multi = original.replace('f()', 'g(x)').replace('{ a: 1 }', '{a:x}');
  writeFileSync(file, multi);
  const multiEdit = hook({
    tool_name: 'MultiEdit',
    tool_input: { file_path: file, edits: [{ old_string: 'f()', new_string: 'g(x)' }, { old_string: '{ a: 1 }', new_string: '{a:x}' }] },
    tool_response: { originalFile: original },
  });
  const multiContext = JSON.parse(multiEdit.stdout).hookSpecificOutput.additionalContext as string;
  assert.match(multiContext, /edit 2: new_string is now on disk as [^\n]*:\n<<<\n\{ a: x \}\n>>>/);
  assert.doesNotMatch(multiContext, /edit 1:/);

  // Write of a new file: the diff from what was written to what is on disk.
  const created = join(root, 'src/new.ts');
  writeFileSync(created, 'let n=1\n');
  const write = hook({ tool_name: 'Write', tool_input: { file_path: created, content: 'let n=1\n' }, tool_response: { type: 'create' } });
  assert.match(JSON.parse(write.stdout).hookSpecificOutput.additionalContext, /-let n=1\n\+let n = 1;/);

  // Outside the project, or another tool: silence.
  assert.equal(hook({ tool_name: 'Edit', tool_input: { file_path: '/etc/hostname', old_string: 'a', new_string: 'b' } }).stdout, '');
  assert.equal(hook({ tool_name: 'Bash', tool_input: { command: 'ls' } }).stdout, '');
});

test('user config: --config (JSONC) changes selection; a broken one is a config error (exit 2)', () => {
  const root = project({ 'notes.md': '#  Title\n' });
  const configDir = mkdtempSync(join(tmpdir(), 'fb-cli-config-'));
  roots.push(configDir);
  const config = join(configDir, 'formatbox.json');
  writeFileSync(config, '// the user\'s own config\n{ "formatters": { "markdown": "prettier" } }\n');
  const without = cli(['format', '--check', '--root', root, join(root, 'notes.md')]);
  assert.equal(without.code, 0, 'no formatter is declared for Markdown');
  const withConfig = cli(['format', '--check', '--config', config, '--root', root, join(root, 'notes.md')]);
  assert.equal(withConfig.code, 1, withConfig.stderr);
  // The default location ($XDG_CONFIG_HOME/formatbox/formatbox.json) is read too.
  mkdirSync(join(configDir, 'formatbox'));
  writeFileSync(join(configDir, 'formatbox', 'formatbox.json'), '{ "formatters": { "markdown": "prettier" } }');
  assert.equal(cli(['format', '--check', '--root', root, join(root, 'notes.md')], '', { XDG_CONFIG_HOME: configDir }).code, 1);
  writeFileSync(config, '{ "formatters": ');
  const broken = cli(['format', '--check', '--config', config, '--root', root, join(root, 'notes.md')]);
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /formatbox\.json/);
  assert.equal(cli(['frobnicate']).code, 2);
});

test('serve --socket: a 0600 Unix socket; the hook hands its edit to the warm server, and falls back when none answers', async () => {
  const root = project({ 'src/h.ts': 'export function f() {\n  return 1;\n}\n' });
  const file = join(root, 'src/h.ts');
  // A socket lives in a private (0700) directory of the user's: one in the shared tmp dir is refused.
  const socketDir = mkdtempSync(join(tmpdir(), 'fb-sock-'));
  const socket = join(socketDir, 's.sock');
  roots.push(socketDir);
  const env = { ...process.env, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(tmpdir(), 'fb-cli-no-config') };
  // The server's own user config turns TypeScript off, so an answer from it is told apart from the
  // hook formatting in its own process.
  const serverConfig = join(root, '..', `${root.split('/').pop()}-server.json`);
  roots.push(serverConfig);
  writeFileSync(serverConfig, '{ "formatters": { "typescript": false } }');
  const server = spawn(process.execPath, [...CLI, 'serve', '--socket', socket, '--config', serverConfig], { cwd: REPO, env });
  let stderr = '';
  server.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const started = Date.now();
    while (!stderr.includes('serving on') && Date.now() - started < 60_000 && server.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    assert.match(stderr, /serving on/);
    assert.equal(statSync(socket).mode & 0o777, 0o600);
    // A second server on the same live socket is refused.
    assert.equal(cli(['serve', '--socket', socket]).code, 2);

    const event = (newString: string) => JSON.stringify({ hook_event_name: 'PostToolUse', cwd: root, tool_name: 'Edit', tool_input: { file_path: file, old_string: 'return 1;', new_string: newString } });
    writeFileSync(file, 'export function f() {\n  return {a:1};\n}\n');
    const viaSocket = cli(['hook', 'claude-code', '--socket', socket], event('return {a:1};'));
    assert.equal(viaSocket.code, 0, viaSocket.stderr);
    assert.equal(viaSocket.stdout, '', 'the server (TypeScript off) answered: nothing formatted, nothing to say');
    assert.equal(readFileSync(file, 'utf8'), 'export function f() {\n  return {a:1};\n}\n');
  } finally {
    server.kill('SIGTERM');
    await new Promise((done) => server.on('close', done));
  }
  assert.equal(existsSync(socket), false, 'the socket file is removed on SIGTERM');
  // No server: the hook formats in its own process, with the same answer.
  writeFileSync(file, 'export function f() {\n  return {b:2};\n}\n');
  const local = cli(['hook', 'claude-code'], JSON.stringify({ hook_event_name: 'PostToolUse', cwd: root, tool_name: 'Edit', tool_input: { file_path: file, old_string: 'return {a:1};', new_string: 'return {b:2};' } }), { FORMATBOX_SOCKET: socket });
  assert.match(JSON.parse(local.stdout).hookSpecificOutput.additionalContext, /return \{ b: 2 \};/);
});
