// `formatbox mcp` driven by the official SDK's own Client over stdio (the real built CLI):
// tools/list shows the six tools with Claude Code / Codex argument names; an edit returns the note as
// text and the receipt as structured content, and the receipt replays to the bytes on disk; the root
// comes from the client's roots, else --root; paths outside it are refused.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { applyInput } from '../../src/tools/index.js';
import { applyUnifiedDiff } from '../../src/core/diff.js';
import type { Receipt, SingleFileInput } from '../../src/core/types.js';
import { cleanUp, installCopy, isolatedEnv, project } from './built-cli.js';

const built = await installCopy();
const iso = isolatedEnv();
const roots: string[] = [];
after(() => cleanUp(iso.runtimeDir, built.dir, ...roots));

const BIOME = { 'biome.json': '{ "formatter": { "indentStyle": "space" } }\n' };

async function connect(args: string[], clientRoots?: string[]): Promise<Client> {
  const client = new Client({ name: 'formatbox-test', version: '1.0.0' }, clientRoots ? { capabilities: { roots: { listChanged: true } } } : {});
  if (clientRoots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: clientRoots.map((r) => ({ uri: pathToFileURL(r).href, name: r })) }));
  const transport = new StdioClientTransport({ command: process.execPath, args: [built.cli, 'mcp', ...args], env: iso.env as Record<string, string>, stderr: 'pipe' });
  await client.connect(transport);
  return client;
}

function replays(prior: string, receipt: Receipt): string {
  const text = applyInput(prior, receipt.input as SingleFileInput);
  return receipt.diff ? applyUnifiedDiff(text, receipt.diff) : text;
}

test('tools/list, and an edit whose receipt replays to the disk (root from --root)', { timeout: 120_000 }, async () => {
  const prior = 'export function f() {\n  return 1;\n}\nexport const z = 0;\n';
  const root = project({ ...BIOME, 'src/a.ts': prior });
  roots.push(root);
  const client = await connect(['--root', root]);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['apply_patch', 'doctor', 'edit', 'format', 'multi_edit', 'write']);
    const edit = tools.find((t) => t.name === 'edit')!;
    assert.deepEqual(Object.keys(edit.inputSchema.properties ?? {}).sort(), ['new_string', 'old_string', 'path', 'replace_all']);
    assert.deepEqual(edit.inputSchema.required, ['path', 'old_string', 'new_string']);
    assert.deepEqual(Object.keys(tools.find((t) => t.name === 'apply_patch')!.inputSchema.properties ?? {}), ['patch']);

    const result = (await client.callTool({ name: 'edit', arguments: { path: 'src/a.ts', old_string: 'return 1;', new_string: 'return {a:1,b:[2,3]}' } })) as CallToolResult;
    assert.ok(!result.isError, JSON.stringify(result.content));
    const receipt = result.structuredContent as unknown as Receipt;
    assert.equal(receipt.status, 'formatted');
    assert.deepEqual(receipt.input, { oldText: 'return 1;', newText: 'return { a: 1, b: [2, 3] };' });
    const onDisk = readFileSync(join(root, 'src/a.ts'), 'utf8');
    assert.equal(replays(prior, receipt), onDisk);
    assert.equal(receipt.content, onDisk);
    const text = result.content[0] as { type: string; text: string };
    assert.equal(text.type, 'text');
    assert.ok(text.text.includes(receipt.line), text.text);

    // multi_edit, write and format use the same names; an unknown old_string is an error result.
    const missing = (await client.callTool({ name: 'edit', arguments: { path: 'src/a.ts', old_string: 'nope', new_string: 'x' } })) as CallToolResult;
    assert.equal(missing.isError, true);
    assert.match((missing.content[0] as { text: string }).text, /EDIT_NOT_APPLICABLE/);
    const write = (await client.callTool({ name: 'write', arguments: { path: 'src/new.ts', content: 'let n=1\n' } })) as CallToolResult;
    assert.equal((write.structuredContent as unknown as Receipt).status, 'formatted');
    assert.equal(readFileSync(join(root, 'src/new.ts'), 'utf8'), 'let n = 1;\n');
    const multi = (await client.callTool({ name: 'multi_edit', arguments: { path: 'src/new.ts', edits: [{ old_string: 'let n = 1;', new_string: 'let n=[1]' }] } })) as CallToolResult;
    assert.equal(readFileSync(join(root, 'src/new.ts'), 'utf8'), 'let n = [1];\n', JSON.stringify(multi.content));
    writeFileSync(join(root, 'src/messy.ts'), 'const q={q:1}\n');
    await client.callTool({ name: 'format', arguments: { path: 'src/messy.ts' } });
    assert.equal(readFileSync(join(root, 'src/messy.ts'), 'utf8'), 'const q = { q: 1 };\n');
    const patch = (await client.callTool({ name: 'apply_patch', arguments: { patch: '*** Begin Patch\n*** Add File: src/p.ts\n+const p={p:1}\n*** End Patch\n' } })) as CallToolResult;
    assert.ok(!patch.isError, JSON.stringify(patch.content));
    assert.equal(readFileSync(join(root, 'src/p.ts'), 'utf8'), 'const p = { p: 1 };\n');
    const doctor = (await client.callTool({ name: 'doctor', arguments: {} })) as CallToolResult;
    assert.match((doctor.content[0] as { text: string }).text, /typescript: biome/);

    // Paths are contained in the root.
    const outside = (await client.callTool({ name: 'write', arguments: { path: '../escape.ts', content: 'x' } })) as CallToolResult;
    assert.equal(outside.isError, true);
    assert.match((outside.content[0] as { text: string }).text, /PATH_REFUSED/);
  } finally {
    await client.close();
  }
});

test('the root comes from the client\'s roots when it offers them', { timeout: 120_000 }, async () => {
  const fallback = project({ ...BIOME, 'a.ts': 'export const a = 1;\n' });
  const offered = project({ ...BIOME, 'a.ts': 'export const a = 1;\n' });
  roots.push(fallback, offered);
  const client = await connect(['--root', fallback], [offered]);
  try {
    const result = (await client.callTool({ name: 'edit', arguments: { path: 'a.ts', old_string: 'a = 1;', new_string: 'a=[1]' } })) as CallToolResult;
    assert.ok(!result.isError, JSON.stringify(result.content));
    assert.equal(readFileSync(join(offered, 'a.ts'), 'utf8'), 'export const a = [1];\n');
    assert.equal(readFileSync(join(fallback, 'a.ts'), 'utf8'), 'export const a = 1;\n');
  } finally {
    await client.close();
  }
});
