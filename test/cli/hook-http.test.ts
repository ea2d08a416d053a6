// Claude Code's `http` hook against the real built CLI: a SessionStart event through `hook
// claude-code --http-port P` starts the per-user daemon, which then answers POSTs of PostToolUse
// events on 127.0.0.1:P with the same JSON the command hook prints, but only with the session's
// secret (or the daemon's own, from its 0600 file): no token, a wrong token, a foreign Host header
// and other paths are refused before the body is read.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { request } from 'node:http';
import { newSecret } from '../../src/cli/hook-secret.js';
import { cleanUp, daemonPids, freePort, installCopy, isolatedEnv, project, runCli } from './built-cli.js';

const built = await installCopy();
const iso = isolatedEnv();
const roots: string[] = [];
after(() => cleanUp(iso.runtimeDir, built.dir, ...roots));

const BIOME = { 'biome.json': '{ "formatter": { "indentStyle": "space" } }\n' };


function post(port: number, body: string, headers: Record<string, string>, path = '/hook/claude-code', method = 'POST'): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => done({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

test('the http hook: started by SessionStart, authenticated, same answer as the command hook', { timeout: 180_000 }, async () => {
  const root = project({ ...BIOME, 'a.ts': 'export const a = 1;\n' });
  roots.push(root);
  const port = await freePort();
  const secret = newSecret();
  const env = { ...iso.env, FORMATBOX_HOOK_SECRET: secret };

  const start = await runCli(built.cli, ['hook', 'claude-code', '--http-port', String(port)], { env, input: JSON.stringify({ hook_event_name: 'SessionStart', source: 'startup', cwd: root }) });
  assert.equal(start.code, 0, start.stderr);
  assert.equal(start.stdout, '', 'nothing for the model, and the port is served');
  assert.equal(daemonPids(iso.runtimeDir).length, 1, 'the daemon runs');
  // The daemon's own secret: a 0600 file in its 0700 directory.
  const secretFile = join(iso.runtimeDir, 'formatbox', 'hook-secret');
  assert.equal(statSync(secretFile).mode & 0o777, 0o600);
  assert.equal(statSync(join(iso.runtimeDir, 'formatbox')).mode & 0o777, 0o700);

  // Claude Code has written W; the event carries P as originalFile.
  const prior = 'export const a = 1;\n';
  const written = 'export const a = {b:1,c:[2]};\n';
  const { writeFileSync } = await import('node:fs');
  writeFileSync(join(root, 'a.ts'), written);
  const event = JSON.stringify({ hook_event_name: 'PostToolUse', cwd: root, tool_name: 'Edit', tool_input: { file_path: join(root, 'a.ts'), old_string: 'a = 1;', new_string: 'a = {b:1,c:[2]};' }, tool_response: { originalFile: prior } });
  const host = { host: `127.0.0.1:${port}` };

  for (const [why, headers] of [
    ['no token', host],
    ['a wrong token', { ...host, authorization: `Bearer ${newSecret()}` }],
    ['a token that is not a bearer', { ...host, authorization: secret }],
  ] as Array<[string, Record<string, string>]>) {
    const refused = await post(port, event, headers);
    assert.equal(refused.status, 401, why);
  }
  assert.equal(readFileSync(join(root, 'a.ts'), 'utf8'), written, 'a refused request formats nothing');
  assert.equal((await post(port, event, { host: `evil.example:${port}`, authorization: `Bearer ${secret}` })).status, 403, 'a foreign Host');
  assert.equal((await post(port, event, { ...host, authorization: `Bearer ${secret}` }, '/other')).status, 404);
  assert.equal((await post(port, '', { ...host, authorization: `Bearer ${secret}` }, '/hook/claude-code', 'GET')).status, 404);

  const answered = await post(port, event, { ...host, authorization: `Bearer ${secret}` });
  assert.equal(answered.status, 200, answered.body);
  const context = (JSON.parse(answered.body) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } }).hookSpecificOutput;
  assert.equal(context.hookEventName, 'PostToolUse');
  assert.match(context.additionalContext, /<<<\nexport const a = \{ b: 1, c: \[2\] \};\n>>>|<<<\na = \{ b: 1, c: \[2\] \};\n>>>/);
  assert.equal(readFileSync(join(root, 'a.ts'), 'utf8'), 'export const a = { b: 1, c: [2] };\n');

  // The daemon's own secret works too; bad bodies say nothing and never block.
  const own = readFileSync(secretFile).toString('hex');
  const nothing = await post(port, '{"tool_name": "Edit", ', { ...host, authorization: `Bearer ${own}` });
  assert.deepEqual([nothing.status, JSON.parse(nothing.body)], [200, {}]);
  const other = await post(port, JSON.stringify({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } }), { ...host, authorization: `Bearer ${own}` });
  assert.deepEqual([other.status, JSON.parse(other.body)], [200, {}]);

  // A second session on a port something else holds: the user is told, the model is not.
  const holder = createServer();
  const taken = await freePort();
  await new Promise<void>((done) => holder.listen(taken, '127.0.0.1', () => done()));
  try {
    const busy = await runCli(built.cli, ['hook', 'claude-code', '--http-port', String(taken)], { env, input: JSON.stringify({ hook_event_name: 'SessionStart', cwd: root }) });
    assert.equal(busy.code, 0);
    assert.match((JSON.parse(busy.stdout) as { systemMessage: string }).systemMessage, new RegExp(`port ${taken} cannot be served`));
  } finally {
    holder.close();
  }
});

test('a registered session keeps the daemon up past its idle time while the session\'s process lives', { timeout: 60_000 }, async () => {
  const { env: idleEnv, runtimeDir } = isolatedEnv({ FORMATBOX_DAEMON_IDLE_MS: '300' });
  try {
    // Without a session the daemon goes after 300 ms idle.
    const plain = await runCli(built.cli, ['format', '--stdin-filepath', 'x.txt'], { env: idleEnv, input: 'x\n' });
    assert.equal(plain.code, 0, plain.stderr);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(daemonPids(runtimeDir).length, 0, 'an idle daemon without a session exits');
    // A session names its Claude Code process: this test's process stands for it (the hook's parent).
    const port = await freePort();
    const start = await runCli(built.cli, ['hook', 'claude-code', '--http-port', String(port)], { env: { ...idleEnv, FORMATBOX_HOOK_SECRET: newSecret() }, input: JSON.stringify({ hook_event_name: 'SessionStart', cwd: '/' }) });
    assert.equal(start.code, 0, start.stderr);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(daemonPids(runtimeDir).length, 1, 'still up after 5× its idle time: the session lives');
  } finally {
    await cleanUp(runtimeDir);
  }
});
