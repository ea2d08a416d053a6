// Child process of config-budget.test.ts: one case. A fresh runtime on the case's root writes the
// agent's file, then doctor() and close(), as a harness does. It reports how long that took, the
// longest stall of its event loop (config is loaded on this thread), and the process's peak RSS
// (worker threads included). Usage: node --import tsx config-budget-run.ts <job.json> <out.json>
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../src/node/index.js';
import type { UserConfig } from '../../src/core/types.js';

export interface BudgetJob {
  root: string;
  target: string;
  content: string;
  trust?: 'trusted' | 'untrusted';
  config?: UserConfig;
}

export interface BudgetResult {
  ms: number;
  maxStallMs: number;
  peakRssMb: number;
  bytesOnDisk: number;
  error?: string;
  receipt?: { status: string; reason?: string; line: string; content: string; ignored: string[] };
  doctorIgnored: string[];
  /** doctor().configBudget.exceeded */
  budgetExceeded?: string;
}

const [jobFile, outFile] = process.argv.slice(2);
if (!jobFile || !outFile) throw new Error('usage: config-budget-run.ts <job.json> <out.json>');
const job = JSON.parse(readFileSync(jobFile, 'utf8')) as BudgetJob;
const lines = (items: Array<{ file: string; item: string; reason: string }> | undefined): string[] => (items ?? []).map((i) => `${i.file}: ${i.item} (${i.reason})`);

let maxStallMs = 0;
let last = performance.now();
const ticker = setInterval(() => {
  const now = performance.now();
  maxStallMs = Math.max(maxStallMs, now - last - 5);
  last = now;
}, 5);

const started = performance.now();
const result: BudgetResult = { ms: 0, maxStallMs: 0, peakRssMb: 0, bytesOnDisk: 0, doctorIgnored: [] };
const runtime = createRuntime({ root: job.root, trust: job.trust ?? 'untrusted', ...(job.config ? { config: job.config } : {}) });
try {
  const receipt = await runtime.write({ path: job.target, content: job.content });
  const doctor = await runtime.doctor();
  result.receipt = { status: receipt.status, ...(receipt.reason ? { reason: receipt.reason } : {}), line: receipt.line, content: receipt.content.length < 1_000_000 ? receipt.content : '', ignored: lines(receipt.ignored) };
  result.doctorIgnored = lines(doctor.ignored);
  if (doctor.configBudget?.exceeded) result.budgetExceeded = doctor.configBudget.exceeded;
} catch (error) {
  result.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
} finally {
  await runtime.close();
}
result.ms = Math.round(performance.now() - started);
clearInterval(ticker);
result.maxStallMs = Math.round(maxStallMs);
result.peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
result.bytesOnDisk = statSync(join(job.root, job.target)).size;
writeFileSync(outFile, JSON.stringify(result));
process.exit(0);
