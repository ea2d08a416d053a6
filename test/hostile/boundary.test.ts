// The boundary part of the hostile suite (issue 9: classes 1, 2, 3, 6, 9, 10, 11, 12), each case
// with a time bound and a memory bound. Real bwrap, real python3, real Prettier; in CI nothing skips.
// The race test for class 3 (10,000 operations) is test/hostile/race.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BOUNDARY_CASES, setUp } from './boundary-cases.js';

/** Per case, wall clock (a safety bound, not a speed measurement). */
const CASE_BOUND_MS = 60_000;
/** Per case, growth of this process's resident set. */
const CASE_MEMORY_BOUND_MB = 512;
/** The whole run: peak resident set of this process. */
const PEAK_MEMORY_BOUND_MB = 2048;

function unavailable(): string | undefined {
  const missing = ['bwrap', 'python3'].filter((tool) => spawnSync(tool, ['--version']).error);
  if (missing.length === 0) return undefined;
  if (process.env.CI) throw new Error(`CI must run the boundary cases: ${missing.join(', ')} missing`);
  console.log(`# skipped: ${missing.join(', ')} not installed`);
  return `${missing.join(', ')} not installed`;
}

test(`hostile boundaries: ${BOUNDARY_CASES.length} cases (fds, binds, swapped paths, command cwd/env, names, surrogates, sweeping, hard links)`, { skip: unavailable(), timeout: 900_000 }, async (t) => {
  const perClass = new Map<number, number>();
  const times: number[] = [];
  let maxGrowthMb = 0;
  let passed = 0;
  // FORMATBOX_BOUNDARY_ONLY=<regex>: run only the matching cases (while working on one class).
  const only = process.env.FORMATBOX_BOUNDARY_ONLY ? new RegExp(process.env.FORMATBOX_BOUNDARY_ONLY) : undefined;
  for (const c of BOUNDARY_CASES) {
    if (only && !only.test(`class ${c.klass}: ${c.name}`)) continue;
    await t.test(`class ${c.klass}: ${c.name}`, async () => {
      const base = realpathSync(mkdtempSync(join(tmpdir(), 'fb-boundary-')));
      const secret = `SECRET-${Math.random().toString(36).slice(2)}-OUTSIDE`;
      const ctx = setUp(base, secret);
      const rssBefore = process.memoryUsage().rss;
      const started = performance.now();
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          c.run(ctx),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`did not finish within ${CASE_BOUND_MS} ms`)), CASE_BOUND_MS);
          }),
        ]);
      } finally {
        clearTimeout(timer);
        rmSync(base, { recursive: true, force: true });
      }
      const ms = performance.now() - started;
      const growthMb = (process.memoryUsage().rss - rssBefore) / 1048576;
      times.push(ms);
      maxGrowthMb = Math.max(maxGrowthMb, growthMb);
      assert.ok(growthMb < CASE_MEMORY_BOUND_MB, `resident set grew by ${growthMb.toFixed(0)} MB (bound ${CASE_MEMORY_BOUND_MB} MB)`);
      perClass.set(c.klass, (perClass.get(c.klass) ?? 0) + 1);
      passed++;
    });
  }
  const peakMb = process.resourceUsage().maxRSS / 1024;
  times.sort((a, b) => a - b);
  const classes = [...perClass.entries()].sort((a, b) => a[0] - b[0]).map(([k, n]) => `class ${k}: ${n}`).join(', ');
  console.log(`  boundary cases: ${passed}/${BOUNDARY_CASES.length} passed (${classes}); per case median ${Math.round(times[Math.floor(times.length / 2)] ?? 0)} ms, max ${Math.round(times.at(-1) ?? 0)} ms; max RSS growth ${maxGrowthMb.toFixed(0)} MB, peak RSS ${peakMb.toFixed(0)} MB`);
  assert.ok(peakMb < PEAK_MEMORY_BOUND_MB, `peak RSS ${peakMb.toFixed(0)} MB (bound ${PEAK_MEMORY_BOUND_MB} MB)`);
  if (!only) for (const klass of [1, 2, 3, 6, 9, 10, 11, 12]) assert.ok((perClass.get(klass) ?? 0) >= 3, `class ${klass} has at least 3 passing variants`);
});
