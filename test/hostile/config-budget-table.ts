// Prints one line per config budget case (time, stall of the caller's thread, peak RSS, bytes on disk,
// outcome), run by the runner of a given checkout: this one by default, or an older one to compare.
//   node --import tsx test/hostile/config-budget-table.ts [checkout-dir]
// The checkout needs test/hostile/config-budget-run.ts (copy it in) and node_modules. Cases run one
// at a time; each child is killed after 120 s.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BUDGET_CASES } from './config-budget-cases.js';
import type { BudgetJob, BudgetResult } from './config-budget-run.js';

const checkout = process.argv[2] ?? fileURLToPath(new URL('../..', import.meta.url));
const base = mkdtempSync(join(tmpdir(), 'formatbox-budget-table-'));
try {
  for (const [index, c] of BUDGET_CASES.entries()) {
    const root = join(base, `case-${index}`, 'root');
    for (const [path, text] of Object.entries({ ...c.files(), [c.target]: '// before\n' })) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const job: BudgetJob = { root, target: c.target, content: c.content, config: { timeoutMs: 4000 }, ...(c.trust ? { trust: c.trust } : {}) };
    const jobFile = join(base, `case-${index}`, 'job.json');
    const outFile = join(base, `case-${index}`, 'out.json');
    writeFileSync(jobFile, JSON.stringify(job));
    const started = performance.now();
    spawnSync(process.execPath, ['--import', 'tsx', 'test/hostile/config-budget-run.ts', jobFile, outFile], { cwd: checkout, timeout: 120_000 });
    const wall = Math.round(performance.now() - started);
    let line: string;
    try {
      const r = JSON.parse(readFileSync(outFile, 'utf8')) as BudgetResult;
      const why = (r.receipt?.reason ?? r.error ?? '').slice(0, 90);
      line = `${r.ms} ms | stall ${r.maxStallMs} ms | ${r.peakRssMb} MB | ${r.bytesOnDisk} bytes on disk | ${r.receipt?.status ?? 'error'}${why ? `: ${why}` : ''}`;
    } catch {
      line = `no result after ${wall} ms (killed at 120 s, or crashed)`;
    }
    console.log(`class ${c.securityClass} | ${c.name} | ${line}`);
    rmSync(join(base, `case-${index}`), { recursive: true, force: true });
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
