/**
 * The formatter worker: holds the real adapters (wasm instances, Prettier) off the main thread.
 * The pool (worker-pool.ts) sends one request at a time and terminates this thread when a call
 * runs past its timeout or the process memory runs past its budget.
 *
 * Protocol (structured-clone messages):
 *   in:  {type:'format', id, adapter, request} | {type:'info', id, adapter}
 *   out: {type:'ready', adapters: AdapterMeta[]} | {type:'fatal', message}
 *        {type:'compiled', name, module}   (a wasm module compiled here, kept for the next worker)
 *        {type:'need-wasm', name}          (asks for a module another worker compiled; the pool answers
 *                                           {type:'wasm', name, module?}: without a module, compile it here)
 *        {type:'result', id, result, poisoned, memory}
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { messageOf } from '../core/errors.js';
import { outputOverCap } from '../core/output-cap.js';
import type { AdapterResult, FormatterAdapter } from '../core/types.js';
import { createBuiltinAdapters } from './builtins.js';
import { projectWasmWorkerAdapters } from './project-wasm.js';
import type { AdapterMeta, WorkerInit, WorkerReply, WorkerRequest } from './worker-protocol.js';

/** Messages that mean a wasm instance trapped or panicked: its state can no longer be trusted. */
const POISON = /\bunreachable\b|panicked|RuntimeError|memory access out of bounds|Maximum call stack size exceeded|call stack exhausted|out of memory/i;

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('format-worker must run in a worker thread');
  const init = workerData as WorkerInit;
  const adapters = new Map<string, FormatterAdapter>();
  /** Modules asked of the pool (`need-wasm`), by name: answered by a `wasm` message. */
  const wasmWaiters = new Map<string, (module: WebAssembly.Module | undefined) => void>();
  port.on('message', (message: WorkerRequest) => {
    if (message.type !== 'wasm') return;
    const resolve = wasmWaiters.get(message.name);
    wasmWaiters.delete(message.name);
    resolve?.(message.module);
  });
  try {
    if (init.builtins) {
      const onCompiled = (name: string, module: WebAssembly.Module) => port.postMessage({ type: 'compiled', name, module } satisfies WorkerReply);
      const sharedModule = (name: string) =>
        new Promise<WebAssembly.Module | undefined>((resolve) => {
          wasmWaiters.set(name, resolve);
          port.postMessage({ type: 'need-wasm', name } satisfies WorkerReply);
        });
      for (const adapter of createBuiltinAdapters({ compiled: init.compiled, onCompiled, sharedModule })) adapters.set(adapter.name, adapter);
      for (const adapter of projectWasmWorkerAdapters()) adapters.set(adapter.name, adapter);
    }
    for (const url of init.modules) {
      const module = (await import(url)) as { createAdapters?: () => FormatterAdapter[] | Promise<FormatterAdapter[]> };
      if (typeof module.createAdapters !== 'function') throw new Error(`${url} does not export createAdapters()`);
      for (const adapter of await module.createAdapters()) adapters.set(adapter.name, adapter);
    }
  } catch (error) {
    port.postMessage({ type: 'fatal', message: messageOf(error) } satisfies WorkerReply);
    return;
  }
  const meta: AdapterMeta[] = [...adapters.values()].map((a) => ({ name: a.name, via: a.via, languages: [...a.languages], supportsRange: a.supportsRange, ...(a.rangeLanguages ? { rangeLanguages: [...a.rangeLanguages] } : {}), ...(a.rawText ? { rawText: true } : {}) }));
  port.postMessage({ type: 'ready', adapters: meta } satisfies WorkerReply);

  // One call at a time, in the order sent: the pool may send the next call while one runs.
  let previous: Promise<unknown> = Promise.resolve();
  port.on('message', (message: WorkerRequest) => {
    if (message.type === 'wasm') return;
    previous = previous.then(() => handle(message).then((reply) => port.postMessage(reply)));
  });

  async function handle(message: Exclude<WorkerRequest, { type: 'wasm' }>): Promise<WorkerReply> {
    const adapter = adapters.get(message.adapter);
    let result: AdapterResult | { kind: 'info'; info: Awaited<ReturnType<FormatterAdapter['info']>> };
    let poisoned = false;
    if (!adapter) {
      result = { kind: 'error', message: `no adapter named ${message.adapter} in the worker` };
    } else if (message.type === 'info') {
      try {
        result = { kind: 'info', info: await adapter.info() };
      } catch (error) {
        result = { kind: 'error', message: messageOf(error) };
        poisoned = POISON.test(result.message);
      }
    } else {
      try {
        result = await adapter.format(message.request);
        if (result.kind === 'error' && POISON.test(result.message)) poisoned = true;
        // The engine caps output too; refusing here spares copying an inflated text out of the worker.
        const overCap = result.kind === 'ok' ? outputOverCap(message.request.text, result.text) : undefined;
        if (overCap) result = { kind: 'error', message: overCap };
      } catch (error) {
        // Adapters should return errors as values; a throw is a trap, a panic or a bug.
        result = { kind: 'error', message: messageOf(error) };
        poisoned = true;
      }
    }
    // V8's own counters: process.memoryUsage() also reads the RSS from /proc on every call.
    const heap = getHeapStatistics() as ReturnType<typeof getHeapStatistics> & { external_memory?: number };
    return { type: 'result', id: message.id, result, poisoned, memory: { heapUsed: heap.used_heap_size, external: heap.external_memory ?? process.memoryUsage().external } };
  }
}

void main();
