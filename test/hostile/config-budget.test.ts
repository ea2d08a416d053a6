// Hostile config cost (security review class 5) and output amplification (class 7), untrusted mode
// unless a case says otherwise. Each case runs in its own child process (config-budget-run.ts), so
// its bounds are its own:
//   - time: the whole child (new runtime, write, doctor, close) within CASE_BOUND_MS;
//   - the caller's thread: its event loop never stalls for as long as timeoutMs (config is loaded
//     on it, and the config budget must stop that work first);
//   - memory: the child's peak RSS (worker threads included) within MEMORY_GROWTH_MB of a control
//     child that formats the same kind of file in a project with a one-line config;
//   - disk: what was written is within the output cap;
//   - the receipt: refused with the budget's reason, or formatted with every refused or clamped item
//     listed (doctor() and the receipt's own `ignored`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { maxOutputBytes } from '../../src/core/output-cap.js';
import { BUDGET_CASES, nestedSource, type BudgetCase } from './config-budget-cases.js';
import type { BudgetJob, BudgetResult } from './config-budget-run.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const CASE_BOUND_MS = 30_000;
const TIMEOUT_MS = 4_000;
const MEMORY_GROWTH_MB = 300;
const CHILDREN = 2;
const OVER_BUDGET = /^over the project config budget \(/;

function runCase(base: string, c: Pick<BudgetCase, 'files' | 'target' | 'content' | 'trust'>): Promise<BudgetResult & { wallMs: number }> {
  const root = join(base, 'root');
  for (const [path, text] of Object.entries(c.files())) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  mkdirSync(dirname(join(root, c.target)), { recursive: true });
  writeFileSync(join(root, c.target), '// before\n');
  const job: BudgetJob = { root, target: c.target, content: c.content, config: { timeoutMs: TIMEOUT_MS }, ...(c.trust ? { trust: c.trust } : {}) };
  writeFileSync(join(base, 'job.json'), JSON.stringify(job));
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/hostile/config-budget-run.ts', join(base, 'job.json'), join(base, 'out.json')], { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 10_000) stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), CASE_BOUND_MS * 2);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      try {
        const result = JSON.parse(readFileSync(join(base, 'out.json'), 'utf8')) as BudgetResult;
        resolve({ ...result, wallMs: Math.round(performance.now() - started) });
      } catch {
        reject(new Error(`the child wrote no result (exit ${code ?? signal}): ${stderr.slice(0, 2000)}`));
      }
    });
  });
}

function check(c: BudgetCase, result: BudgetResult & { wallMs: number }, controlRssMb: number): void {
  assert.equal(result.error, undefined, `the runtime threw: ${result.error}`);
  assert.ok(result.wallMs < CASE_BOUND_MS, `took ${result.wallMs} ms (bound ${CASE_BOUND_MS} ms)`);
  assert.ok(result.maxStallMs < TIMEOUT_MS, `the caller's thread stalled ${result.maxStallMs} ms (timeoutMs ${TIMEOUT_MS})`);
  assert.ok(result.peakRssMb < controlRssMb + MEMORY_GROWTH_MB, `peak RSS ${result.peakRssMb} MB (control ${controlRssMb} MB + ${MEMORY_GROWTH_MB} MB)`);
  assert.ok(result.bytesOnDisk <= maxOutputBytes(Buffer.byteLength(c.content)), `${result.bytesOnDisk} bytes on disk`);
  const receipt = result.receipt;
  assert.ok(receipt);
  assert.ok(c.expect.status.includes(receipt.status as never), `status ${receipt.status} (${receipt.reason ?? receipt.line}), expected ${c.expect.status.join('|')}`);
  if (c.expect.reason) assert.match(`${receipt.reason ?? ''} ${receipt.line}`, c.expect.reason);
  if (c.expect.content !== undefined) assert.equal(receipt.content, c.expect.content);
  // Whatever was not formatted stays exactly as the agent wrote it.
  if (!['formatted', 'unchanged'].includes(receipt.status)) assert.equal(result.bytesOnDisk, Buffer.byteLength(c.content));
  const lines = [...result.doctorIgnored, ...receipt.ignored];
  for (const pattern of c.expect.ignored ?? []) assert.ok(lines.some((line) => pattern.test(line)), `no ignored item matches ${pattern}; got:\n${lines.slice(0, 20).join('\n')}`);
  for (const pattern of c.expect.receiptIgnored ?? []) assert.ok(receipt.ignored.some((line) => pattern.test(line)), `the receipt lists no item matching ${pattern}; got:\n${receipt.ignored.join('\n')}`);
  if (receipt.status === 'refused') {
    assert.ok(receipt.ignored.some((line) => /config budget/.test(line)), 'a refused receipt carries the budget item');
    assert.match(result.budgetExceeded ?? '', OVER_BUDGET, 'doctor().configBudget says why');
  }
}

test(`hostile config cost and output amplification: ${BUDGET_CASES.length} cases, each bounded in time, stall and memory`, { timeout: 900_000 }, async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'formatbox-budget-'));
  try {
    const control = await runCase(join(base, 'control'), { files: () => ({ '.prettierrc': '{}' }), target: 'src/a.ts', content: nestedSource() });
    assert.equal(control.receipt?.status, 'formatted', control.receipt?.line);
    const results = new Map<string, BudgetResult & { wallMs: number }>();
    const failures = new Map<string, Error>();
    const queue = BUDGET_CASES.map((c, index) => ({ c, dir: join(base, `case-${index}`) }));
    await Promise.all(
      Array.from({ length: CHILDREN }, async () => {
        for (let job = queue.shift(); job; job = queue.shift()) {
          try {
            results.set(job.c.name, await runCase(job.dir, job.c));
          } catch (error) {
            failures.set(job.c.name, error as Error);
          }
          rmSync(job.dir, { recursive: true, force: true });
        }
      }),
    );
    let passed = 0;
    const rows: string[] = [];
    for (const c of BUDGET_CASES) {
      const result = results.get(c.name);
      let failure = failures.get(c.name);
      if (result && !failure) {
        try {
          check(c, result, control.peakRssMb);
          passed++;
        } catch (error) {
          failure = error as Error;
        }
        rows.push(`  class ${c.securityClass} | ${result.receipt?.status ?? 'error'} | ${result.wallMs} ms | stall ${result.maxStallMs} ms | ${result.peakRssMb} MB | ${c.name}`);
      }
      await t.test(`class ${c.securityClass}: ${c.name}`, () => {
        if (failure) throw failure;
      });
    }
    console.log(`config budget suite: ${passed}/${BUDGET_CASES.length} cases passed; control ${control.wallMs} ms, ${control.peakRssMb} MB peak RSS; bounds ${CASE_BOUND_MS} ms, stall < ${TIMEOUT_MS} ms (timeoutMs), control + ${MEMORY_GROWTH_MB} MB\n${rows.join('\n')}`);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
