/**
 * Test-only adapters that misbehave, loaded inside the format worker through the pool's
 * `modules` option (never reachable from project config). Wasm where possible: the modules are
 * built from wasm/test/*.wat (`wat2wasm`; the .wasm bytes are committed so CI needs no wabt).
 */
import { readFileSync } from 'node:fs';
import type { AdapterResult, FormatterAdapter } from '../../src/core/types.js';

const WASM_DIR = new URL('../../wasm/test/', import.meta.url);

function wasmAdapter(name: string, file: string, exportName = 'format'): FormatterAdapter {
  let instance: WebAssembly.Instance | undefined;
  return {
    name,
    via: 'wasm',
    languages: ['runaway'],
    supportsRange: false,
    async info() {
      return { name, version: 'test', via: 'wasm' };
    },
    async format(request): Promise<AdapterResult> {
      instance ??= new WebAssembly.Instance(new WebAssembly.Module(readFileSync(new URL(file, WASM_DIR))), {});
      (instance.exports[exportName] as (n: number) => number)(request.text.length);
      return { kind: 'ok', text: request.text };
    },
  };
}

function jsAdapter(name: string, run: (text: string) => string): FormatterAdapter {
  return {
    name,
    via: 'js',
    languages: ['runaway'],
    supportsRange: false,
    async info() {
      return { name, version: 'test', via: 'js' };
    },
    async format(request): Promise<AdapterResult> {
      return { kind: 'ok', text: run(request.text) };
    },
  };
}

function recurse(n: number): number {
  return recurse(n + 1) + 1;
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * `?as=gofmt:wasm-loop,c:js-slow` on the module URL renames adapters to built-in names (and the
 * languages of that built-in), so a runtime test can select them through ordinary config.
 */
const LANGUAGES_OF: Record<string, string[]> = { gofmt: ['go'], 'clang-format': ['c', 'cpp'], toml: ['toml'] };

export function createAdapters(): FormatterAdapter[] {
  const all = adapters();
  const as = new URL(import.meta.url).searchParams.get('as');
  if (!as) return all;
  return as.split(',').map((pair) => {
    const [name, source] = pair.split(':') as [string, string];
    const adapter = all.find((a) => a.name === source)!;
    return { ...adapter, name, languages: LANGUAGES_OF[name] ?? [name], format: adapter.format.bind(adapter), info: async () => ({ name, version: 'test', via: adapter.via }) };
  });
}

function adapters(): FormatterAdapter[] {
  return [
    wasmAdapter('wasm-loop', 'loop.wasm'),
    wasmAdapter('wasm-grow', 'grow.wasm'),
    wasmAdapter('wasm-trap', 'trap.wasm'),
    wasmAdapter('wasm-recurse', 'trap.wasm', 'recurse'),
    jsAdapter('js-loop', (text) => {
      for (;;) if (text === '\u0000never') break;
      return text;
    }),
    jsAdapter('js-recurse', (text) => String(recurse(text.length))),
    jsAdapter('js-throw', () => {
      throw new Error('js-throw: formatter bug');
    }),
    jsAdapter('js-heap', () => {
      const hoard: string[][] = [];
      for (;;) hoard.push(new Array(1e5).fill('x'.repeat(8)));
    }),
    jsAdapter('js-slow', (text) => {
      sleep(400);
      return text.split('\n').map((l) => l.trimEnd()).join('\n');
    }),
    // Well-behaved: proves the next call works after a runaway.
    jsAdapter('js-trim', (text) => text.split('\n').map((l) => l.trimEnd()).join('\n')),
  ];
}
