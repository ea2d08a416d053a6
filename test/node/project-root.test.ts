/**
 * Project root finding (src/node/project-root.ts) and the Claude Code hook that uses it: a working
 * directory in a subdirectory, a project reached through a symlink, CLAUDE_PROJECT_DIR, a VCS root,
 * a formatter config without VCS, and no root at all (said in the hook's answer).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, symlinkSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProjectRoot } from '../../src/node/project-root.js';
import { writeTree } from '../write-tree.js';

const REPO = new URL('../..', import.meta.url).pathname;
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tree(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'formatbox-root-')));
  dirs.push(root);
  writeTree(root, files);
  return root;
}

test('the nearest VCS root wins over a nearer formatter config; a relative path is taken from cwd', () => {
  const root = tree({ '.git/': '', 'biome.json': '{}', 'packages/a/.prettierrc': '{}', 'packages/a/src/x.ts': '' });
  assert.deepEqual(findProjectRoot('src/x.ts', { cwd: join(root, 'packages/a') }), { root, path: 'packages/a/src/x.ts', how: 'vcs root' });
});

test('without VCS, the nearest directory with a formatter config', () => {
  const root = tree({ 'proj/ruff.toml': '', 'proj/pkg/mod.py': '' });
  assert.deepEqual(findProjectRoot(join(root, 'proj/pkg/mod.py')), { root: join(root, 'proj'), path: 'pkg/mod.py', how: 'formatter config' });
});

test('CLAUDE_PROJECT_DIR decides when given; a file outside it has no root', () => {
  const root = tree({ '.git/': '', 'app/biome.json': '{}', 'app/src/x.ts': '', 'other/y.ts': '' });
  assert.deepEqual(findProjectRoot(join(root, 'app/src/x.ts'), { projectDir: join(root, 'app') }), { root: join(root, 'app'), path: 'src/x.ts', how: 'project dir' });
  assert.equal(findProjectRoot(join(root, 'other/y.ts'), { projectDir: join(root, 'app') }), undefined);
});

test('a symlinked project path and the real one give the same root and path', () => {
  const root = tree({ 'real/.git/': '', 'real/biome.json': '{}', 'real/src/x.ts': '' });
  symlinkSync(join(root, 'real'), join(root, 'link'));
  const viaLink = findProjectRoot(join(root, 'link/src/x.ts'));
  assert.deepEqual(viaLink, { root: join(root, 'real'), path: 'src/x.ts', how: 'vcs root' });
  assert.deepEqual(findProjectRoot(join(root, 'real/src/x.ts'), { projectDir: join(root, 'link') }), { root: join(root, 'real'), path: 'src/x.ts', how: 'project dir' });
});

test('no VCS root and no formatter config: undefined', () => {
  const root = tree({ 'loose/notes.ts': '' });
  assert.equal(findProjectRoot(join(root, 'loose/notes.ts')), undefined);
});

function hook(event: Record<string, unknown>, env: Record<string, string> = {}): { code: number; stdout: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(REPO, 'src/cli/main.ts'), 'hook', 'claude-code'], {
    cwd: REPO,
    input: JSON.stringify({ hook_event_name: 'PostToolUse', ...event }),
    encoding: 'utf8',
    env: { ...process.env, CLAUDE_PROJECT_DIR: '', FORMATBOX_SOCKET: '', FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(tmpdir(), 'fb-root-no-config'), ...env },
    timeout: 120_000,
  });
  return { code: result.status ?? -1, stdout: result.stdout };
}

test('hook: cwd in a subdirectory, the file named through a symlinked project path: formatted with the root biome.json', () => {
  const root = tree({ 'real/.git/': '', 'real/biome.json': '{ "formatter": { "indentStyle": "space", "indentWidth": 4 } }', 'real/pkg/src/a.ts': 'function f() { return {a:1} }\n' });
  symlinkSync(join(root, 'real'), join(root, 'link'));
  const file = join(root, 'link/pkg/src/a.ts');
  const answer = hook({ cwd: join(root, 'link/pkg'), tool_name: 'Write', tool_input: { file_path: file, content: 'function f() { return {a:1} }\n' }, tool_response: { type: 'create' } });
  assert.equal(answer.code, 0);
  assert.equal(readFileSync(join(root, 'real/pkg/src/a.ts'), 'utf8'), 'function f() {\n    return { a: 1 };\n}\n');
});

test('hook: a file inside the session directory with no project root is reported, not silently skipped', () => {
  const root = tree({ 'loose/a.ts': 'let x=1\n' });
  const answer = hook({ cwd: root, tool_name: 'Write', tool_input: { file_path: join(root, 'loose/a.ts'), content: 'let x=1\n' }, tool_response: { type: 'create' } });
  assert.equal(answer.code, 0);
  assert.match(JSON.parse(answer.stdout).hookSpecificOutput.additionalContext, /was not formatted: no project root found/);
  assert.equal(readFileSync(join(root, 'loose/a.ts'), 'utf8'), 'let x=1\n');
});
