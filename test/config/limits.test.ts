/**
 * Limits are resolved in one place (src/config/limits.ts): what a user config sets, in formatbox's own
 * shape or the agent gateway's `format: {timeoutMs, maxOutputChars}`, reaches the engine and the
 * worker pool the request handler shares between roots alike.
 */
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_LIMITS, resolveLimits } from '../../src/config/limits.js';
import { createRequestHandler } from '../../src/node/service/requests.js';
import type { DoctorReport } from '../../src/node/index.js';

test('resolveLimits: defaults, then the user config in either shape, then explicit limits', () => {
  assert.deepEqual(resolveLimits(undefined), DEFAULT_LIMITS);
  assert.deepEqual(resolveLimits({ format: { timeoutMs: 30_000, maxOutputChars: 500 } }), { ...DEFAULT_LIMITS, timeoutMs: 30_000, maxDiffChars: 500 });
  // formatbox's own key wins over the gateway's, and the host's explicit value over both.
  assert.equal(resolveLimits({ timeoutMs: 20_000, format: { timeoutMs: 30_000 } }).timeoutMs, 20_000);
  assert.equal(resolveLimits({ format: { timeoutMs: 30_000 } }, { timeoutMs: 5_000, maxDiffChars: undefined }).timeoutMs, 5_000);
  assert.equal(resolveLimits({ maxDiffChars: 100 }, { maxDiffChars: undefined }).maxDiffChars, 100);
  assert.throws(() => resolveLimits({ format: { timeoutMs: -1 } }), { code: 'INVALID_CONFIG', message: /timeoutMs must be a positive number/ });
});

test('a format.timeoutMs in the user config is the timeout of the worker pool the request handler creates, as for the engine', async () => {
  const project = mkdtempSync(join(tmpdir(), 'fb-limits-'));
  mkdirSync(join(project, '.git'));
  writeFileSync(join(project, 'biome.json'), '{}\n');
  const handler = createRequestHandler({ defaultRoot: project, config: { format: { timeoutMs: 30_000, maxOutputChars: 700 } } });
  try {
    const doctor = (await handler.handle({ method: 'doctor', root: project })) as DoctorReport;
    assert.equal(doctor.limits.timeoutMs, 30_000, 'the engine');
    assert.equal(doctor.limits.maxDiffChars, 700);
    assert.equal(doctor.workers.timeoutMs, 30_000, 'the shared worker pool');
  } finally {
    await handler.close();
    rmSync(project, { recursive: true, force: true });
  }
});
