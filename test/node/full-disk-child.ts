// Runs inside bwrap with a 64 KiB tmpfs at argv[2]: writes a small file through the runtime, fills the
// disk, then tries to replace the file with more than fits. Prints one JSON line.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../src/node/index.js';
import { stageWrite } from '../../src/node/fs/staged-write.js';
import { isFormatboxError } from '../../src/core/errors.js';

const root = process.argv[2]!;
const runtime = createRuntime({ root, builtins: false });
const original = 'original contents\n'.repeat(100);
await runtime.write({ path: 'notes.txt', content: original });
// Fill what is left, so the temp file for the next write cannot be written.
let n = 0;
try {
  for (;;) writeFileSync(join(root, `fill-${n++}`), Buffer.alloc(4096, 1));
} catch {
  // ENOSPC: full
}
let error = '';
let code = '';
try {
  await runtime.write({ path: 'notes.txt', content: 'new contents\n'.repeat(2000) });
} catch (caught) {
  error = caught instanceof Error ? caught.message : String(caught);
  code = isFormatboxError(caught) ? caught.code : '';
}
// An edit's F is written as a string (staged, its flush finished at the commit): the same refusal.
let stagedCode = '';
const staged = stageWrite(join(root, 'notes.txt'), { shown: 'notes.txt', flushAtCommit: true });
try {
  await staged.fill('formatted contents\n'.repeat(2000));
} catch (caught) {
  stagedCode = isFormatboxError(caught) && /ENOSPC/.test(caught.message) ? caught.code : String(caught);
} finally {
  staged.release();
}
const intact = readFileSync(join(root, 'notes.txt'), 'utf8') === original;
const leftovers = readdirSync(root).filter((name) => name.includes('.formatbox-'));
await runtime.close();
console.log(JSON.stringify({ error, code, stagedCode, intact, leftovers }));
