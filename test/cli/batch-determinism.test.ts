// A project-wide run's verdict does not depend on the machine's load: the same batch (a slow file
// among small ones and a syntax error), run while busy loops hold every core, gives the same exit
// code and the same per-file verdicts every time. A file over its budget is formatted again alone
// with three times it before it counts; one that still is (a hung formatter, played here by a budget
// far below what the file needs) is reported as timed out, on stderr, and the run ends with its
// summary, exit 2 as a file that failed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { cleanUp, installCopy, isolatedEnv, project, runCli } from './built-cli.js';

const built = await installCopy();
const iso = isolatedEnv();
const dirs: string[] = [];
const loads: ChildProcess[] = [];
after(async () => {
  for (const child of loads) child.kill('SIGKILL');
  await cleanUp(iso.runtimeDir, built.dir, ...dirs);
});

/** A TypeScript file Prettier takes a while on (`functions` functions, none formatted). */
function slowSource(functions: number): string {
  let text = '';
  for (let i = 0; i < functions; i++) text += `export function f${i}(a,b){if(a>b){return {a:a,b:[b,a,${i}].map(x=>x*2)}}else{return null}}\n`;
  return text;
}

function batch(functions: number): string {
  const root = project({ '.prettierrc': '{}\n', 'src/slow.ts': slowSource(functions), 'src/a.ts': 'const a={a:1}\n', 'src/b.ts': 'const b = 1;\n', 'src/bad.ts': 'const = ;\n' });
  mkdirSync(join(root, '.git'));
  dirs.push(root);
  return root;
}

/** Busy loops on every core (and one more), until the test ends. */
function loadEveryCore(): void {
  for (let i = 0; i <= availableParallelism(); i++) loads.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

interface Verdicts {
  code: number;
  files: Array<[string, string]>;
  summary: { timedOut: number; retriedAfterTimeout: number; failed: number };
}

async function verdicts(root: string, args: string[]): Promise<Verdicts> {
  const run = await runCli(built.cli, ['format', '--json', '--no-cache', ...args], { env: iso.env, cwd: root });
  const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { path?: string; status?: string; error?: unknown; summary?: Verdicts['summary'] });
  // Sorted: a file retried after a timeout is answered after the others.
  const files = lines.filter((l) => l.path).map((l): [string, string] => [l.path!, l.status ?? 'error']).sort(([a], [b]) => (a < b ? -1 : 1));
  return { code: run.code, files, summary: lines.at(-1)!.summary! };
}

test('under busy loops on every core, the same batch gives the same exit code and verdicts on every run', { timeout: 600_000 }, async () => {
  const root = batch(400);
  loadEveryCore();
  const runs: Verdicts[] = [];
  for (let i = 0; i < 3; i++) runs.push(await verdicts(root, ['--threads', '2']));
  const expected = [['.prettierrc', 'unchanged'], ['src/a.ts', 'would-change'], ['src/b.ts', 'unchanged'], ['src/bad.ts', 'failed'], ['src/slow.ts', 'would-change']];
  for (const [index, run] of runs.entries()) {
    assert.equal(run.code, 2, `run ${index + 1}: exit 2 (a syntax error), never another code`);
    assert.deepEqual(run.files, expected, `run ${index + 1}`);
    assert.equal(run.summary.timedOut, 0, `run ${index + 1}: nothing counted as timed out`);
  }
});

test('a file that still times out after its retry is reported as timed out, and the run ends with its summary', { timeout: 600_000 }, async () => {
  // Far more than three seconds of Prettier even on an idle machine; the budget leaves the config's
  // share of it (a quarter) ample, so the file's formatting, not its config, runs over.
  const root = batch(12_000);
  const json = await verdicts(root, ['--timeout-ms', '1000', 'src/slow.ts']);
  assert.deepEqual(json.files, [['src/slow.ts', 'timeout']]);
  assert.equal(json.summary.retriedAfterTimeout, 1, 'formatted again once before it counted');
  assert.equal(json.summary.timedOut, 1);
  assert.equal(json.code, 2);
  // Alone: with a budget this small, a small file sharing the retry's fresh worker could run over
  // too (a worker's first call loads Prettier, and that counts against the budget).
  const human = await runCli(built.cli, ['format', '--no-cache', '--no-daemon', '--timeout-ms', '1000', 'src/slow.ts'], { env: iso.env, cwd: root });
  assert.equal(human.code, 2, human.stderr);
  assert.equal(human.stdout, '');
  assert.equal(human.stderr, 'timed out: src/slow.ts: timed out after 3000 ms\nChecked 1 file: 0 would change, 0 already formatted, 1 timed out. See the error above.\n', 'the retry\'s budget, on stderr, and the summary');
  assert.doesNotMatch(human.stderr, /internal error/);
});
