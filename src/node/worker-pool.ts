/**
 * Formatters off the main thread. The pool keeps warm worker threads (format-worker.ts) that hold
 * the real adapters, and hands the engine proxy adapters with the same interface.
 *
 * - One request at a time per worker; requests queue on the main thread, so a slow call never
 *   eats another call's timeout. A busy worker is sent its next call ahead (it runs calls in
 *   order), so it never waits for this thread between calls; that call's timeout starts when it does.
 * - A call past `timeoutMs` terminates its worker: the result is `{kind:'timeout'}` and a fresh
 *   worker is started right away, so the next call does not wait for it.
 * - While a call runs, a watchdog samples the process RSS; growth past `memoryBudgetMb` stops the
 *   worker (`{kind:'error'}`), so a runaway allocation cannot take the machine down.
 * - After a call, a worker whose JS heap + wasm/external memory is over budget, or whose wasm
 *   trapped or panicked, is recycled.
 * - The JS heap is capped with `resourceLimits`; running out of it ends the worker, not the process.
 * - Compiled wasm modules are kept on this thread and handed to replacement workers, so a worker
 *   replaced after a runaway instantiates Biome/Ruff in milliseconds instead of compiling 40 MB again.
 * - Idle workers are unref'd: a forgotten `close()` never keeps the process alive.
 *
 * Over ~400 lines: `createWorkerPool` is one closure over the slots, the queue and the shared wasm
 * modules, which every transition of a slot (SlotState) reads and changes together; the messages
 * between the threads are in worker-protocol.ts.
 */
import { Worker } from 'node:worker_threads';
import { messageOf } from '../core/errors.js';
import type { AdapterRequest, AdapterResult, FormatterAdapter, FormatterInfo } from '../core/types.js';
import { workerScript, type AdapterMeta, type WorkerInit, type WorkerReply, type WorkerRequest } from './worker-protocol.js';

export interface WorkerPoolOptions {
  /** Per call, from the moment the request reaches a worker. */
  timeoutMs: number;
  /** Load the built-in adapters in the worker. Default true. */
  builtins?: boolean;
  /**
   * Extra adapter modules run inside the worker (trusted code from the embedding program, never
   * from project config). Each exports `createAdapters()`. Tests use it for runaway adapters.
   */
  modules?: Array<string | URL>;
  /** Worker threads. Default 1 (each holds its own copy of the wasm instances). */
  size?: number;
  /** V8 old-generation cap per worker. Default 1024 MB. */
  heapMb?: number;
  /** Process RSS growth during one call that stops the worker. Default 1024 MB. */
  memoryBudgetMb?: number;
  /** JS heap + external (wasm) memory of a worker after a call that recycles it. Default 768 MB. */
  recycleMb?: number;
  /** Called on spawn/timeout/memory/crash/recycle (tests, diagnostics). */
  onEvent?: (event: PoolEvent) => void;
}

export interface PoolEvent {
  kind: 'spawn' | 'timeout' | 'memory' | 'crash' | 'recycle';
  /** For timeout/memory/crash: ms from the call's dispatch until the worker had exited. */
  stoppedAfterMs?: number;
  detail?: string;
}

export interface PoolStats {
  /** The per-call limit at which this pool stops a worker (its `timeoutMs` option). */
  timeoutMs: number;
  spawned: number;
  timeouts: number;
  memoryStops: number;
  crashes: number;
  recycled: number;
  calls: number;
  /** Wasm modules compiled by the pool's workers; each is compiled once and shared with the others. */
  wasmCompiles: number;
}

export interface WorkerPool {
  /** Proxy adapters (same interface as the real ones) for the engine. Starts one worker. */
  adapters(): Promise<FormatterAdapter[]>;
  call(adapter: string, request: AdapterRequest): Promise<AdapterResult>;
  info(adapter: string): Promise<FormatterInfo>;
  stats(): PoolStats;
  close(): Promise<void>;
}

interface Job {
  message: DistributiveOmit<WorkerRequest, 'id'>;
  resolve: (reply: Extract<WorkerReply, { type: 'result' }>['result']) => void;
}

/** The worker's call: reserved (`dispatchedAt` 0) until the worker is ready, then running with its timers. */
type ActiveJob = Job & { id: number; dispatchedAt: number; rssAtStart: number; timer?: ReturnType<typeof setTimeout> };
/**
 * One call already sent to the worker while `job` runs, so the worker goes on without waiting for
 * this thread. Its timers start when it becomes `job`; if the worker ends first, it is queued again.
 */
type AheadJob = Job & { id: number };
/** Why the pool itself is ending a worker (timeout, budget, recycle, close, or a crash it saw). */
interface Ending {
  kind: PoolEvent['kind'];
  result?: AdapterResult;
}

/**
 * One worker place of the pool. `starting`: spawned, not yet ready (a call may be reserved for it);
 * `idle`: ready, no call; `busy`: running `job` (reserved while `dispatchedAt` is 0), maybe with one
 * call sent ahead; `ending`: being stopped, its calls resolved or queued again when it exits.
 */
type SlotState =
  | { state: 'empty' }
  | { state: 'starting'; worker: Worker; ready: Promise<AdapterMeta[]>; job?: ActiveJob }
  | { state: 'idle'; worker: Worker; ready: Promise<AdapterMeta[]> }
  | { state: 'busy'; worker: Worker; ready: Promise<AdapterMeta[]>; job: ActiveJob; next?: AheadJob }
  | { state: 'ending'; worker: Worker; ready: Promise<AdapterMeta[]>; ending: Ending; job?: ActiveJob; next?: AheadJob };

/** A slot's state is replaced whole on each transition; handlers and timers hold the slot. */
interface Slot {
  current: SlotState;
}

type DistributiveOmit<T, K extends keyof never> = T extends unknown ? Omit<T, K> : never;

/**
 * How old an RSS sample may be to serve as a call's baseline. Reading the RSS costs a read of
 * /proc (~60 µs); a project-wide run starts thousands of calls a second. A baseline at most this old
 * shifts the budget by what the process allocated in that time, which the watchdog's own sampling
 * interval (20 ms) already allows for.
 */
const RSS_BASELINE_MAX_AGE_MS = 20;

/** The process RSS: `now()` reads it, `recent()` reuses a reading younger than `maxAgeMs`. */
export function createRssSampler(maxAgeMs: number, read: () => number = () => process.memoryUsage.rss()): { now(): number; recent(): number } {
  let value = 0;
  let at = -Infinity;
  const now = (): number => {
    value = read();
    at = performance.now();
    return value;
  };
  return { now, recent: () => (performance.now() - at <= maxAgeMs ? value : now()) };
}

export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const size = Math.max(1, options.size ?? 1);
  const heapMb = options.heapMb ?? 1024;
  const memoryBudget = (options.memoryBudgetMb ?? 1024) * 1024 * 1024;
  const recycleBytes = (options.recycleMb ?? 768) * 1024 * 1024;
  const init: WorkerInit = { builtins: options.builtins ?? true, modules: (options.modules ?? []).map((m) => String(m instanceof URL ? m.href : m)), compiled: {} };
  const slots: Slot[] = Array.from({ length: size }, (): Slot => ({ current: { state: 'empty' } }));
  const queue: Job[] = [];
  const stats: PoolStats = { timeoutMs: options.timeoutMs, spawned: 0, timeouts: 0, memoryStops: 0, crashes: 0, recycled: 0, calls: 0, wasmCompiles: 0 };
  let nextId = 1;
  let closed = false;
  let meta: Promise<AdapterMeta[]> | undefined;
  const compiling = new Map<string, { by: Worker; waiters: Worker[] }>();
  const rss = createRssSampler(RSS_BASELINE_MAX_AGE_MS);

  function emit(event: PoolEvent): void {
    options.onEvent?.(event);
  }

  function spawn(slot: Slot): Promise<AdapterMeta[]> {
    const { script, eval: isEval } = workerScript();
    const worker = new Worker(script, { eval: isEval, workerData: init, resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    stats.spawned++;
    emit({ kind: 'spawn' });
    let started = false;
    const ready = new Promise<AdapterMeta[]>((resolve, reject) => {
      worker.on('message', (reply: WorkerReply) => {
        if (reply.type === 'ready') {
          started = true;
          const now = slot.current;
          if (now.state === 'starting' && now.worker === worker) {
            if (now.job) slot.current = { state: 'busy', worker, ready: now.ready, job: now.job };
            else {
              slot.current = { state: 'idle', worker, ready: now.ready };
              worker.unref();
            }
          }
          resolve(reply.adapters);
        } else if (reply.type === 'compiled') {
          init.compiled[reply.name] = reply.module;
          stats.wasmCompiles++;
          shareCompiled(reply.name, reply.module);
        } else if (reply.type === 'need-wasm') {
          answerWasm(worker, reply.name);
        } else if (reply.type === 'fatal') {
          reject(new Error(`the formatter worker could not start: ${reply.message}`));
          void worker.terminate();
        } else onResult(slot, worker, reply);
      });
      worker.on('error', (error) => {
        reject(error);
        if (workerOf(slot) !== worker) return;
        // Uncaught in the worker, or ERR_WORKER_OUT_OF_MEMORY: the worker is gone.
        const message = /OUT_OF_MEMORY|out of memory/i.test(`${(error as NodeJS.ErrnoException).code ?? ''} ${error.message}`)
          ? 'the formatter ran out of memory (JS heap limit) and was stopped'
          : `the formatter worker crashed: ${error.message}`;
        beginEnding(slot, { kind: 'crash', result: { kind: 'error', message } });
      });
      worker.on('exit', () => {
        reject(new Error('the formatter worker exited before it was ready'));
        compilerGone(worker);
        const now = slot.current;
        if (now.state === 'empty' || now.worker !== worker) return;
        const ending = now.state === 'ending' ? now.ending : { kind: 'crash' as const, result: { kind: 'error' as const, message: 'the formatter worker exited unexpectedly' } };
        const job = now.state === 'idle' ? undefined : now.job;
        const next = now.state === 'busy' || now.state === 'ending' ? now.next : undefined;
        slot.current = { state: 'empty' };
        // The call sent ahead never started: it goes back to the front of the queue.
        if (next) queue.unshift({ message: next.message, resolve: next.resolve });
        if (job) {
          clearJobTimers(job);
          const stoppedAfterMs = Math.round(performance.now() - job.dispatchedAt);
          if (ending.kind === 'crash') stats.crashes++;
          if (ending.kind !== 'recycle') emit({ kind: ending.kind, stoppedAfterMs, detail: ending.result?.kind === 'error' ? ending.result.message : undefined });
          job.resolve(ending.result ?? { kind: 'error', message: 'the formatter worker stopped' });
        }
        // Replace it now rather than on the next call, so that call finds a started worker.
        if (!closed && started) spawn(slot).catch(() => undefined);
        pump();
      });
    });
    ready.catch(() => undefined);
    slot.current = { state: 'starting', worker, ready };
    return ready;
  }

  function workerOf(slot: Slot): Worker | undefined {
    return slot.current.state === 'empty' ? undefined : slot.current.worker;
  }

  /** The pool stops this worker: its calls wait in the `ending` state for the worker's exit. A second reason does not replace the first. */
  function beginEnding(slot: Slot, ending: Ending): void {
    const now = slot.current;
    if (now.state === 'empty' || now.state === 'ending') return;
    slot.current = {
      state: 'ending',
      worker: now.worker,
      ready: now.ready,
      ending,
      ...(now.state !== 'idle' && now.job ? { job: now.job } : {}),
      ...(now.state === 'busy' && now.next ? { next: now.next } : {}),
    };
  }

  /**
   * Each wasm module is compiled once for the whole pool: the first worker that needs it compiles
   * it; the others wait and get the compiled module (structured clone shares the compiled code).
   */
  function answerWasm(worker: Worker, name: string): void {
    const module = init.compiled[name];
    if (module) return worker.postMessage({ type: 'wasm', name, module } satisfies WorkerRequest);
    const pending = compiling.get(name);
    if (pending) return void pending.waiters.push(worker);
    compiling.set(name, { by: worker, waiters: [] });
    worker.postMessage({ type: 'wasm', name } satisfies WorkerRequest);
  }

  function shareCompiled(name: string, module: WebAssembly.Module): void {
    const pending = compiling.get(name);
    compiling.delete(name);
    for (const waiter of pending?.waiters ?? []) waiter.postMessage({ type: 'wasm', name, module } satisfies WorkerRequest);
  }

  /** A worker that was compiling died: the next waiter compiles instead. */
  function compilerGone(worker: Worker): void {
    for (const [name, pending] of compiling) {
      if (pending.by !== worker) continue;
      const next = pending.waiters.shift();
      if (!next) compiling.delete(name);
      else {
        pending.by = next;
        next.postMessage({ type: 'wasm', name } satisfies WorkerRequest);
      }
    }
  }

  function onResult(slot: Slot, worker: Worker, reply: Extract<WorkerReply, { type: 'result' }>): void {
    const now = slot.current;
    if (now.state !== 'busy' || now.worker !== worker || now.job.id !== reply.id) return;
    const { job, next, ready } = now;
    clearJobTimers(job);
    job.resolve(reply.result);
    const overBudget = reply.memory.heapUsed + reply.memory.external > recycleBytes;
    if (reply.poisoned || overBudget) {
      stats.recycled++;
      emit({ kind: 'recycle', detail: reply.poisoned ? 'wasm trapped or panicked' : `memory ${Math.round((reply.memory.heapUsed + reply.memory.external) / 1048576)} MB over budget` });
      slot.current = { state: 'ending', worker, ready, ending: { kind: 'recycle' }, ...(next ? { next } : {}) };
      void worker.terminate();
      return; // 'exit' queues the call sent ahead again and pumps the queue
    }
    // The worker runs calls in order: the one sent ahead has started.
    if (next) startJob(slot, worker, ready, { ...next, dispatchedAt: 0, rssAtStart: 0 });
    else {
      slot.current = { state: 'idle', worker, ready };
      worker.unref();
    }
    pump();
  }

  function clearJobTimers(job: ActiveJob): void {
    if (job.timer) clearTimeout(job.timer);
  }

  /**
   * One watchdog for every running call: each tick reads the RSS once and checks each call's growth
   * since its start, so a project-wide run does not read /proc once per call and tick. It stops
   * itself when no call runs.
   */
  let watchdog: ReturnType<typeof setInterval> | undefined;
  function watchMemory(): void {
    if (watchdog) return;
    watchdog = setInterval(() => {
      let sampled: number | undefined;
      let running = 0;
      for (const slot of slots) {
        const now = slot.current;
        if (now.state !== 'busy' || now.job.dispatchedAt === 0) continue;
        running++;
        sampled ??= rss.now();
        if (sampled - now.job.rssAtStart > memoryBudget) {
          stop(slot, 'memory', { kind: 'error', message: `the formatter was stopped: memory grew by more than ${Math.round(memoryBudget / 1048576)} MB` });
        }
      }
      if (running === 0) stopWatchdog();
    }, 20);
  }
  function stopWatchdog(): void {
    if (watchdog) clearInterval(watchdog);
    watchdog = undefined;
  }

  function stop(slot: Slot, kind: 'timeout' | 'memory', result: AdapterResult): void {
    const now = slot.current;
    if (now.state === 'empty' || now.state === 'ending') return;
    beginEnding(slot, { kind, result });
    if (kind === 'timeout') stats.timeouts++;
    else stats.memoryStops++;
    void now.worker.terminate();
  }

  function pump(): void {
    if (closed) return;
    for (const slot of slots) {
      if (queue.length === 0) return;
      const now = slot.current;
      if (now.state === 'busy' || now.state === 'ending' || (now.state === 'starting' && now.job)) continue;
      const job = queue.shift()!;
      void dispatch(slot, job);
    }
    // Every worker busy: send each started one its next call ahead of time.
    for (const slot of slots) {
      if (queue.length === 0) return;
      const now = slot.current;
      if (now.state !== 'busy' || now.next || now.job.dispatchedAt === 0) continue;
      const job = queue.shift()!;
      const id = nextId++;
      slot.current = { ...now, next: { ...job, id } };
      now.worker.postMessage({ ...job.message, id } as WorkerRequest);
    }
  }

  /** `job` becomes the worker's running call: timeout and memory watch from now. */
  function startJob(slot: Slot, worker: Worker, ready: Promise<AdapterMeta[]>, active: ActiveJob): void {
    slot.current = { state: 'busy', worker, ready, job: active };
    stats.calls++;
    worker.ref();
    active.dispatchedAt = performance.now();
    active.rssAtStart = rss.recent();
    active.timer = setTimeout(() => stop(slot, 'timeout', { kind: 'timeout', ms: options.timeoutMs }), options.timeoutMs);
    watchMemory();
  }

  async function dispatch(slot: Slot, job: Job): Promise<void> {
    const id = nextId++;
    // Reserve the slot before awaiting the worker's start.
    const active: ActiveJob = { ...job, id, dispatchedAt: 0, rssAtStart: 0 };
    let reserved: Worker | undefined;
    try {
      reserved = reserve(slot, active);
      await (slot.current.state === 'empty' ? undefined : slot.current.ready);
    } catch (error) {
      // The worker could not start: the slot is empty again (its exit, if it comes, finds another worker or none).
      if (reserved && workerOf(slot) === reserved) slot.current = { state: 'empty' };
      job.resolve({ kind: 'error', message: messageOf(error) });
      pump();
      return;
    }
    const now = slot.current;
    if (now.state !== 'busy' || now.job !== active) return;
    startJob(slot, now.worker, now.ready, active);
    now.worker.postMessage({ ...job.message, id } as WorkerRequest);
    pump(); // calls waiting behind this one can now be sent ahead
  }

  /** Reserves the slot for `active` before its worker is awaited (spawning one when the slot is empty); returns that worker. */
  function reserve(slot: Slot, active: ActiveJob): Worker {
    if (slot.current.state === 'empty') spawn(slot);
    const now = slot.current;
    if (now.state === 'starting') slot.current = { ...now, job: active };
    else if (now.state === 'idle') slot.current = { state: 'busy', worker: now.worker, ready: now.ready, job: active };
    else throw new Error(`a call was given a ${now.state} worker`);
    return now.worker;
  }

  function enqueue(message: Job['message']): Promise<Job extends { resolve: (r: infer R) => void } ? R : never> {
    if (closed) return Promise.resolve({ kind: 'error', message: 'the runtime is closed' });
    return new Promise((resolve) => {
      queue.push({ message, resolve });
      pump();
    });
  }

  async function call(adapter: string, request: AdapterRequest): Promise<AdapterResult> {
    const reply = await enqueue({ type: 'format', adapter, request });
    if (reply.kind === 'info') return { kind: 'error', message: 'the worker answered a format request with info' };
    return reply;
  }

  async function info(adapter: string): Promise<FormatterInfo> {
    const reply = await enqueue({ type: 'info', adapter });
    if (reply.kind === 'info') return reply.info;
    throw new Error(reply.kind === 'error' ? reply.message : `no info for ${adapter}: ${reply.kind}`);
  }

  function proxy(m: AdapterMeta): FormatterAdapter {
    let cachedInfo: Promise<FormatterInfo> | undefined;
    return {
      name: m.name,
      via: m.via,
      languages: m.languages,
      supportsRange: m.supportsRange,
      ...(m.rangeLanguages ? { rangeLanguages: m.rangeLanguages } : {}),
      ...(m.rawText ? { rawText: true } : {}),
      info() {
        cachedInfo ??= info(m.name).catch((error: unknown) => {
          cachedInfo = undefined;
          throw error;
        });
        return cachedInfo;
      },
      format: (request) => call(m.name, request),
    };
  }

  return {
    async adapters() {
      meta ??= (async () => {
        const slot = slots[0]!;
        // A pool of several workers serves batches: start them all now, so the others load while the
        // first one starts instead of behind the first calls queued to them.
        for (const other of slots.slice(1)) if (other.current.state === 'empty' && !closed) spawn(other).catch(() => undefined);
        if (slot.current.state !== 'empty') return slot.current.ready;
        return spawn(slot);
      })().catch((error: unknown) => {
        meta = undefined;
        throw error;
      });
      return (await meta).map(proxy);
    },
    call,
    info,
    stats: () => ({ ...stats }),
    async close() {
      closed = true;
      stopWatchdog();
      for (const job of queue.splice(0)) job.resolve({ kind: 'error', message: 'the runtime is closed' });
      for (const slot of slots) {
        const now = slot.current;
        if ((now.state === 'busy' || now.state === 'ending') && now.next) {
          now.next.resolve({ kind: 'error', message: 'the runtime is closed' });
          slot.current = { ...now, next: undefined };
        }
      }
      await Promise.all(
        slots.map(async (slot) => {
          const worker = workerOf(slot);
          if (!worker) return;
          beginEnding(slot, { kind: 'recycle', result: { kind: 'error', message: 'the runtime is closed' } });
          await worker.terminate();
        }),
      );
    },
  };
}
