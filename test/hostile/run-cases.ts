// Child process of the hostile suite: for each case, a fresh runtime on the case's root does what an
// agent harness does (write W), then doctor() and close(). Run with
//   FORMATBOX_SPY_LOG=<log> node --import tsx --import ./test/hostile/spy.mjs test/hostile/run-cases.ts <cases.json> <out.json>
// Each case's start is written to the spy log, so loaded modules can be attributed to it.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRuntime } from '../../src/node/index.js';
import type { UserConfig } from '../../src/core/types.js';
import { textOf, type HostileCase } from './cases.js';

interface Job {
  name: string;
  root: string;
  target: string;
  content: HostileCase['content'];
  config?: UserConfig;
}

export interface CaseResult {
  name: string;
  ms: number;
  error?: string;
  receipt?: { status: string; reason?: string; line: string; contentSha256: string; contentLength: number; content?: string; ignored?: unknown[] };
  doctorIgnored?: Array<{ file: string; item: string; reason: string }>;
  /** Everything the run printed or returned, to search for leaked secrets. */
  transcript: string;
}

const [casesFile, outFile] = process.argv.slice(2);
if (!casesFile || !outFile) throw new Error('usage: run-cases.ts <cases.json> <out.json>');
const jobs = JSON.parse(readFileSync(casesFile, 'utf8')) as Job[];
const log = process.env.FORMATBOX_SPY_LOG;
const results: CaseResult[] = [];
const CASE_TIMEOUT_MS = 60_000;

for (const job of jobs) {
  if (log) appendFileSync(log, `case ${job.name}\n`);
  const started = performance.now();
  const result: CaseResult = { name: job.name, ms: 0, transcript: '' };
  const runtime = createRuntime({ root: job.root, ...(job.config ? { config: job.config } : {}) });
  try {
    const content = textOf(job.content);
    const receipt = await within(runtime.write({ path: job.target, content }), CASE_TIMEOUT_MS);
    const doctor = await within(runtime.doctor(), CASE_TIMEOUT_MS);
    result.receipt = {
      status: receipt.status,
      ...(receipt.reason ? { reason: receipt.reason } : {}),
      line: receipt.line,
      contentSha256: createHash('sha256').update(receipt.content).digest('hex'),
      contentLength: receipt.content.length,
      ...(receipt.content.length < 100_000 ? { content: receipt.content } : {}),
      ...(receipt.ignored ? { ignored: receipt.ignored } : {}),
    };
    result.doctorIgnored = doctor.ignored;
    result.transcript = JSON.stringify({ ...receipt, content: receipt.content.length < 100_000 ? receipt.content : '' }) + JSON.stringify(doctor);
  } catch (error) {
    result.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    result.transcript = result.error;
  } finally {
    await within(runtime.close(), 10_000).catch(() => undefined);
  }
  result.ms = Math.round(performance.now() - started);
  results.push(result);
}
if (log) appendFileSync(log, 'case (done)\n');
writeFileSync(outFile, JSON.stringify(results));
process.exit(0);

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`did not finish within ${ms} ms`)), ms);
    }),
  ]);
}
