// The hostile-repository suite (untrusted mode). Every case is a real directory whose payload would
// write <base>/MARKER (and copy a secret from outside the root) if it ran. formatbox's Node runtime
// runs each case in a child process with a module-loader spy; for each case we assert:
//   1. the marker is absent after formatting, and the secret appears in no output;
//   2. only modules of formatbox and its dependencies (and node: builtins) were loaded;
//   3. the receipt is right: the expected output, or a clean skipped/failed receipt with its reason;
//      the ignored config items are reported (doctor() or the receipt);
//   4. within a time bound (a safety bound, not a speed measurement).
// A positive control then runs Prettier's own Node API on the same directories: its payloads run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CASES, materialise, type HostileCase } from './cases.js';
import type { CaseResult } from './run-cases.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const REPO_URL = pathToFileURL(REPO).href.replace(/\/?$/, '/');
/** Per case, wall clock inside the child (safety bound). */
const CASE_BOUND_MS = 30_000;
const CHILDREN = 2;

function allowedModule(url: string): boolean {
  return (
    url.startsWith('node:') ||
    url.startsWith(`${REPO_URL}src/`) ||
    url.startsWith(`${REPO_URL}node_modules/`) ||
    url.startsWith(`${REPO_URL}test/hostile/`) ||
    url === `${REPO_URL}package.json`
  );
}

function runChild(args: string[], env: Record<string, string>, timeoutMs: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 20_000) stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/** Modules loaded per case, from the spy logs (`case <name>` lines delimit the cases). */
function modulesByCase(logs: string[]): Map<string, Set<string>> {
  const byCase = new Map<string, Set<string>>();
  for (const log of logs) {
    let current = '(startup)';
    for (const line of log.split('\n')) {
      if (line.startsWith('case ')) current = line.slice(5);
      else if (line.startsWith('esm ') || line.startsWith('cjs ')) {
        const set = byCase.get(current) ?? new Set<string>();
        set.add(line.slice(4));
        byCase.set(current, set);
      }
    }
  }
  return byCase;
}

function ignoredLines(result: CaseResult): string[] {
  const items = [...(result.doctorIgnored ?? []), ...((result.receipt?.ignored ?? []) as Array<{ file: string; item: string; reason: string }>)];
  return items.map((i) => `${i.file}: ${i.item} (${i.reason})`);
}

test(`hostile repositories: ${CASES.length} cases, untrusted mode`, { timeout: 900_000 }, async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'formatbox-hostile-'));
  const bases = new Map<string, string>();
  const jobs = CASES.map((c, index) => {
    const caseBase = join(base, `case-${String(index).padStart(2, '0')}`);
    bases.set(c.name, caseBase);
    const root = materialise(c, caseBase);
    // The agent's file exists before the write (an edit of an existing file).
    mkdirSync(dirname(join(root, c.target)), { recursive: true });
    writeFileSync(join(root, c.target), '// before\n');
    return { name: c.name, root, target: c.target, content: c.content, ...(c.config ? { config: c.config } : {}) };
  });
  const secrets = new Map(CASES.map((c) => [c.name, readFileSync(join(bases.get(c.name) as string, 'secret.txt'), 'utf8').trim()]));

  const groups = Array.from({ length: CHILDREN }, (_, i) => jobs.filter((_, k) => k % CHILDREN === i));
  const logs: string[] = [];
  const results: CaseResult[] = [];
  await Promise.all(
    groups.map(async (group, i) => {
      const casesFile = join(base, `jobs-${i}.json`);
      const outFile = join(base, `results-${i}.json`);
      const logFile = join(base, `spy-${i}.log`);
      writeFileSync(casesFile, JSON.stringify(group));
      writeFileSync(logFile, '');
      const child = await runChild(['--import', 'tsx', '--import', './test/hostile/spy.mjs', 'test/hostile/run-cases.ts', casesFile, outFile], { FORMATBOX_SPY_LOG: logFile }, 600_000);
      assert.ok(existsSync(outFile), `child ${i} wrote no results (exit ${child.code}): ${child.stderr.slice(0, 2000)}`);
      results.push(...(JSON.parse(readFileSync(outFile, 'utf8')) as CaseResult[]));
      logs.push(readFileSync(logFile, 'utf8'));
    }),
  );
  const modules = modulesByCase(logs);
  const startupForeign = [...(modules.get('(startup)') ?? [])].filter((url) => !allowedModule(url));
  assert.deepEqual(startupForeign, [], 'modules loaded at startup');

  let passed = 0;
  const failures: string[] = [];
  for (const c of CASES) {
    let failure: Error | undefined;
    try {
      checkCase(c, results.find((r) => r.name === c.name), modules.get(c.name) ?? new Set(), bases.get(c.name) as string, secrets.get(c.name) as string);
      passed++;
    } catch (error) {
      failure = error as Error;
      failures.push(`${c.name}: ${failure.message.split('\n')[0]}`);
    }
    await t.test(c.name, () => {
      if (failure) throw failure;
    });
  }

  // Positive control: Prettier's Node API on the same directories runs the payloads.
  const controls = CASES.filter((c) => c.prettierControl).map((c) => ({ name: c.name, root: join(bases.get(c.name) as string, 'root'), file: join(bases.get(c.name) as string, 'root', c.target) }));
  const controlsFile = join(base, 'controls.json');
  writeFileSync(controlsFile, JSON.stringify(controls));
  await runChild(['--import', 'tsx', 'test/hostile/control.ts', controlsFile], {}, 300_000);
  const live = controls.filter((c) => existsSync(join(bases.get(c.name) as string, 'MARKER')));
  await t.test(`positive control: Prettier's own Node API runs the payloads (${live.length}/${controls.length})`, () => {
    assert.deepEqual(controls.filter((c) => !live.includes(c)).map((c) => c.name), []);
  });

  const times = results.map((r) => r.ms).sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] ?? 0;
  const summary = `hostile suite: ${passed}/${CASES.length} cases passed; positive control: ${live.length}/${controls.length} payloads ran under Prettier's own API; per case (new runtime, write, doctor, close) median ${median} ms, max ${times.at(-1) ?? 0} ms`;
  console.log(summary);
  if (process.env.FORMATBOX_HOSTILE_SUMMARY) writeFileSync(process.env.FORMATBOX_HOSTILE_SUMMARY, `${summary}\n${failures.join('\n')}\n`);
  rmSync(base, { recursive: true, force: true });
  assert.deepEqual(failures, []);
});

function checkCase(c: HostileCase, result: CaseResult | undefined, loaded: Set<string>, caseBase: string, secret: string): void {
  assert.ok(result, 'the child produced no result for this case');
  // 1. No payload ran; the secret leaked nowhere.
  assert.equal(existsSync(join(caseBase, 'MARKER')), false, `a payload ran: ${existsSync(join(caseBase, 'MARKER')) ? readFileSync(join(caseBase, 'MARKER'), 'utf8').slice(0, 200) : ''}`);
  assert.equal(result.transcript.includes(secret), false, 'the secret appears in the output');
  // 2. Only formatbox and its dependencies were loaded.
  const foreign = [...loaded].filter((url) => !allowedModule(url));
  assert.deepEqual(foreign, [], 'modules from outside formatbox were loaded');
  // 4. Time bound.
  assert.ok(result.ms < CASE_BOUND_MS, `took ${result.ms} ms (bound ${CASE_BOUND_MS} ms)`);
  // 3. The receipt.
  assert.equal(result.error, undefined, `the runtime threw: ${result.error}`);
  const receipt = result.receipt;
  assert.ok(receipt);
  const expect = c.expect;
  const alternative = expect.orElse && expect.orElse.status.includes(receipt.status as never) ? expect.orElse : undefined;
  if (alternative) {
    assert.match(`${receipt.reason ?? ''} ${receipt.line}`, alternative.reason);
  } else {
    assert.ok(expect.status.includes(receipt.status as never), `status ${receipt.status} (${receipt.reason ?? receipt.line}), expected ${expect.status.join('|')}`);
    if (expect.content !== undefined) assert.equal(receipt.content, expect.content);
    if (expect.reason) assert.match(`${receipt.reason ?? ''} ${receipt.line}`, expect.reason);
    // A receipt that did not format says why (in `reason`, or in its line: "not formatted (<why>): path").
    if (!['formatted', 'unchanged'].includes(receipt.status)) assert.match(`${receipt.reason ?? ''} ${receipt.line}`, /\(.+\)|\w+: \w+/);
  }
  const lines = ignoredLines(result);
  for (const pattern of expect.ignored ?? []) {
    assert.ok(lines.some((line) => pattern.test(line)), `no ignored item matches ${pattern}; got:\n${lines.join('\n')}`);
  }
}
