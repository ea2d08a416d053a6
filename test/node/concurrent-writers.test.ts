import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../../src/node/index.js';
import { isFormatboxError } from '../../src/core/errors.js';

const TRIALS = Number(process.env.FORMATBOX_RACE_TRIALS ?? 1000);
const FILES = ['a.ts', 'b.ts', 'c.ts'];

/**
 * External writers race formatbox on the same files. Each trial: formatbox edits a file while an
 * external writer replaces it (in place, or by an atomic rename) at a random moment: before the
 * read, between the read and the write of W, while the formatter runs, or after F is written.
 * The external content never contains the edit's oldText, so an edit that starts from it cannot
 * apply. Whatever the order, the external write must survive: formatbox either refused
 * (modified since read / concurrent modification / oldText not found) or wrote before it.
 */
test(`concurrent writers: ${TRIALS} random interleavings, no external write is lost`, async () => {
  const root = mkdtempSync(join(tmpdir(), 'fb-race-'));
  writeFileSync(join(root, 'biome.json'), '{ "formatter": { "indentStyle": "space" } }\n');
  const base = (n: number) => `export const keep${n} = ${n};\nexport const target = 0;\n`;
  for (const f of FILES) writeFileSync(join(root, f), base(0));
  // A `before` observer delays the write of W by a random amount, widening the read→write window.
  const rt = createRuntime({ root, observers: [{ before: () => (Math.random() < 0.5 ? sleep(Math.random() * 3) : undefined) }] });
  await rt.format({ path: 'a.ts' }); // warm
  const outcomes: Record<string, number> = {};
  const count = (key: string) => (outcomes[key] = (outcomes[key] ?? 0) + 1);

  async function trial(k: number, path: string): Promise<void> {
    writeFileSync(join(root, path), base(k));
    const external = `// external write ${k}\nexport const theirs${k} = ${k};\n`;
    const delay = Math.random() * 25;
    const inPlace = Math.random() < 0.5;
    const writer = sleep(delay).then(() => {
      if (inPlace) writeFileSync(join(root, path), external);
      else {
        writeFileSync(join(root, `.${path}.ext`), external);
        renameSync(join(root, `.${path}.ext`), join(root, path));
      }
    });
    let outcome: string;
    try {
      const receipt = await rt.edit({ path, oldText: 'export const target = 0;', newText: `export const target={v:${k}}` });
      outcome = receipt.status === 'skipped' ? `skipped: ${receipt.reason}` : `edited (${receipt.status})`;
    } catch (error) {
      if (!isFormatboxError(error)) throw error;
      outcome = `refused: ${error.code}`;
    }
    await writer;
    count(outcome);
    assert.equal(readFileSync(join(root, path), 'utf8'), external, `trial ${k} (${outcome}, external write after ${delay.toFixed(1)} ms): the external write was lost`);
  }

  try {
    for (let k = 0; k < TRIALS; k += FILES.length) {
      await Promise.all(FILES.map((path, j) => (k + j < TRIALS ? trial(k + j, path) : undefined)));
    }
    console.log(`  outcomes over ${TRIALS} trials: ${JSON.stringify(outcomes)}`);
    // The interleavings really varied: formatbox won some races and refused others.
    assert.ok(Object.keys(outcomes).some((o) => o.startsWith('edited')), 'some edits completed before the external write');
    assert.ok(Object.keys(outcomes).some((o) => o.startsWith('refused')), 'some edits were refused');
  } finally {
    await rt.close();
    rmSync(root, { recursive: true, force: true });
  }
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
