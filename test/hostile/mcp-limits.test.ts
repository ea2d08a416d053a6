// `formatbox mcp` over its limits: a message over the stdio cap (10 MiB, the SDK's) gets a JSON-RPC
// error for its id and the server stays up for the next call; so does a line that is not JSON-RPC.
// The real SDK client for the review's case, raw stdio for the variants; the server runs under GNU
// time, so its peak RSS is checked against a bound (an oversized line is dropped as it streams).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cleanUp, installCopy, isolatedEnv, project } from '../cli/built-cli.js';
import { rawMcpSession } from '../cli/mcp-raw.js';
import { haveGnuTime } from './bounded.js';

const built = await installCopy();
const iso = isolatedEnv({ FORMATBOX_NO_DAEMON: '1' });
const dirs: string[] = [];
after(() => cleanUp(iso.runtimeDir, built.dir, ...dirs));

const MIB = 1024 * 1024;
const MAX_RSS_MIB = 512;
const BOUND = { timeout: 120_000 };

function rssFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fb-mcp-rss-'));
  dirs.push(dir);
  return join(dir, 'rss');
}

async function checkRss(file: string): Promise<void> {
  for (let i = 0; i < 100 && haveGnuTime() && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
  if (!existsSync(file)) return;
  const kib = Number(readFileSync(file, 'utf8').trim().split('\n').pop());
  assert.ok(kib < MAX_RSS_MIB * 1024, `the MCP server peaked at ${Math.round(kib / 1024)} MiB, over ${MAX_RSS_MIB} MiB`);
}

test('review case: an 11 MiB write gets a JSON-RPC error from the real SDK client, and the next call is answered', BOUND, async () => {
  const root = project({ '.git/HEAD': 'ref: refs/heads/main\n', 'biome.json': '{}\n' });
  dirs.push(root);
  const rss = rssFile();
  const [command, args] = haveGnuTime() ? ['/usr/bin/time', ['-f', '%M', '-o', rss, process.execPath, built.cli, 'mcp']] : [process.execPath, [built.cli, 'mcp']];
  const client = new Client({ name: 'limits-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, env: iso.env as Record<string, string>, cwd: root, stderr: 'pipe' }));
  try {
    for (const size of [11 * MIB, 24 * MIB]) {
      await assert.rejects(
        client.callTool({ name: 'write', arguments: { path: 'big.ts', content: 'x'.repeat(size) } }),
        (error: unknown) => error instanceof McpError && error.code === -32600 && /over formatbox's limit/.test(error.message),
        `${size} bytes`,
      );
      const next = (await client.callTool({ name: 'write', arguments: { path: 'a.ts', content: 'const a=1\n' } })) as CallToolResult;
      assert.ok(!next.isError, JSON.stringify(next.content));
      assert.equal(readFileSync(join(root, 'a.ts'), 'utf8'), 'const a = 1;\n');
    }
    assert.equal(existsSync(join(root, 'big.ts')), false, 'nothing of the oversized call was done');
  } finally {
    await client.close();
  }
  await checkRss(rss);
});

/** A raw stdio session, under GNU time where it is installed. */
function rawSession(root: string, rss: string) {
  const [command, args] = haveGnuTime() ? ['/usr/bin/time', ['-f', '%M', '-o', rss, process.execPath, built.cli, 'mcp']] : [process.execPath, [built.cli, 'mcp']];
  return rawMcpSession(command as string, args as string[], { env: iso.env, cwd: root });
}

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const call = (id: number | string, content: string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'write', arguments: { path: 'b.ts', content } } });

test('raw stdio variants: a string id, no id, garbage over the cap, a short non-JSON line, several oversized in a row', BOUND, async () => {
  const root = project({ '.git/HEAD': 'ref: refs/heads/main\n', 'biome.json': '{}\n' });
  dirs.push(root);
  const rss = rssFile();
  const s = rawSession(root, rss);
  await s.write(`${INIT}\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  await s.reply((r) => r.id === 0);

  // A string id, in a message sent in 1 MiB pieces.
  const big = call('big-one', 'y'.repeat(12 * MIB));
  for (let i = 0; i < big.length; i += MIB) await s.write(big.slice(i, i + MIB));
  await s.write('\n');
  const stringId = await s.reply((r) => r.id === 'big-one');
  assert.equal((stringId.error as { code: number }).code, -32600);

  // Garbage with no id over the cap: an error with id null.
  await s.write(`${'z'.repeat(11 * MIB)}\n`);
  const noId = await s.reply((r) => r.id === null && /over formatbox's limit/.test(String((r.error as { message?: string })?.message)));
  assert.equal((noId.error as { code: number }).code, -32600);

  // A short line that is not JSON: a parse error.
  await s.write('this is not json\n');
  const parse = await s.reply((r) => r.id === null && (r.error as { code?: number })?.code === -32700);
  assert.ok(parse);

  // Three oversized in a row, then a real call: each answered, the server still up.
  for (const id of [21, 22, 23]) await s.write(`${call(id, 'w'.repeat(10 * MIB + 1))}\n`);
  for (const id of [21, 22, 23]) assert.equal(((await s.reply((r) => r.id === id)).error as { code: number }).code, -32600, `id ${id}`);
  await s.write(`${call(30, 'const b=2\n')}\n`);
  const ok = await s.reply((r) => r.id === 30);
  assert.equal(ok.error, undefined, JSON.stringify(ok));
  assert.equal(readFileSync(join(root, 'b.ts'), 'utf8'), 'const b = 2;\n');

  // A message just under the cap is read (the cap is the SDK's, not lower).
  await s.write(`${call(40, `// ${'q'.repeat(MIB)}\n`)}\n`);
  const under = await s.reply((r) => r.id === 40);
  assert.equal(under.error, undefined, 'a 1 MiB call is answered normally');
  await s.end();
  await checkRss(rss);
});
