/**
 * What the pool (worker-pool.ts) and a format worker (format-worker.ts) send each other, and the
 * script the pool starts a worker with.
 */
import type { AdapterRequest, AdapterResult, FormatterInfo, Via } from '../core/types.js';

export interface AdapterMeta {
  name: string;
  via: Via;
  languages: string[];
  supportsRange: boolean;
  rangeLanguages?: string[];
  rawText?: boolean;
}

/** `workerData` of a format worker. */
export interface WorkerInit {
  /** Load the built-in adapters (builtins.ts). */
  builtins: boolean;
  /** Extra modules (file URLs) exporting `createAdapters(): FormatterAdapter[]`, loaded in the worker. */
  modules: string[];
  /** Built-in wasm compiled by earlier workers: a replacement worker instantiates instead of compiling. */
  compiled: Record<string, WebAssembly.Module>;
}

export type WorkerRequest =
  | { type: 'format'; id: number; adapter: string; request: AdapterRequest }
  | { type: 'info'; id: number; adapter: string }
  /** The answer to `need-wasm`: the shared module, or none (compile it in this worker). */
  | { type: 'wasm'; name: string; module?: WebAssembly.Module };

export type WorkerReply =
  | { type: 'ready'; adapters: AdapterMeta[] }
  | { type: 'fatal'; message: string }
  | { type: 'compiled'; name: string; module: WebAssembly.Module }
  | { type: 'need-wasm'; name: string }
  | {
      type: 'result';
      id: number;
      result: AdapterResult | { kind: 'info'; info: FormatterInfo };
      poisoned: boolean;
      memory: { heapUsed: number; external: number };
    };

/**
 * The worker script next to the pool: `format-worker.js` in dist/. From src (tests, via tsx)
 * the `.ts` sibling is loaded through a bootstrap that registers tsx in the worker first: Node 20
 * does not run `--import` preloads in worker threads.
 */
export function workerScript(): { script: string | URL; eval: boolean } {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return { script: new URL('./format-worker.js', here), eval: false };
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./format-worker.ts', here).href;
  return { script: `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`, eval: true };
}
