import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../node/index.js';
import type { EditInput, Receipt, SingleFileInput } from '../core/types.js';
import { applyInput } from '../tools/index.js';
import { applyUnifiedDiff } from '../core/diff.js';

/**
 * `formatbox demo`: the main job on an embedded example. A temp project declares Biome (biome.json)
 * and Ruff (ruff.toml); an agent makes one unformatted edit to a TypeScript file and one to a
 * Python file; formatbox formats each in-process and prints the receipt the agent would see.
 */
const PROJECT: Record<string, string> = {
  'biome.json': JSON.stringify({ formatter: { indentStyle: 'space', indentWidth: 2, lineWidth: 80 } }, null, 2) + '\n',
  'ruff.toml': 'line-length = 88\n\n[format]\nquote-style = "single"\n',
  'src/cart.ts': [
    'export interface Item {',
    '  name: string;',
    '  price: number;',
    '}',
    '',
    'export function total(items: Item[]): number {',
    '  return items.reduce((sum, item) => sum + item.price, 0);',
    '}',
    '',
  ].join('\n'),
  'tools/report.py': [
    'def summary(items):',
    "    return ', '.join(item['name'] for item in items)",
    '',
  ].join('\n'),
};

const EDITS: Array<{ path: string } & EditInput> = [
  {
    path: 'src/cart.ts',
    oldText: 'export function total(items: Item[]): number {\n  return items.reduce((sum, item) => sum + item.price, 0);\n}',
    newText: 'export function total(items:Item[],taxRate=0):number{\n  const net=items.reduce((sum,item)=>sum+item.price,0)\n  return net*(1+taxRate)\n}',
  },
  {
    path: 'tools/report.py',
    oldText: "    return ', '.join(item['name'] for item in items)",
    newText: '    names=[item["name"] for item in items if item.get("price",0)>0]\n    return ", ".join(names)',
  },
];

export async function runDemo(write: (text: string) => void = (t) => process.stdout.write(t)): Promise<number> {
  const root = await mkdtemp(join(tmpdir(), 'formatbox-demo-'));
  const runtime = createRuntime({ root });
  let failures = 0;
  try {
    for (const [path, content] of Object.entries(PROJECT)) {
      await mkdir(join(root, path, '..'), { recursive: true });
      await writeFile(join(root, path), content);
    }
    // The project is removed at the end: its path would name nothing left to look at.
    write('formatbox demo — a throwaway project with biome.json and ruff.toml (removed when the demo ends)\n');
    for (const { path, ...input } of EDITS) {
      write(`\n── agent edit on ${path}\n${indent(JSON.stringify(input, null, 2))}\n`);
      const prior = await readFile(join(root, path), 'utf8');
      const receipt: Receipt = await runtime.edit({ path, ...input });
      const onDisk = await readFile(join(root, path), 'utf8');
      write(`── receipt\n  status: ${receipt.status}   reconciled: ${receipt.reconciled}${receipt.reason ? `   reason: ${receipt.reason}` : ''}\n`);
      write(`  line: ${receipt.line}\n`);
      write(`  rewritten input (what the harness puts back in the transcript):\n${indent(JSON.stringify(receipt.input, null, 2), 4)}\n`);
      if (receipt.diff) write(`  diff for changes outside the edit:\n${indent(receipt.diff, 4)}\n`);
      write(`  record: sha256 ${receipt.record.sha256.slice(0, 16)}…, ${receipt.record.bytes} bytes\n`);
      // The reconciliation invariant: replay(P, receipt.input), then receipt.diff, is the file on disk.
      const replayed = applyInput(prior, receipt.input as SingleFileInput);
      const matches = (receipt.diff ? applyUnifiedDiff(replayed, receipt.diff) : replayed) === onDisk;
      if (!matches) failures++;
      write(`  ${matches ? '✓' : '✗'} replay(P, rewritten input)${receipt.diff ? ' + diff' : ''} equals the bytes on disk\n`);
      write(`── file on disk now\n${indent(onDisk)}\n`);
    }
  } finally {
    await runtime.close();
    await rm(root, { recursive: true, force: true });
  }
  return failures === 0 ? 0 : 1;
}

function indent(text: string, by = 2): string {
  const pad = ' '.repeat(by);
  return text.replace(/\n$/, '').split('\n').map((line) => pad + line).join('\n');
}
