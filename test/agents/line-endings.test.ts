// A CRLF file in a Biome project (Biome writes LF): the rewritten edit keeps every change the
// formatter made in it (the `;` it adds at the line's end), and the model is told the line-ending
// change in one line, not as a diff of every line, also for a 2,000-line file and for a write.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contextFor } from '../../src/agents/shared/context.js';
import type { Receipt, SingleFileInput } from '../../src/core/types.js';
import { createRequestHandler } from '../../src/node/service/requests.js';
import { applyInput } from '../../src/tools/index.js';

const root = mkdtempSync(join(tmpdir(), 'fb-crlf-'));
mkdirSync(join(root, '.git'));
writeFileSync(join(root, 'biome.json'), '{}\n');
const handler = createRequestHandler({ defaultRoot: root });
after(async () => {
  await handler.close();
  rmSync(root, { recursive: true, force: true });
});

async function told(name: string, prior: string, input: SingleFileInput): Promise<{ receipt: Receipt; context: string }> {
  writeFileSync(join(root, name), prior);
  const receipt = (await handler.handle({ path: name, method: 'beforeWrite', input })) as Receipt;
  const context = contextFor(receipt, input, applyInput(prior, input), 'content' in input ? null : prior, name, 2000) ?? '';
  return { receipt, context };
}

test('an edit in a CRLF file: the `;` stays in the rewritten edit, the endings are one line', async () => {
  const { receipt, context } = await told('a.ts', 'export const a = 1;\r\nexport const b = 2;\r\n', { oldText: 'export const a = 1;', newText: 'export const a = {x:1}' });
  assert.equal(receipt.content, 'export const a = { x: 1 };\nexport const b = 2;\n');
  assert.deepEqual(receipt.input, { oldText: 'export const a = 1;', newText: 'export const a = { x: 1 };' });
  assert.match(context, /new_string is now on disk as[^\n]*\n<<<\nexport const a = \{ x: 1 \};\n>>>/);
  assert.match(context, /the formatter changed the line endings from CRLF to LF \(every line\)/);
  assert.doesNotMatch(context, /^[-+]export const b/m, 'no line is diffed for its ending alone');
});

test('a 2,000-line CRLF file: one line for the endings, the edit block, nothing else', async () => {
  const big = Array.from({ length: 2000 }, (_, i) => `export const v${i} = ${i};`).join('\r\n') + '\r\n';
  const { receipt, context } = await told('big.ts', big, { oldText: 'export const v7 = 7;', newText: 'export const v7 = {k:7}' });
  assert.equal(receipt.status, 'formatted');
  assert.ok(context.length < 400, `${context.length} characters:\n${context}`);
  assert.match(context, /CRLF to LF/);
  assert.match(context, /export const v7 = \{ k: 7 \};/);
});

test('a write into a CRLF file: the content change as a diff, the endings as one line', async () => {
  const { context } = await told('w.ts', 'export const w = 1;\r\n', { content: 'export const w = {y:2}\r\nexport const z = 3;\r\n' });
  assert.match(context, /CRLF to LF/);
  assert.match(context, /^\+export const w = \{ y: 2 \};$/m);
  assert.doesNotMatch(context, /^[-+]export const z = 3;$/m);
});
