// `formatbox mcp` speaks MCP with its own small server (src/cli/mcp-server.ts), so these check it
// against the official SDK's own Client (a dev dependency) and, for what a well-behaved client never
// sends, raw JSON-RPC lines: protocol-version negotiation, ping, method not found, invalid params,
// cancellation, replies to ids it never sent, a client's roots that are not file:// URLs.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION, ListRootsRequestSchema, McpError, SUPPORTED_PROTOCOL_VERSIONS, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cleanUp, installCopy, isolatedEnv, project } from './built-cli.js';
import { rawMcpSession } from './mcp-raw.js';

const built = await installCopy();
const iso = isolatedEnv({ FORMATBOX_NO_DAEMON: '1' });
const dirs: string[] = [];
after(() => cleanUp(iso.runtimeDir, built.dir, ...dirs));
const BOUND = { timeout: 120_000 };
const BIOME = { '.git/HEAD': 'ref: refs/heads/main\n', 'biome.json': '{ "formatter": { "indentStyle": "space" } }\n' };

test('the SDK client connects, negotiates the newest version, pings, and gets "method not found" for what the server does not offer', BOUND, async () => {
  const root = project(BIOME);
  dirs.push(root);
  const client = new Client({ name: 'protocol-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [built.cli, 'mcp', '--root', root], env: iso.env as Record<string, string>, stderr: 'pipe' }));
  try {
    assert.deepEqual(client.getServerVersion(), { name: 'formatbox', version: built.version });
    assert.deepEqual(client.getServerCapabilities(), { tools: {} });
    assert.deepEqual(await client.ping(), {});
    await assert.rejects(client.listResources(), (error: unknown) => error instanceof McpError && error.code === -32601);
    await assert.rejects(client.listPrompts(), (error: unknown) => error instanceof McpError && error.code === -32601);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['edit', 'multi_edit', 'write', 'apply_patch', 'format', 'doctor']);
    const unknown = (await client.callTool({ name: 'no_such_tool', arguments: {} })) as CallToolResult;
    assert.equal(unknown.isError, true);
    assert.match((unknown.content[0] as { text: string }).text, /unknown tool "no_such_tool" \(INVALID_REQUEST\)/);
    const written = (await client.callTool({ name: 'write', arguments: { path: 'a.ts', content: 'const a=1\n' } })) as CallToolResult;
    assert.ok(!written.isError, JSON.stringify(written.content));
    assert.equal(readFileSync(join(root, 'a.ts'), 'utf8'), 'const a = 1;\n');
  } finally {
    await client.close();
  }
});

test('a client\'s roots that are not file:// URLs are refused with the reason, and --root is used', BOUND, async () => {
  const root = project(BIOME);
  dirs.push(root);
  const client = new Client({ name: 'protocol-test', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'https://example.invalid/repo' }] }) as never);
  const transport = new StdioClientTransport({ command: process.execPath, args: [built.cli, 'mcp', '--root', root], env: iso.env as Record<string, string>, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  await client.connect(transport);
  try {
    const written = (await client.callTool({ name: 'write', arguments: { path: 'b.ts', content: 'const b=2\n' } })) as CallToolResult;
    assert.ok(!written.isError, JSON.stringify(written.content));
    assert.equal(readFileSync(join(root, 'b.ts'), 'utf8'), 'const b = 2;\n');
    assert.match(stderr, /roots\/list failed \(roots\/list: the client's answer is not a list of \{uri: "file:\/\/…", name\?\}\); using /);
  } finally {
    await client.close();
  }
});

/** A raw stdio session: send messages, read replies by id. */
function rawSession(root: string) {
  const session = rawMcpSession(process.execPath, [built.cli, 'mcp', '--root', root], { env: iso.env, cwd: root });
  const send = (...messages: unknown[]): void => void session.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
  return { replies: session.replies, send, reply: (id: unknown) => session.reply((r) => r.id === id), end: session.end };
}

const initialize = (id: number, protocolVersion: unknown, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' }, ...extra } });
const codeOf = (reply: Record<string, unknown>): number | undefined => (reply.error as { code?: number } | undefined)?.code;

test('raw JSON-RPC: version negotiation, invalid params, cancellation, stray replies', BOUND, async () => {
  const root = project(BIOME);
  dirs.push(root);
  const s = rawSession(root);
  try {
    // Each version the SDK supports is answered with itself; one it does not know, with the newest.
    for (const [i, version] of SUPPORTED_PROTOCOL_VERSIONS.entries()) {
      s.send(initialize(i + 1, version));
      assert.equal(((await s.reply(i + 1)).result as { protocolVersion: string }).protocolVersion, version);
    }
    s.send(initialize(10, '1999-01-01'));
    const newest = (await s.reply(10)).result as { protocolVersion: string; serverInfo: unknown; capabilities: unknown };
    assert.equal(newest.protocolVersion, LATEST_PROTOCOL_VERSION);
    assert.deepEqual(newest.capabilities, { tools: {} });
    s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });

    // Invalid params: each gets -32602 for its id, and the server stays up.
    s.send(initialize(11, 2025), { jsonrpc: '2.0', id: 12, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {} } });
    s.send({ jsonrpc: '2.0', id: 13, method: 'tools/call', params: { name: 7 } }, { jsonrpc: '2.0', id: 14, method: 'tools/call', params: { name: 'write', arguments: ['a.ts', 'x'] } });
    for (const id of [11, 12, 13, 14]) assert.equal(codeOf(await s.reply(id)), -32602, `id ${id}`);
    // Not JSON-RPC (params an array, an id that is not a string or integer, an unknown key): a parse error, id null when unreadable.
    s.send({ jsonrpc: '2.0', id: 15, method: 'ping', params: [] }, { jsonrpc: '2.0', id: 1.5, method: 'ping' }, { jsonrpc: '2.0', id: 16, method: 'ping', extra: true });
    assert.equal(codeOf(await s.reply(15)), -32700);
    assert.equal(codeOf(await s.reply(16)), -32700);
    s.send({ jsonrpc: '2.0', id: 17, method: 'resources/list' });
    assert.equal(codeOf(await s.reply(17)), -32601);

    // A reply to an id the server never sent is dropped; a ping after it is answered.
    s.send({ jsonrpc: '2.0', id: 999, result: { roots: [] } }, { jsonrpc: '2.0', id: 18, method: 'ping' });
    assert.deepEqual((await s.reply(18)).result, {});

    // A call cancelled before it finishes gets no reply (the spec's rule); the next call does.
    s.send({ jsonrpc: '2.0', id: 20, method: 'tools/call', params: { name: 'write', arguments: { path: 'c.ts', content: 'const c=3\n' } } }, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 20, reason: 'test' } });
    for (let i = 0; i < 400 && !(existsSync(join(root, 'c.ts')) && readFileSync(join(root, 'c.ts'), 'utf8') === 'const c = 3;\n'); i++) await new Promise((r) => setTimeout(r, 50));
    s.send({ jsonrpc: '2.0', id: 21, method: 'tools/call', params: { name: 'doctor', arguments: {} } });
    assert.ok(!(await s.reply(21)).error);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(s.replies.some((r) => r.id === 20), false, 'no reply for the cancelled call');
  } finally {
    await s.end();
  }
});
