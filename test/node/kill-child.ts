// Child of kill.test.ts: performs edits through the runtime until it is killed (or `count` is
// reached), logging each intent (P and the input) before the edit and the final bytes after it.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../src/node/index.js';

const [root, logPath, firstArg, countArg] = process.argv.slice(2) as [string, string, string, string];
const FILES = ['a.ts', 'b.ts', 'c.ts'];
const log = openSync(logPath, 'a');
function record(entry: object): void {
  writeSync(log, JSON.stringify(entry) + '\n');
  fsyncSync(log);
}

const runtime = createRuntime({ root });
// Warm up (engine, worker, Biome compiled) on a file of its own, so the kills land among the edits.
mkdirSync(join(root, 'warm'), { recursive: true });
await runtime.write({ path: 'warm/w.ts', content: 'export const w=1' });
record({ ready: true });
const first = Number(firstArg);
for (let i = first; i < first + Number(countArg); i++) {
  const path = FILES[i % FILES.length]!;
  const prior = readFileSync(join(root, path), 'utf8');
  const lastLine = prior.trimEnd().split('\n').pop()!;
  const input = { oldText: lastLine, newText: `${lastLine}\nexport const v${i}={a:${i},b:'${i}'}` };
  record({ i, path, prior, input });
  const receipt = await runtime.edit({ path, ...input });
  record({ i, path, done: true, status: receipt.status, content: receipt.content });
}
closeSync(log);
await runtime.close();
process.exit(0);
