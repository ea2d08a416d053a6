/**
 * Every built-in in-process formatter from its wasm sources, in any runtime: one `WasmSource` (a
 * `WebAssembly.Module`, bytes, a URL, a Response, or a loader) per module name. Nothing is loaded
 * until a formatter is used. Node passes file loaders (src/node/builtins.ts); a browser, Web Worker
 * or edge host passes URLs or imported modules (`wasmUrls(base)` names the files).
 */
import type { FormatterAdapter, WasmSource } from '../core/types.js';
import type { ShippedPrettierPlugin } from './prettier-plugins.js';
import { FormatboxError } from '../core/errors.js';
import { checkedWasm } from './checked.js';
import { BUILTIN_WASM_FILES, type BuiltinWasmName } from './derived.js';
import { BUILTIN_FACTORIES } from './builtin-adapters.js';

export { BUILTIN_WASM_FILES, type BuiltinWasmName };

/**
 * The built-in adapters, each registered formatter's (its builtin.ts) for the wasm given: a
 * formatter whose wasm is not given is left out (Prettier needs none; `ruff_fmt` is optional: without
 * it Ruff formats no ranges and skips `.pyi`; given without `ruff`, as in the edge profile, it is the
 * Python formatter; Rust gets a clear `skipped` where only the Node runtime's sandbox could run
 * rustfmt). Each module is checked against the shipped build's size and export names when it loads
 * (`BUILTIN_WASM_IDENTITY`, from wasm/manifest.json).
 */
export function createFormatters(given: Partial<Record<BuiltinWasmName, WasmSource>>, options: { prettierPlugins?: Readonly<Record<string, ShippedPrettierPlugin>> } = {}): FormatterAdapter[] {
  const wasm = checkedSources(given);
  return BUILTIN_FACTORIES.flatMap((builtins) => builtins(wasm, options));
}

/** Each source wrapped in a loader that checks the module against the shipped build's identity. */
function checkedSources(given: Partial<Record<BuiltinWasmName, WasmSource>>): Partial<Record<BuiltinWasmName, WasmSource>> {
  const out: Partial<Record<BuiltinWasmName, WasmSource>> = {};
  for (const [name, source] of Object.entries(given) as Array<[BuiltinWasmName, WasmSource | undefined]>) {
    if (!source) continue;
    out[name] = checkedWasm(name, source);
  }
  return out;
}

/**
 * URLs of every module under one base (a directory holding the files of `BUILTIN_WASM_FILES`, e.g.
 * copied next to the bundle): `createFormatters(wasmUrls(new URL('./wasm/', import.meta.url)))`.
 */
export function wasmUrls(base: URL | string): Record<BuiltinWasmName, URL> {
  const root = absoluteBase(base);
  if (!root.pathname.endsWith('/')) root.pathname += '/';
  const out = {} as Record<BuiltinWasmName, URL>;
  for (const [name, file] of Object.entries(BUILTIN_WASM_FILES)) out[name as BuiltinWasmName] = new URL(file, root);
  return out;
}

/**
 * `base` as an absolute URL. A relative string is taken relative to the page (`location.href`). An
 * empty `import.meta.url` (esbuild's IIFE output empties `import.meta`) is a clear error, not `Invalid URL`.
 */
function absoluteBase(base: URL | string | undefined): URL {
  if (base instanceof URL) return new URL(base.href);
  const page = (globalThis as { location?: { href?: string } }).location?.href;
  if (typeof base === 'string' && base !== '' && base !== 'undefined') {
    try {
      return new URL(base, page);
    } catch {
      // Reported below.
    }
  }
  throw new FormatboxError(
    'INVALID_REQUEST',
    `wasmUrls needs the absolute URL of the directory holding the .wasm files, got ${JSON.stringify(String(base))}. ` +
      "If it came from import.meta.url: a bundle in esbuild's default IIFE format has an empty import.meta; " +
      "bundle with format: 'esm', or pass the URL yourself, e.g. wasmUrls(new URL('/wasm/', location.href)).",
  );
}
