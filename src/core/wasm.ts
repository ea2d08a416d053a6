import type { WasmSource } from './types.js';
import { FormatboxError, messageOf } from './errors.js';

/**
 * Turns a host-given `WasmSource` into a `WebAssembly.Module`.
 * A `Module` is passed through untouched (workerd forbids compiling bytes at run time).
 * Async compile only: Chromium's main thread refuses synchronous compiles over 8 MB.
 */
export async function compileWasm(source: WasmSource, what: string): Promise<WebAssembly.Module> {
  try {
    const resolved = typeof source === 'function' ? await source() : source;
    if (resolved instanceof WebAssembly.Module) return resolved;
    if (typeof Response !== 'undefined' && resolved instanceof Response) {
      return await WebAssembly.compile(await resolved.arrayBuffer());
    }
    if (resolved instanceof URL) {
      const response = await fetch(resolved);
      if (!response.ok) throw new Error(`HTTP ${response.status} for ${resolved.href}`);
      return await WebAssembly.compile(await response.arrayBuffer());
    }
    return await WebAssembly.compile(resolved as BufferSource);
  } catch (error) {
    throw new FormatboxError('WASM_LOAD_FAILED', `could not load the ${what} wasm: ${messageOf(error)}`);
  }
}

/** Runs `load` once, on first use; concurrent callers share the same promise. A failed load may be retried. */
export function lazy<T>(load: () => Promise<T>): { get(): Promise<T>; reset(): void } {
  let pending: Promise<T> | undefined;
  return {
    get() {
      pending ??= load().catch((error: unknown) => {
        pending = undefined;
        throw error;
      });
      return pending;
    },
    reset() {
      pending = undefined;
    },
  };
}
