// Without --root, the real built CLI finds each file's project root as the formatters do (the
// nearest VCS root, else the nearest formatter config; symlinks resolved): `format` (named files,
// a directory walk, --stdin-filepath), `apply --json`, `serve` and `mcp`, through the daemon and
// in-process, called from a subdirectory and through a symlinked project path, format exactly as
// from the root. A file with no root says so; a file outside the caller's project stays refused.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EXIT_CODE_BY_ERROR } from '../../src/cli/exit-codes.js';
import { cleanUp, installCopy, isolatedEnv, project, runCli } from './built-cli.js';

const built = await installCopy();
const iso = isolatedEnv();
const noDaemon = { ...iso.env, FORMATBOX_NO_DAEMON: '1' };
const dirs: string[] = [];
after(() => cleanUp(iso.runtimeDir, built.dir, ...dirs));

// Not Biome's defaults (tabs): a run that misses the root's biome.json cannot pass.
const BIOME = '{ "formatter": { "indentStyle": "space", "indentWidth": 4 } }\n';
const MESSY = 'function f(){return 1}\n';
const FORMATTED = 'function f() {\n    return 1;\n}\n';

/** A git project: biome.json at the root, sources in sub/deep. */
function gitProject(): string {
  const root = project({ 'biome.json': BIOME, 'sub/deep/a.ts': MESSY, 'sub/deep/b.ts': MESSY, 'top.ts': MESSY });
  mkdirSync(join(root, '.git'));
  dirs.push(root);
  return root;
}

/** The same project reached through a symlink to it. */
function viaSymlink(root: string): string {
  const holder = mkdtempSync(join(tmpdir(), 'fb-link-'));
  dirs.push(holder);
  symlinkSync(root, join(holder, 'link'));
  return join(holder, 'link');
}

for (const [mode, env] of [['through the daemon', iso.env], ['in-process', noDaemon]] as const) {
  for (const through of ['the real path', 'a symlinked path'] as const) {
    test(`format (files, --check, --stdin-filepath) and apply from a subdirectory, ${mode}, via ${through}`, { timeout: 120_000 }, async () => {
      const root = gitProject();
      const base = through === 'the real path' ? root : viaSymlink(root);
      const cwd = join(base, 'sub');

      const check = await runCli(built.cli, ['format', '--check', 'deep/a.ts'], { env, cwd });
      assert.equal(check.code, 1, check.stderr);
      assert.match(check.stdout, /would reformat/);
      // The file named by its absolute path through `base` (the symlink, in that variant).
      const absolute = await runCli(built.cli, ['format', '--check', join(base, 'sub/deep/a.ts')], { env, cwd });
      assert.equal(absolute.code, 1, absolute.stderr);

      const write = await runCli(built.cli, ['format', '--write', 'deep/a.ts', '../top.ts'], { env, cwd });
      assert.equal(write.code, 0, write.stderr);
      assert.equal(readFileSync(join(root, 'sub/deep/a.ts'), 'utf8'), FORMATTED);
      assert.equal(readFileSync(join(root, 'top.ts'), 'utf8'), FORMATTED, 'a file above the working directory, inside its project');

      const stdin = await runCli(built.cli, ['format', '--stdin-filepath', 'deep/new.ts'], { env, cwd, input: MESSY });
      assert.equal(stdin.code, 0, stdin.stderr);
      assert.equal(stdin.stdout, FORMATTED);

      const apply = await runCli(built.cli, ['apply', '--json'], { env, cwd: join(cwd, 'deep'), input: JSON.stringify({ path: 'b.ts', input: { oldText: 'return 1', newText: 'return [1,2]' } }) });
      assert.equal(apply.code, 0, apply.stderr);
      assert.equal(JSON.parse(apply.stdout).status, 'formatted');
      assert.equal(readFileSync(join(root, 'sub/deep/b.ts'), 'utf8'), 'function f() {\n    return [1, 2];\n}\n');
    });
  }
}

test('format --write DIR (the full walk) and serve, from a symlinked subdirectory', { timeout: 120_000 }, async () => {
  const root = gitProject();
  const cwd = join(viaSymlink(root), 'sub');
  const walk = await runCli(built.cli, ['format', '--write', '.'], { env: iso.env, cwd });
  assert.equal(walk.code, 0, walk.stderr);
  assert.equal(readFileSync(join(root, 'sub/deep/a.ts'), 'utf8'), FORMATTED);
  assert.equal(readFileSync(join(root, 'top.ts'), 'utf8'), MESSY, 'outside the directory named');

  const serve = await runCli(built.cli, ['serve'], { env: iso.env, cwd, input: `${JSON.stringify({ id: 1, method: 'format', path: '../top.ts', check: true })}\n${JSON.stringify({ id: 2, method: 'formatText', path: 'x.ts', text: MESSY })}\n` });
  assert.equal(serve.code, 0, serve.stderr);
  const [first, second] = serve.stdout.trim().split('\n').map((line) => JSON.parse(line));
  assert.equal(first.id, 1);
  assert.equal(first.status, 'formatted');
  assert.equal(first.content, FORMATTED);
  assert.equal(second.content, FORMATTED);
});

test('a file with no project root (no VCS root, no formatter config above it) says so', { timeout: 120_000 }, async () => {
  const bare = project({ 'a.ts': MESSY });
  dirs.push(bare);
  const json = await runCli(built.cli, ['format', '--check', '--json', 'a.ts'], { env: iso.env, cwd: bare });
  assert.equal(json.code, 0, json.stderr);
  const line = JSON.parse(json.stdout.trim().split('\n')[0]!); // then the summary line
  assert.equal(line.status, 'skipped');
  assert.match(line.reason, /no project root found/);
  for (const env of [iso.env, noDaemon]) {
    const plain = await runCli(built.cli, ['format', '--write', 'a.ts'], { env, cwd: bare });
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stderr, /^not formatted: a\.ts \(no project root found/m);
    const stdin = await runCli(built.cli, ['format', '--stdin-filepath', 'b.ts'], { env, cwd: bare, input: MESSY });
    assert.equal(stdin.stdout, MESSY, 'the input as it was');
    assert.match(stdin.stderr, /no project root found/);
    const apply = await runCli(built.cli, ['apply', '--json'], { env, cwd: bare, input: JSON.stringify({ method: 'format', path: 'a.ts', check: true }) });
    assert.equal(apply.code, 0, apply.stderr);
    assert.match(JSON.parse(apply.stdout).reason, /no project root found/);
  }
  assert.equal(readFileSync(join(bare, 'a.ts'), 'utf8'), MESSY);
});

test('a file outside the project the caller works in stays refused', { timeout: 120_000 }, async () => {
  const mine = gitProject();
  const other = gitProject();
  const run = await runCli(built.cli, ['apply', '--json'], { env: iso.env, cwd: join(mine, 'sub'), input: JSON.stringify({ path: join(other, 'top.ts'), input: { content: 'let x=1\n' } }) });
  assert.equal(run.code, EXIT_CODE_BY_ERROR.PATH_REFUSED, run.stdout);
  assert.match(run.stdout, /PATH_REFUSED/);
  assert.equal(readFileSync(join(other, 'top.ts'), 'utf8'), MESSY);
});

test('mcp without --root or client roots: tool calls from a symlinked subdirectory use the project root', { timeout: 120_000 }, async () => {
  const root = gitProject();
  const cwd = join(viaSymlink(root), 'sub');
  const client = new Client({ name: 'formatbox-test', version: '1.0.0' }, {});
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [built.cli, 'mcp'], cwd, env: iso.env as Record<string, string>, stderr: 'pipe' }));
  try {
    const edit = (await client.callTool({ name: 'edit', arguments: { path: 'deep/a.ts', old_string: 'return 1', new_string: 'return 2' } })) as CallToolResult;
    assert.ok(!edit.isError, JSON.stringify(edit.content));
    assert.equal(readFileSync(join(root, 'sub/deep/a.ts'), 'utf8'), 'function f() {\n    return 2;\n}\n');
    const doctor = (await client.callTool({ name: 'doctor', arguments: {} })) as CallToolResult;
    assert.match((doctor.content[0] as { text: string }).text, /typescript: biome/);
    const outside = (await client.callTool({ name: 'write', arguments: { path: '../../escape.ts', content: 'x' } })) as CallToolResult;
    assert.equal(outside.isError, true);
  } finally {
    await client.close();
  }
});
