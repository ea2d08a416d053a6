import type { WasmSource } from './types.js';
import { FormatboxError, messageOf } from './errors.js';

/**
 * What a shipped wasm module must look like (from wasm/manifest.json): a cheap identity, size plus
 * export names, so a wrong or stale file is a clear error at load instead of odd behaviour later.
 */
export interface WasmIdentity {
  /** The published file name under formatbox's `wasm/` directory. */
  file: string;
  package: string;
  version: string;
  /** Size in bytes (checked when the bytes, or an uncompressed Content-Length, are seen). */
  bytes: number;
  /** Export names, in module order (checked on every module, compiled ones too). */
  exports: readonly string[];
}

/**
 * Turns a host-given `WasmSource` into a `WebAssembly.Module`, checked against `identity` when given.
 * A `Module` is passed through (workerd forbids compiling bytes at run time). A URL or Response served
 * as `application/wasm` compiles while it downloads (`WebAssembly.compileStreaming`). Async compile
 * only: Chromium's main thread refuses synchronous compiles over 8 MB.
 */
export async function compileWasm(source: WasmSource, what: string, identity?: WasmIdentity): Promise<WebAssembly.Module> {
  const named = identity ? `${what} wasm (${identity.file})` : `${what} wasm`;
  let module: WebAssembly.Module;
  try {
    const resolved = typeof source === 'function' ? await source() : source;
    module = await compileResolved(resolved, identity);
  } catch (error) {
    if (error instanceof FormatboxError) throw error;
    throw loadFailed(`could not load the ${named}: ${messageOf(error)}${cspHint(error)}`, identity);
  }
  if (identity) checkExports(module, named, identity);
  return module;
}

type Resolved = Exclude<WasmSource, () => unknown>;

async function compileResolved(resolved: Resolved, identity: WasmIdentity | undefined): Promise<WebAssembly.Module> {
  if (resolved instanceof WebAssembly.Module) return resolved;
  if (resolved instanceof URL) return compileResponse(await fetchUrl(resolved), identity, resolved.href);
  if (typeof Response !== 'undefined' && resolved instanceof Response) return compileResponse(resolved, identity, resolved.url || 'a Response');
  const bytes = resolved as ArrayBuffer | ArrayBufferView;
  if (identity) checkSize(bytes.byteLength, identity, 'bytes');
  return WebAssembly.compile(bytes as BufferSource);
}

async function fetchUrl(url: URL): Promise<Response> {
  try {
    return await fetch(url);
  } catch (error) {
    if (url.protocol === 'file:') {
      throw new Error(
        `this runtime's fetch cannot read ${url.href} (Node's fetch has no file: URLs): in Node use wasmFiles() from 'formatbox/node', or pass the bytes (${messageOf(error)})`,
      );
    }
    throw error;
  }
}

async function compileResponse(response: Response, identity: WasmIdentity | undefined, where: string): Promise<WebAssembly.Module> {
  if (!response.ok) throw new Error(`HTTP ${response.status} for ${where}`);
  const type = response.headers.get('content-type') ?? '';
  const length = response.headers.get('content-length');
  // Content-Length is the compressed size when the body is encoded.
  if (identity && length !== null && !response.headers.get('content-encoding')) checkSize(Number(length), identity, `Content-Length of ${where}`);
  try {
    if (type.startsWith('application/wasm') && typeof WebAssembly.compileStreaming === 'function') {
      return await WebAssembly.compileStreaming(response);
    }
    const bytes = await response.arrayBuffer();
    if (identity) checkSize(bytes.byteLength, identity, `body of ${where}`);
    return await WebAssembly.compile(bytes);
  } catch (error) {
    if (error instanceof FormatboxError) throw error;
    throw new Error(`${where} (served as ${type || 'no content-type'}) is not a wasm module formatbox can compile: ${messageOf(error)}`);
  }
}

/** A page's Content-Security-Policy blocks wasm compilation unless script-src allows 'wasm-unsafe-eval'. */
function cspHint(error: unknown): string {
  return /disallowed by embedder|Content Security Policy|unsafe-eval/i.test(messageOf(error))
    ? " (the page's Content-Security-Policy must allow 'wasm-unsafe-eval' in script-src)"
    : '';
}

function checkSize(bytes: number, identity: WasmIdentity, seen: string): void {
  if (bytes !== identity.bytes) {
    throw loadFailed(
      `the wasm for ${identity.package} ${identity.version} (${identity.file}) should be ${identity.bytes} bytes, but the ${seen} is ${bytes}: serve the file from this formatbox version's wasm/ directory`,
      identity,
    );
  }
}

function checkExports(module: WebAssembly.Module, named: string, identity: WasmIdentity): void {
  const exports = WebAssembly.Module.exports(module).map((entry) => entry.name);
  const missing = identity.exports.filter((name) => !exports.includes(name));
  const extra = exports.filter((name) => !identity.exports.includes(name));
  if (missing.length === 0 && extra.length === 0) return;
  const detail = [missing.length ? `missing ${list(missing)}` : '', extra.length ? `unexpected ${list(extra)}` : ''].filter(Boolean).join(', ');
  throw loadFailed(`the ${named} is not ${identity.package} ${identity.version}: its exports differ (${detail}); serve the file from this formatbox version's wasm/ directory`, identity);
}

function list(names: string[]): string {
  return names.length > 4 ? `${names.slice(0, 4).join(', ')} and ${names.length - 4} more` : names.join(', ');
}

function loadFailed(message: string, identity: WasmIdentity | undefined): FormatboxError {
  return new FormatboxError('WASM_LOAD_FAILED', message, identity ? { wasm: identity.file } : undefined);
}

/**
 * Runs `load` once, on first use; concurrent callers share the same promise. A failed load is tried
 * once more on the next call, then its error is remembered (a missing 35 MB module is not downloaded
 * on every call). `reset()` forgets both.
 */
export function lazy<T>(load: () => Promise<T>): { get(): Promise<T>; reset(): void } {
  let pending: Promise<T> | undefined;
  let failures = 0;
  return {
    get() {
      pending ??= load().catch((error: unknown) => {
        failures++;
        if (failures < 2) pending = undefined;
        throw error;
      });
      return pending;
    },
    reset() {
      pending = undefined;
      failures = 0;
    },
  };
}

/** What `engine.check()` reports for one module that failed to load. */
interface WasmProblemDetail {
  wasm: string;
  problem: string;
}

/**
 * Awaits every load; when any failed, throws one WASM_LOAD_FAILED error whose `details.problems`
 * names each failed module (an adapter with two modules reports both).
 */
export async function preloadAll(loads: Array<Promise<unknown>>): Promise<void> {
  const settled = await Promise.allSettled(loads);
  const problems = settled.flatMap((result) => (result.status === 'rejected' ? problemsOf(result.reason) : []));
  if (problems.length === 1) throw settled.find((result) => result.status === 'rejected')!.reason;
  if (problems.length > 1) throw new FormatboxError('WASM_LOAD_FAILED', problems.map((p) => p.problem).join('; '), { problems });
}

/** The modules a preload error names (`details.problems`, or one `details.wasm`). */
export function problemsOf(error: unknown): WasmProblemDetail[] {
  const details = error instanceof FormatboxError ? error.details : undefined;
  if (details && Array.isArray(details['problems'])) return details['problems'] as WasmProblemDetail[];
  return [{ wasm: typeof details?.['wasm'] === 'string' ? details['wasm'] : '', problem: messageOf(error) }];
}
