// `formatbox mcp` driven by the official SDK's own Client over stdio (the real built CLI):
// tools/list shows the six tools with Claude Code / Codex argument names and output schemas (the
// SDK's client validates every structuredContent against them); an edit answers with the receipt line
// once and the edit's text as it is on disk, and the structured receipt (without the file) replays to
// the bytes on disk; both stay bounded at any file size; the root comes from the client's roots, else
// --root; paths outside it are refused.
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
    assert.deepEqual(Object.keys(edit.inputSchema.properties ?? {}).sort(), ['includeContent', 'new_string', 'old_string', 'path', 'replace_all']);
    for (const tool of tools) assert.equal(tool.outputSchema?.type, 'object', `${tool.name} declares an output schema`);
    assert.deepEqual(edit.inputSchema.required, ['path', 'old_string', 'new_string']);
    assert.deepEqual(Object.keys(tools.find((t) => t.name === 'apply_patch')!.inputSchema.properties ?? {}), ['patch', 'includeContent']);

    const result = (await client.callTool({ name: 'edit', arguments: { path: 'src/a.ts', old_string: 'return 1;', new_string: 'return {a:1,b:[2,3]}' } })) as CallToolResult;
    assert.ok(!result.isError, JSON.stringify(result.content));
    const receipt = result.structuredContent as unknown as Receipt;
    assert.equal(receipt.status, 'formatted');
    assert.deepEqual(receipt.input, { oldText: 'return 1;', newText: 'return { a: 1, b: [2, 3] };' });
    const onDisk = readFileSync(join(root, 'src/a.ts'), 'utf8');
    assert.equal(replays(prior, receipt), onDisk);
    assert.equal(receipt.content, undefined, 'no file content unless asked for');
    assert.equal((receipt as { note?: string }).note, undefined, 'the note is the text part, not repeated');
    const text = result.content[0] as { type: string; text: string };
    assert.equal(text.type, 'text');
    assert.equal(text.text.split(receipt.line).length, 2, `the line once: ${text.text}`);
    assert.ok(text.text.includes('<<<\nreturn { a: 1, b: [2, 3] };\n>>>'), text.text);
    const lines = text.text.split('\n');
    assert.equal(new Set(lines.filter((l) => l.length > 3)).size, lines.filter((l) => l.length > 3).length, `no line twice: ${text.text}`);
    const withContent = (await client.callTool({ name: 'edit', arguments: { path: 'src/a.ts', old_string: 'z = 0;', new_string: 'z=0', includeContent: true } })) as CallToolResult;
    assert.equal((withContent.structuredContent as unknown as Receipt).content, readFileSync(join(root, 'src/a.ts'), 'utf8'));

    // multi_edit, write and format use the same names; an unknown old_string is an error result.
    const missing = (await client.callTool({ name: 'edit', arguments: { path: 'src/a.ts', old_string: 'nope', new_string: 'x' } })) as CallToolResult;
    assert.equal(missing.isError, true);
    assert.match((missing.content[0] as { text: string }).text, /EDIT_NOT_APPLICABLE/);
    const write = (await client.callTool({ name: 'write', arguments: { path: 'src/new.ts', content: 'let n=1\n' } })) as CallToolResult;
    const written = write.structuredContent as unknown as Receipt;
    assert.equal(written.status, 'formatted');
    assert.equal(readFileSync(join(root, 'src/new.ts'), 'utf8'), 'let n = 1;\n');
    // A write's input would be the whole file: the diff is from what was sent, and it replays.
    assert.equal(written.input, undefined);
    assert.equal(applyUnifiedDiff('let n=1\n', written.diff!), 'let n = 1;\n');
    assert.match((write.content[0] as { text: string }).text, /\+let n = 1;/);
    const multi = (await client.callTool({ name: 'multi_edit', arguments: { path: 'src/new.ts', edits: [{ old_string: 'let n = 1;', new_string: 'let n=[1]' }] } })) as CallToolResult;
    assert.equal(readFileSync(join(root, 'src/new.ts'), 'utf8'), 'let n = [1];\n', JSON.stringify(multi.content));
    writeFileSync(join(root, 'src/messy.ts'), 'const q={q:1}\n');
    await client.callTool({ name: 'format', arguments: { path: 'src/messy.ts' } });
    assert.equal(readFileSync(join(root, 'src/messy.ts'), 'utf8'), 'const q = { q: 1 };\n');
    const patch = (await client.callTool({ name: 'apply_patch', arguments: { patch: '*** Begin Patch\n*** Add File: src/p.ts\n+const p={p:1}\n*** End Patch\n' } })) as CallToolResult;
    assert.ok(!patch.isError, JSON.stringify(patch.content));
    assert.equal(readFileSync(join(root, 'src/p.ts'), 'utf8'), 'const p = { p: 1 };\n');
    // The patch as it is on disk now, delimited; no reread hint beside it.
    const patchText = (patch.content[0] as { text: string }).text;
    assert.ok(patchText.includes('<<<\n*** Begin Patch\n*** Add File: src/p.ts\n+const p = { p: 1 };\n*** End Patch\n>>>'), patchText);
    assert.doesNotMatch(patchText, /reread/);
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

test('the server loads no package and nothing that formats before its first tool call', () => {
  const bundle = readFileSync(join(built.dir, 'dist', 'cli-mcp.js'), 'utf8');
  const modules = [...bundle.matchAll(/^\/\/ (src\/\S+)$/gm)].map((m) => m[1] as string).sort();
  assert.deepEqual([...new Set(modules)], ['src/agents/shared/mcp-receipt.ts', 'src/cli/exit-codes.ts', 'src/cli/mcp-server.ts', 'src/cli/mcp-stdio.ts', 'src/cli/mcp.ts', 'src/core/errors.ts', 'src/core/shown.ts', 'src/node/version.ts']);
  const packages = [...bundle.matchAll(/^import .* from ["']([^"']+)["'];?$/gm)].map((m) => m[1] as string).filter((s) => !s.startsWith('node:'));
  assert.deepEqual(packages, [], 'the protocol is formatbox\'s own (the SDK is a dev dependency)');
  assert.match(bundle, /import\(["']\.\/cli-mcp-tools\.js["']\)/, 'the tools come in on demand');
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

/** `n` formatted lines of TypeScript, one function each. */
function bigFile(n: number): string {
  return Array.from({ length: n }, (_, i) => `export function f${i}(a: number): number {\n  return a + ${i};\n}\n`).join('').slice(0, undefined);
}

test('a one-line edit stays bounded at any file size (text and structured)', { timeout: 120_000 }, async () => {
  const maxDiffChars = 2000; // the engine's default
  for (const lines of [400, 4000]) {
    const prior = bigFile(Math.ceil(lines / 3));
    const root = project({ ...BIOME, 'src/big.ts': prior });
    roots.push(root);
    const client = await connect(['--root', root]);
    try {
      const result = (await client.callTool({ name: 'edit', arguments: { path: 'src/big.ts', old_string: 'return a + 7;', new_string: 'return {a,b:[7]}' } })) as CallToolResult;
      assert.ok(!result.isError, JSON.stringify(result.content));
      const receipt = result.structuredContent as unknown as Receipt;
      const text = (result.content[0] as { text: string }).text;
      const bound = maxDiffChars + receipt.line.length + 1;
      assert.ok(text.length <= bound, `${lines} lines: text is ${text.length} chars, bound ${bound}`);
      assert.ok(JSON.stringify(receipt).length <= bound + 500, `${lines} lines: structured is ${JSON.stringify(receipt).length} chars`);
      assert.ok(text.includes('<<<\nreturn { a, b: [7] };\n>>>'), text);
      console.log(`${lines}-line file, one-line edit: text ${text.length} chars, structured ${JSON.stringify(receipt).length} chars`);
      assert.equal(replays(prior, receipt), readFileSync(join(root, 'src/big.ts'), 'utf8'));

      // A 400-line edit whose text does not fit: a reread hint naming where it is, still bounded.
      const block = Array.from({ length: 400 }, (_, i) => `const v${i}={k:${i}}`).join('\n');
      const large = (await client.callTool({ name: 'edit', arguments: { path: 'src/big.ts', old_string: 'return a + 9;', new_string: `${block}\nreturn a` } })) as CallToolResult;
      assert.ok(!large.isError, JSON.stringify(large.content));
      const largeText = (large.content[0] as { text: string }).text;
      const largeReceipt = large.structuredContent as unknown as Receipt & { hint?: string };
      assert.ok(largeText.length <= maxDiffChars + largeReceipt.line.length + 1, `${largeText.length} chars`);
      assert.ok(JSON.stringify(largeReceipt).length <= maxDiffChars + 1000, `${JSON.stringify(largeReceipt).length} chars`);
      assert.match(largeReceipt.hint ?? '', /reread lines \d+-\d+ of src\/big\.ts/);
      console.log(`${lines}-line file, 400-line edit: text ${largeText.length} chars, structured ${JSON.stringify(largeReceipt).length} chars`);
    } finally {
      await client.close();
    }
  }
});
