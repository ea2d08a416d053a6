// `formatbox init` through the real built CLI, for each agent: it merges into config files the user
// already has (their settings, comments and layout kept), never replaces a value the user set (it
// says so), shows each change as a diff, and a second run changes nothing. `doctor` then names each
// agent's setup.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseToml } from 'smol-toml';
import { cleanUp, installCopy, isolatedEnv, runCli } from './built-cli.js';

const built = await installCopy();
const iso = isolatedEnv();
const dirs: string[] = [];
after(() => cleanUp(iso.runtimeDir, built.dir, ...dirs));

function fresh(): { home: string; root: string; env: NodeJS.ProcessEnv } {
  const home = mkdtempSync(join(tmpdir(), 'fb-home-'));
  const root = mkdtempSync(join(tmpdir(), 'fb-initproj-'));
  mkdirSync(join(root, '.git'));
  dirs.push(home, root);
  return { home, root, env: { ...iso.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), CODEX_HOME: '' } };
}

/** smol-toml's tables have no prototype: compared as plain JSON. */
const tomlServers = (text: string): unknown => JSON.parse(JSON.stringify((parseToml(text) as { mcp_servers: unknown }).mcp_servers));

const init = (env: NodeJS.ProcessEnv, cwd: string, ...args: string[]) => runCli(built.cli, ['init', ...args], { env, cwd });

test('claude-code: http hook + SessionStart merged into existing settings, secret in a 0600 file, idempotent, no clobber', { timeout: 120_000 }, async () => {
  const { home, root, env } = fresh();
  const settings = join(home, '.claude', 'settings.json');
  mkdirSync(join(home, '.claude'));
  const mine = { model: 'opus', permissions: { allow: ['Bash(ls:*)'] }, hooks: { PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo mine' }] }] } };
  writeFileSync(settings, JSON.stringify(mine, null, 2) + '\n', { mode: 0o600 });

  const first = await init(env, root, 'claude-code', '--port', '45678');
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^\+\s+"SessionStart"/m, 'the change is shown as a diff');
  const after1 = JSON.parse(readFileSync(settings, 'utf8'));
  assert.equal(after1.model, 'opus');
  assert.deepEqual(after1.permissions, mine.permissions);
  assert.deepEqual(after1.hooks.PostToolUse[0], mine.hooks.PostToolUse[0], 'the user\'s own hook kept');
  const http = after1.hooks.PostToolUse[1].hooks[0];
  assert.deepEqual([http.type, http.url, http.headers.Authorization, http.allowedEnvVars], ['http', 'http://127.0.0.1:45678/hook/claude-code', 'Bearer $FORMATBOX_HOOK_SECRET', ['FORMATBOX_HOOK_SECRET', 'CLAUDE_PROJECT_DIR']]);
  assert.equal(after1.hooks.PostToolUse[1].matcher, 'Edit|MultiEdit|Write');
  assert.deepEqual(after1.hooks.PreToolUse, [after1.hooks.PostToolUse[1]], 'the http hook before the write too');
  assert.equal(after1.hooks.SessionStart[0].hooks[0].command, 'formatbox hook claude-code --http-port 45678');
  // The secret is the daemon's own (its 0600 file in the private daemon directory).
  const secretFile = join(iso.runtimeDir, 'formatbox', 'hook-secret');
  assert.equal(after1.env.FORMATBOX_HOOK_SECRET, readFileSync(secretFile).toString('hex'));
  assert.equal(statSync(settings).mode & 0o777, 0o600);

  const second = await init(env, root, 'claude-code', '--port', '45678');
  assert.match(second.stdout, /already set up/);
  assert.equal(readFileSync(settings, 'utf8'), JSON.stringify(after1, null, 2) + '\n', 'second run: no change');
  // Another port later: the existing hook is kept, not replaced (and not doubled).
  const other = await init(env, root, 'claude-code', '--port', '45679');
  assert.equal(JSON.parse(readFileSync(settings, 'utf8')).hooks.PostToolUse.length, 2);
  assert.match(other.stdout, /already set up/);

  // Project scope: hooks in .claude/settings.json (committed), the secret only in settings.local.json.
  const project = await init(env, root, 'claude-code', '--project', '--mcp', '--bin', 'node /opt/fb/cli.js');
  assert.equal(project.code, 0, project.stderr);
  const shared = JSON.parse(readFileSync(join(root, '.claude', 'settings.json'), 'utf8'));
  assert.equal(shared.env, undefined, 'no secret in the committed file');
  assert.deepEqual(shared.permissions.allow, ['mcp__formatbox']);
  assert.equal(shared.hooks.SessionStart[0].hooks[0].command.startsWith('node /opt/fb/cli.js hook claude-code --http-port '), true);
  assert.equal(statSync(join(root, '.claude', 'settings.local.json')).mode & 0o777, 0o600);
  assert.deepEqual(JSON.parse(readFileSync(join(root, '.mcp.json'), 'utf8')).mcpServers.formatbox, { command: 'node', args: ['/opt/fb/cli.js', 'mcp'] });

  const doctor = await runCli(built.cli, ['doctor'], { env, cwd: root });
  assert.match(doctor.stdout, /claude-code: .*settings\.json: the http hook, started by a SessionStart hook/);
  assert.match(doctor.stdout, /codex: not set up/);
});

test('claude-code --command: the command hook alone', { timeout: 60_000 }, async () => {
  const { root, env } = fresh();
  const run = await init({ ...env, PATH: '/nonexistent' }, root, 'claude-code', '--project', '--command');
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /note: formatbox is not on PATH.*--bin "/, 'npx users learn how the agent can run it');
  const bin = mkdtempSync(join(tmpdir(), 'fb-bin-'));
  dirs.push(bin);
  writeFileSync(join(bin, 'formatbox'), '#!/bin/sh\n', { mode: 0o755 });
  assert.doesNotMatch((await init({ ...env, PATH: bin }, root, 'claude-code', '--project', '--command')).stdout, /not on PATH/);
  // Switching to the http hook over an existing command hook: said, not done (two hooks would race).
  const switched = await init(env, root, 'claude-code', '--project');
  assert.match(switched.stdout, /a formatbox command hook is set up already; left as it is/);
  assert.equal(JSON.parse(readFileSync(join(root, '.claude', 'settings.json'), 'utf8')).hooks.PostToolUse.length, 1);
  const settings = JSON.parse(readFileSync(join(root, '.claude', 'settings.json'), 'utf8'));
  // The same hook before the write (where the permission mode allows the edit) and after it.
  const hook = { matcher: 'Edit|MultiEdit|Write', hooks: [{ type: 'command', command: 'formatbox hook claude-code', timeout: 60 }] };
  assert.deepEqual(settings.hooks, { PreToolUse: [hook], PostToolUse: [hook] });
});

test('codex: the MCP table appended (comments kept), approval added to an existing table, never replaced', { timeout: 60_000 }, async () => {
  const { home, root, env } = fresh();
  const config = join(home, '.codex', 'config.toml');
  mkdirSync(join(home, '.codex'));
  writeFileSync(config, '# my settings\nmodel = "o4"\n');
  assert.equal((await init(env, root, 'codex')).code, 0);
  const text = readFileSync(config, 'utf8');
  assert.ok(text.startsWith('# my settings\nmodel = "o4"\n'), text);
  assert.deepEqual(tomlServers(text), { formatbox: { command: 'formatbox', args: ['mcp'], default_tools_approval_mode: 'approve', required: true } });
  assert.deepEqual(JSON.parse(JSON.stringify((parseToml(text) as { hooks: unknown }).hooks)), { PostToolUse: [{ matcher: '^apply_patch$', hooks: [{ type: 'command', command: 'formatbox hook codex' }] }] });
  assert.match((await init(env, root, 'codex')).stdout, /already set up/);
  assert.equal(readFileSync(config, 'utf8'), text);

  writeFileSync(config, '[mcp_servers.formatbox]\ncommand = "/usr/local/bin/formatbox"\nargs = ["mcp"]\n');
  await init(env, root, 'codex');
  assert.deepEqual(tomlServers(readFileSync(config, 'utf8')), { formatbox: { command: '/usr/local/bin/formatbox', args: ['mcp'], default_tools_approval_mode: 'approve' } });
  writeFileSync(config, '[mcp_servers.formatbox]\ncommand = "formatbox"\nargs = ["mcp"]\ndefault_tools_approval_mode = "prompt"\n');
  const kept = await init(env, root, 'codex');
  assert.match(kept.stdout, /left as it is/);
  assert.match(readFileSync(config, 'utf8'), /"prompt"/);
  writeFileSync(config, 'this is = not [toml\n');
  const broken = await init(env, root, 'codex');
  assert.equal(broken.code, 2, broken.stdout + broken.stderr);
  assert.equal(readFileSync(config, 'utf8'), 'this is = not [toml\n', 'a broken file is left alone');
});

test('opencode: the shipped plugin and its overlapping formatters off, comments kept; cursor: its mcp.json', { timeout: 60_000 }, async () => {
  const { root, env } = fresh();
  const config = join(root, 'opencode.jsonc');
  writeFileSync(config, '{\n  // my model\n  "model": "x/y",\n  "formatter": { "prettier": { "disabled": false } }\n}\n');
  const run = await init(env, root, 'opencode', '--project');
  assert.equal(run.code, 0, run.stderr);
  const text = readFileSync(config, 'utf8');
  assert.match(text, /\/\/ my model/);
  assert.match(run.stdout, /formatter\.prettier\.disabled is already set \(to false\); left as it is/);
  const { parse } = await import('jsonc-parser');
  const value = parse(text) as { plugin: string[]; formatter: Record<string, { disabled: boolean }> };
  assert.deepEqual(value.plugin, [pathToFileURL(built.dir).href], 'the package directory, which opencode resolves through its ./server export');
  assert.equal(value.formatter.biome!.disabled, true);
  assert.equal(value.formatter.gofmt!.disabled, true);
  assert.equal(value.formatter.prettier!.disabled, false);
  assert.match((await init(env, root, 'opencode', '--project')).stdout, /already set up/);
  assert.equal(readFileSync(config, 'utf8'), text);

  assert.equal((await init(env, root, 'cursor', '--project')).code, 0);
  assert.deepEqual(JSON.parse(readFileSync(join(root, '.cursor', 'mcp.json'), 'utf8')), { mcpServers: { formatbox: { command: 'formatbox', args: ['mcp'] } } });
  const doctor = await runCli(built.cli, ['doctor', '--json'], { env, cwd: root });
  const agents = (JSON.parse(doctor.stdout) as { agents: Array<{ agent: string; setup: string[] }> }).agents;
  assert.match(agents.find((a) => a.agent === 'opencode')!.setup.join('\n'), /the formatbox plugin \(opencode's own prettier still on\)/);
  assert.match(agents.find((a) => a.agent === 'cursor')!.setup.join('\n'), /mcp\.json: the MCP server/);
  assert.equal((await init(env, root, 'vim')).code, 2);
});
