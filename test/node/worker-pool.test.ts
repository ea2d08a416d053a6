import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRssSampler, createWorkerPool, type PoolEvent } from '../../src/node/worker-pool.js';

const RUNAWAY = new URL('./runaway-adapters.ts', import.meta.url);
const TIMEOUT_MS = 1000;
const request = (text = 'a  \nb\n') => ({ path: 'x.runaway', language: 'runaway', text, settings: {} });

function pool(events: PoolEvent[] = [], extra: Partial<Parameters<typeof createWorkerPool>[0]> = {}) {
  return createWorkerPool({ timeoutMs: TIMEOUT_MS, builtins: false, modules: [RUNAWAY], onEvent: (e) => events.push(e), ...extra });
}

test('proxies carry the adapters of the worker and format off the main thread', async () => {
  const p = pool();
  try {
    const adapters = await p.adapters();
    const trim = adapters.find((a) => a.name === 'js-trim');
    assert.ok(trim);
    assert.deepEqual(trim.languages, ['runaway']);
    assert.deepEqual(await trim.format(request()), { kind: 'ok', text: 'a\nb\n' });
    assert.deepEqual(await trim.info(), { name: 'js-trim', version: 'test', via: 'js' });
  } finally {
    await p.close();
  }
});

for (const name of ['wasm-loop', 'js-loop']) {
  test(`runaway ${name} is stopped within timeoutMs + 100 ms, and the next call works`, async () => {
    const events: PoolEvent[] = [];
    const p = pool(events);
    try {
      await p.call('js-trim', request()); // warm
      const started = performance.now();
      const result = await p.call(name, request());
      const elapsed = performance.now() - started;
      assert.deepEqual(result, { kind: 'timeout', ms: TIMEOUT_MS });
      const stop = events.find((e) => e.kind === 'timeout');
      assert.ok(stop?.stoppedAfterMs !== undefined);
      console.log(`  ${name}: stopped ${stop.stoppedAfterMs} ms after dispatch (timeout ${TIMEOUT_MS} ms; call returned after ${Math.round(elapsed)} ms)`);
      assert.ok(stop.stoppedAfterMs <= TIMEOUT_MS + 100, `stopped after ${stop.stoppedAfterMs} ms`);
      assert.deepEqual(await p.call('js-trim', request()), { kind: 'ok', text: 'a\nb\n' });
      assert.equal(p.stats().spawned, 2);
    } finally {
      await p.close();
    }
  });
}

test('a wasm module that allocates without bound is stopped within timeoutMs + 100 ms (memory budget first)', async () => {
  const events: PoolEvent[] = [];
  const timeoutMs = 5000;
  const p = pool(events, { memoryBudgetMb: 128, timeoutMs });
  try {
    await p.call('js-trim', request());
    const result = await p.call('wasm-grow', request());
    const stop = events.find((e) => e.kind === 'memory' || e.kind === 'timeout');
    assert.ok(stop?.stoppedAfterMs !== undefined);
    console.log(`  wasm-grow: stopped by the ${stop.kind === 'memory' ? 'memory budget (128 MB)' : 'timeout'} ${stop.stoppedAfterMs} ms after dispatch (timeout ${timeoutMs} ms)`);
    assert.ok(stop.stoppedAfterMs <= timeoutMs + 100, `stopped after ${stop.stoppedAfterMs} ms`);
    if (stop.kind === 'memory') assert.match((result as { message: string }).message, /memory grew by more than 128 MB/);
    else assert.deepEqual(result, { kind: 'timeout', ms: timeoutMs });
    assert.deepEqual(await p.call('js-trim', request()), { kind: 'ok', text: 'a\nb\n' });
  } finally {
    await p.close();
  }
});

test('a JS heap explosion ends the worker (resourceLimits), not the process', async () => {
  const events: PoolEvent[] = [];
  const p = pool(events, { heapMb: 64, timeoutMs: 10_000 });
  try {
    const result = await p.call('js-heap', request());
    assert.equal(result.kind, 'error');
    assert.match((result as { message: string }).message, /out of memory|memory/);
    assert.deepEqual(await p.call('js-trim', request()), { kind: 'ok', text: 'a\nb\n' });
  } finally {
    await p.close();
  }
});

for (const [name, pattern] of [
  ['wasm-trap', /unreachable/],
  ['wasm-recurse', /call stack/i],
  ['js-recurse', /call stack/i],
  ['js-throw', /formatter bug/],
] as const) {
  test(`${name} fails as a value, the worker is recycled, and the next call works`, async () => {
    const events: PoolEvent[] = [];
    const p = pool(events);
    try {
      const result = await p.call(name, request());
      assert.equal(result.kind, 'error');
      assert.match((result as { message: string }).message, pattern);
      assert.ok(events.some((e) => e.kind === 'recycle'));
      assert.deepEqual(await p.call('js-trim', request()), { kind: 'ok', text: 'a\nb\n' });
      assert.equal(p.stats().spawned, 2);
    } finally {
      await p.close();
    }
  });
}

test('warm workers are reused; queued calls do not share a timeout', async () => {
  const p = pool();
  try {
    const results = await Promise.all([p.call('wasm-loop', request()), p.call('js-trim', request()), p.call('js-trim', request('x \n'))]);
    assert.equal(results[0].kind, 'timeout');
    assert.deepEqual(results[1], { kind: 'ok', text: 'a\nb\n' });
    assert.deepEqual(results[2], { kind: 'ok', text: 'x\n' });
    for (let i = 0; i < 5; i++) await p.call('js-trim', request());
    assert.equal(p.stats().spawned, 2);
  } finally {
    await p.close();
  }
});

test('calls after close answer with an error instead of hanging', async () => {
  const p = pool();
  await p.call('js-trim', request());
  await p.close();
  assert.deepEqual(await p.call('js-trim', request()), { kind: 'error', message: 'the runtime is closed' });
});

test('a worker over its memory budget after a call is recycled; the call itself succeeds', async () => {
  const events: PoolEvent[] = [];
  const p = pool(events, { recycleMb: 1 });
  try {
    assert.deepEqual(await p.call('js-trim', request()), { kind: 'ok', text: 'a\nb\n' });
    const recycle = events.find((e) => e.kind === 'recycle');
    assert.match(recycle?.detail ?? '', /memory \d+ MB over budget/);
    assert.deepEqual(await p.call('js-trim', request()), { kind: 'ok', text: 'a\nb\n' });
    assert.ok(p.stats().spawned >= 2);
  } finally {
    await p.close();
  }
});

test('a pool of three workers compiles Biome once and shares the module; every worker formats the same', async () => {
  const p = createWorkerPool({ timeoutMs: 60_000, size: 3 });
  try {
    const text = 'function f(){return {a:1,b:[1,2]}}\n';
    const results = await Promise.all(Array.from({ length: 9 }, (_, i) => p.call('biome', { path: `f${i}.ts`, language: 'typescript', text, settings: {} })));
    for (const result of results) assert.deepEqual(result, { kind: 'ok', text: 'function f() {\n\treturn { a: 1, b: [1, 2] };\n}\n', lineEnding: 'output' });
    const stats = p.stats();
    assert.equal(stats.spawned, 3);
    assert.equal(stats.wasmCompiles, 1, 'compiled once for the pool');
  } finally {
    await p.close();
  }
});

test('a busy worker is sent its next call ahead; every answer goes to its own call', async () => {
  const p = pool();
  try {
    await p.call('js-trim', request()); // started
    const inputs = Array.from({ length: 20 }, (_, i) => `line ${i}   \n`);
    const results = await Promise.all(inputs.map((text) => p.call('js-trim', request(text))));
    assert.deepEqual(results, inputs.map((text) => ({ kind: 'ok', text: text.replace(/ +\n/, '\n') })));
    assert.equal(p.stats().spawned, 1);
    assert.equal(p.stats().calls, 21);
  } finally {
    await p.close();
  }
});

test('the RSS sampler reuses a reading younger than its max age as a baseline, and now() always reads', async () => {
  let reads = 0;
  const sampler = createRssSampler(30, () => ++reads);
  assert.equal(sampler.recent(), 1); // nothing read yet: reads
  assert.equal(sampler.recent(), 1); // young enough: reused
  assert.equal(sampler.now(), 2);
  await new Promise((resolve) => setTimeout(resolve, 40));
  assert.equal(sampler.recent(), 3); // too old: reads again
});
