/**
 * WASI preview1 formatters: a command module (`_start`) that reads the file on stdin and writes the
 * formatted file to stdout. One adapter for every such module (a user's own build of a formatter,
 * formatbox's EditorConfig normaliser).
 *
 * The host side is a small preview1 shim written here, chosen over `node:wasi`,
 * `@bjorn3/browser_wasi_shim` and `@wasmer/wasi` by measurement (docs/formatters.md, test/bench/wasi-choice.ts):
 * it runs unchanged in Node, browsers, Deno and workerd, and it gives a module nothing but
 *   - stdin (the file), stdout and stderr (both capped),
 *   - the args and environment variables the config lists,
 *   - a clock and random bytes.
 * There are no preopened directories: every path call fails with EBADF, so a module cannot see a file.
 * Every other preview1 function answers ENOSYS or EBADF. An import outside preview1 (or of a memory or
 * table) refuses the module before it runs.
 *
 * Memory is capped structurally, at instantiation: each memory the module defines gets a maximum of
 * at most `memoryMaxBytes` (the module's bytes are rewritten before compiling), so `memory.grow` past
 * the cap returns -1 inside the module instead of growing the host (on Node 20 a worker cannot be
 * terminated out of a `memory.grow` loop). A module given already compiled (`WebAssembly.Module`, as
 * workerd requires) cannot be rewritten; only the host's own modules come that way, built with a maximum.
 *
 * Universal: no `node:` imports. Time limits are the host's business (Node: the formatter worker).
 */
import { compileWasm, lazy } from '../core/wasm.js';
import { messageOf } from '../core/errors.js';
import type { AdapterRequest, AdapterResult, FormatterAdapter, FormatterInfo, WasmSource } from '../core/types.js';

const PAGE_BYTES = 65536;
export const WASI_MODULE = 'wasi_snapshot_preview1';
/** Default memory cap of a WASI formatter: 256 MiB. */
export const DEFAULT_WASI_MEMORY_MAX_BYTES = 256 * 1024 * 1024;
const DEFAULT_STDERR_MAX_BYTES = 64 * 1024;

// preview1 errno values.
const ESUCCESS = 0;
const EBADF = 8;
const EFAULT = 21;
const EINVAL = 28;
const ENOSYS = 52;
const ESPIPE = 70;
const FILETYPE_CHARACTER_DEVICE = 2;

/** Every function of wasi_snapshot_preview1, so a module importing any of them links. */
const PREVIEW1_FUNCTIONS = [
  'args_get', 'args_sizes_get', 'environ_get', 'environ_sizes_get', 'clock_res_get', 'clock_time_get',
  'fd_advise', 'fd_allocate', 'fd_close', 'fd_datasync', 'fd_fdstat_get', 'fd_fdstat_set_flags',
  'fd_fdstat_set_rights', 'fd_filestat_get', 'fd_filestat_set_size', 'fd_filestat_set_times', 'fd_pread',
  'fd_prestat_get', 'fd_prestat_dir_name', 'fd_pwrite', 'fd_read', 'fd_readdir', 'fd_renumber', 'fd_seek',
  'fd_sync', 'fd_tell', 'fd_write', 'path_create_directory', 'path_filestat_get', 'path_filestat_set_times',
  'path_link', 'path_open', 'path_readlink', 'path_remove_directory', 'path_rename', 'path_symlink',
  'path_unlink_file', 'poll_oneoff', 'proc_exit', 'proc_raise', 'sched_yield', 'random_get', 'sock_accept',
  'sock_recv', 'sock_send', 'sock_shutdown',
] as const;
const PREVIEW1 = new Set<string>(PREVIEW1_FUNCTIONS);

// ---------------------------------------------------------------------------
// The memory cap: a rewrite of the module's memory limits.

export type CapResult = { ok: true; bytes: Uint8Array; declaredMaxBytes?: number } | { ok: false; reason: string };

/**
 * Gives every memory a module defines a maximum of at most `maxBytes`. Refuses memory64, shared
 * memories, imported memories, and an initial size above the cap. Returns new bytes; the input is untouched.
 */
export function capModuleMemory(input: Uint8Array, maxBytes: number): CapResult {
  const capPages = Math.max(1, Math.floor(maxBytes / PAGE_BYTES));
  if (input.length < 8 || input[0] !== 0 || input[1] !== 0x61 || input[2] !== 0x73 || input[3] !== 0x6d) {
    return { ok: false, reason: 'not a WebAssembly module' };
  }
  if (input[4] !== 1 || input[5] !== 0 || input[6] !== 0 || input[7] !== 0) {
    return { ok: false, reason: 'not a core WebAssembly module (a component or an unknown version)' };
  }
  const reader = new Reader(input, 8);
  const out: Uint8Array[] = [input.subarray(0, 8)];
  let declaredMax: number | undefined;
  try {
    while (reader.at < input.length) {
      const start = reader.at;
      const id = reader.byte();
      const size = reader.u32();
      const bodyStart = reader.at;
      const bodyEnd = bodyStart + size;
      if (bodyEnd > input.length) return { ok: false, reason: 'truncated module' };
      if (id === 2) {
        const refused = importedMemoryOrTable(new Reader(input.subarray(0, bodyEnd), bodyStart));
        if (refused) return { ok: false, reason: refused };
      }
      if (id !== 5) {
        out.push(input.subarray(start, bodyEnd));
        reader.at = bodyEnd;
        continue;
      }
      const section = new Reader(input.subarray(0, bodyEnd), bodyStart);
      const count = section.u32();
      const body: number[] = [...leb(count)];
      for (let i = 0; i < count; i++) {
        const flags = section.byte();
        if (flags & 0x04) return { ok: false, reason: 'a 64-bit memory (memory64) is not supported' };
        if (flags & 0x02) return { ok: false, reason: 'a shared memory (threads) is not supported' };
        const minPages = section.u32();
        const maxPages = flags & 0x01 ? section.u32() : undefined;
        if (maxPages !== undefined) declaredMax = Math.max(declaredMax ?? 0, maxPages * PAGE_BYTES);
        if (minPages > capPages) {
          return { ok: false, reason: `the module needs ${mib(minPages * PAGE_BYTES)} of memory at start; the cap is ${mib(capPages * PAGE_BYTES)}` };
        }
        body.push(0x01, ...leb(minPages), ...leb(Math.min(maxPages ?? capPages, capPages)));
      }
      if (section.at !== bodyEnd) return { ok: false, reason: 'malformed memory section' };
      out.push(Uint8Array.of(5, ...leb(body.length), ...body));
      reader.at = bodyEnd;
    }
  } catch (error) {
    return { ok: false, reason: `malformed module: ${messageOf(error)}` };
  }
  return { ok: true, bytes: concat(out), ...(declaredMax !== undefined ? { declaredMaxBytes: declaredMax } : {}) };
}

/** An imported memory or table would come from the host, uncapped by this rewrite: refused. */
function importedMemoryOrTable(section: Reader): string | undefined {
  const count = section.u32();
  for (let i = 0; i < count; i++) {
    const module = section.name();
    const field = section.name();
    const kind = section.byte();
    if (kind === 0x00) section.u32();
    else if (kind === 0x01 || kind === 0x02) return `it imports a ${kind === 0x01 ? 'table' : 'memory'} (${module}.${field}); a WASI formatter must define its own`;
    else if (kind === 0x03) {
      section.byte();
      section.byte();
    } else if (kind === 0x04) {
      section.byte();
      section.u32();
    } else return `unknown import kind ${kind}`;
  }
  return undefined;
}

class Reader {
  constructor(readonly bytes: Uint8Array, public at: number) {}
  byte(): number {
    if (this.at >= this.bytes.length) throw new Error('unexpected end');
    return this.bytes[this.at++]!;
  }
  u32(): number {
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
    }
    throw new Error('bad LEB128');
  }
  name(): string {
    const length = this.u32();
    const text = new TextDecoder().decode(this.bytes.subarray(this.at, this.at + length));
    this.at += length;
    return text;
  }
}

function leb(value: number): number[] {
  const out: number[] = [];
  do {
    let b = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) b |= 0x80;
    out.push(b);
  } while (value > 0);
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function mib(bytes: number): string {
  return `${Math.round((bytes / 1048576) * 10) / 10} MiB`;
}

/** Imports that are not preview1 functions: the module cannot be linked, so it is refused before it runs. */
export function unsupportedImports(module: WebAssembly.Module): string[] {
  return WebAssembly.Module.imports(module)
    .filter((entry) => entry.module !== WASI_MODULE || entry.kind !== 'function' || !PREVIEW1.has(entry.name))
    .map((entry) => `${entry.module}.${entry.name} (${entry.kind})`);
}

// ---------------------------------------------------------------------------
// Running a command module.

export interface WasiRunOptions {
  /** argv, program name first. */
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  stdin: Uint8Array;
  /** stdout past this stops the module. */
  maxStdoutBytes: number;
  maxStderrBytes?: number;
}

export type WasiRunResult =
  | { kind: 'exit'; code: number; stdout: Uint8Array; stderr: string }
  | { kind: 'trap'; message: string; stderr: string }
  | { kind: 'output-limit'; limitBytes: number; stderr: string };

class ExitSignal {
  constructor(readonly code: number) {}
}
class OutputLimitSignal {}

/** Instantiates `module` with the preview1 shim and runs `_start` to completion, synchronously. */
export function runWasiCommand(module: WebAssembly.Module, options: WasiRunOptions): WasiRunResult {
  const encoder = new TextEncoder();
  const args = options.args.map((arg) => encoder.encode(`${arg}\0`));
  const env = Object.entries(options.env).map(([name, value]) => encoder.encode(`${name}=${value}\0`));
  const stdout = new Chunks(options.maxStdoutBytes);
  const stderr = new Chunks(options.maxStderrBytes ?? DEFAULT_STDERR_MAX_BYTES);
  let stdinAt = 0;
  let memory: WebAssembly.Memory | undefined;
  const view = () => new DataView(memory!.buffer);
  const bytes = () => new Uint8Array(memory!.buffer);

  /** Writes a list of NUL-terminated strings and the pointers to them (args_get, environ_get). */
  const putList = (list: Uint8Array[], pointers: number, buffer: number): number => {
    const dv = view();
    const mem = bytes();
    for (const item of list) {
      dv.setUint32(pointers, buffer, true);
      pointers += 4;
      mem.set(item, buffer);
      buffer += item.length;
    }
    return ESUCCESS;
  };
  const putSizes = (list: Uint8Array[], countAt: number, sizeAt: number): number => {
    const dv = view();
    dv.setUint32(countAt, list.length, true);
    dv.setUint32(sizeAt, list.reduce((sum, item) => sum + item.length, 0), true);
    return ESUCCESS;
  };
  const iovecs = (at: number, count: number): Array<[number, number]> => {
    const dv = view();
    const out: Array<[number, number]> = [];
    for (let i = 0; i < count; i++) out.push([dv.getUint32(at + i * 8, true), dv.getUint32(at + i * 8 + 4, true)]);
    return out;
  };
  const isStdio = (fd: number) => fd === 0 || fd === 1 || fd === 2;

  const shim: Record<string, (...values: number[]) => number> = {
    args_get: (pointers, buffer) => putList(args, pointers!, buffer!),
    args_sizes_get: (countAt, sizeAt) => putSizes(args, countAt!, sizeAt!),
    environ_get: (pointers, buffer) => putList(env, pointers!, buffer!),
    environ_sizes_get: (countAt, sizeAt) => putSizes(env, countAt!, sizeAt!),
    clock_res_get: (_id, at) => {
      view().setBigUint64(at!, 1000n, true);
      return ESUCCESS;
    },
    clock_time_get: (id, _precision, at) => {
      // 0 realtime; 1 monotonic; 2/3 process/thread CPU time (the monotonic clock stands in).
      const ns = id === 0 ? BigInt(Date.now()) * 1_000_000n : BigInt(Math.round(performance.now() * 1e6));
      if (id! > 3) return EINVAL;
      view().setBigUint64(at as unknown as number, ns, true);
      return ESUCCESS;
    },
    random_get: (at, length) => {
      const target = bytes().subarray(at!, at! + length!);
      // getRandomValues takes at most 65,536 bytes per call.
      for (let i = 0; i < target.length; i += 65536) crypto.getRandomValues(target.subarray(i, Math.min(target.length, i + 65536)));
      return ESUCCESS;
    },
    fd_read: (fd, iovs, count, readAt) => {
      if (fd !== 0) return fd === 1 || fd === 2 ? EBADF : EBADF;
      let total = 0;
      const mem = bytes();
      for (const [buffer, length] of iovecs(iovs!, count!)) {
        const chunk = options.stdin.subarray(stdinAt, stdinAt + length);
        mem.set(chunk, buffer);
        stdinAt += chunk.length;
        total += chunk.length;
        if (chunk.length < length) break;
      }
      view().setUint32(readAt!, total, true);
      return ESUCCESS;
    },
    fd_write: (fd, iovs, count, writtenAt) => {
      if (fd !== 1 && fd !== 2) return EBADF;
      const sink = fd === 1 ? stdout : stderr;
      let total = 0;
      const mem = bytes();
      for (const [buffer, length] of iovecs(iovs!, count!)) {
        if (buffer + length > mem.length) return EFAULT;
        if (!sink.push(mem.slice(buffer, buffer + length)) && fd === 1) throw new OutputLimitSignal();
        total += length;
      }
      view().setUint32(writtenAt!, total, true);
      return ESUCCESS;
    },
    fd_fdstat_get: (fd, at) => {
      if (!isStdio(fd!)) return EBADF;
      const dv = view();
      dv.setUint8(at!, FILETYPE_CHARACTER_DEVICE);
      dv.setUint16(at! + 2, 0, true);
      // Rights: fd_read (bit 1) for stdin, fd_write (bit 6) for stdout/stderr.
      dv.setBigUint64(at! + 8, fd === 0 ? 2n : 64n, true);
      dv.setBigUint64(at! + 16, 0n, true);
      return ESUCCESS;
    },
    fd_filestat_get: (fd, at) => {
      if (!isStdio(fd!)) return EBADF;
      bytes().fill(0, at!, at! + 64);
      view().setUint8(at! + 16, FILETYPE_CHARACTER_DEVICE);
      return ESUCCESS;
    },
    fd_close: (fd) => (isStdio(fd!) ? ESUCCESS : EBADF),
    fd_seek: (fd) => (isStdio(fd!) ? ESPIPE : EBADF),
    fd_tell: (fd) => (isStdio(fd!) ? ESPIPE : EBADF),
    fd_sync: (fd) => (isStdio(fd!) ? ESUCCESS : EBADF),
    fd_datasync: (fd) => (isStdio(fd!) ? ESUCCESS : EBADF),
    // No preopened directories: the module is told fd 3 and up do not exist, so libc opens nothing.
    fd_prestat_get: () => EBADF,
    fd_prestat_dir_name: () => EBADF,
    proc_exit: (code) => {
      throw new ExitSignal(code! | 0);
    },
    sched_yield: () => ESUCCESS,
  };

  const wasi: Record<string, (...values: number[]) => number> = {};
  for (const name of PREVIEW1_FUNCTIONS) {
    const own = shim[name];
    // Everything else: path_* (no directory to resolve against), sockets, polling, signals.
    wasi[name] = own ?? (name.startsWith('fd_') || name.startsWith('path_') ? () => EBADF : () => ENOSYS);
  }

  const stderrText = () => new TextDecoder().decode(stderr.bytes());
  let instance: WebAssembly.Instance;
  try {
    instance = new WebAssembly.Instance(module, { [WASI_MODULE]: wasi });
  } catch (error) {
    return { kind: 'trap', message: `could not instantiate: ${messageOf(error)}`, stderr: '' };
  }
  const exportedMemory = instance.exports.memory;
  const start = instance.exports._start;
  if (!(exportedMemory instanceof WebAssembly.Memory)) return { kind: 'trap', message: 'the module exports no memory', stderr: '' };
  if (typeof start !== 'function') return { kind: 'trap', message: 'not a WASI command module (no _start export)', stderr: '' };
  memory = exportedMemory;
  try {
    (start as () => void)();
    return { kind: 'exit', code: 0, stdout: stdout.bytes(), stderr: stderrText() };
  } catch (thrown) {
    if (thrown instanceof ExitSignal) return { kind: 'exit', code: thrown.code, stdout: stdout.bytes(), stderr: stderrText() };
    if (thrown instanceof OutputLimitSignal) return { kind: 'output-limit', limitBytes: options.maxStdoutBytes, stderr: stderrText() };
    return { kind: 'trap', message: messageOf(thrown), stderr: stderrText() };
  }
}

/** Output collected up to a byte limit. */
class Chunks {
  private parts: Uint8Array[] = [];
  private total = 0;
  constructor(private readonly limit: number) {}
  /** False once the limit is passed (the part is dropped). */
  push(part: Uint8Array): boolean {
    if (this.total + part.length > this.limit) return false;
    this.parts.push(part);
    this.total += part.length;
    return true;
  }
  bytes(): Uint8Array {
    return concat(this.parts);
  }
}

// ---------------------------------------------------------------------------
// The adapter.

export interface WasiFormatterOptions {
  /**
   * The module. Bytes (or a URL/Response/loader giving bytes) get the memory cap written in; a
   * `WebAssembly.Module` is used as given (the host vouches for its memory maximum).
   */
  wasm: WasmSource;
  /** Adapter name (`editorconfig`, `wasi:tools/fmt.wasm`). */
  name: string;
  /** What receipts call the formatter: name and version. */
  info: { name: string; version: string };
  languages: readonly string[];
  /** argv after the program name, or a function of the request (e.g. flags from settings). */
  args?: readonly string[] | ((request: AdapterRequest) => readonly string[]);
  env?: Readonly<Record<string, string>>;
  /** Default 256 MiB. */
  memoryMaxBytes?: number;
  /** stdout cap. Default: 4 × the input plus 1 MiB. */
  maxStdoutBytes?: (inputBytes: number) => number;
  /**
   * The adapter gets the file as it is, BOM and line endings included, and its output is the final
   * text (an EditorConfig normaliser sets both). Default false.
   */
  rawText?: boolean;
}

/** A WASI command module as a formatter: stdin → stdout; exit 0 is success, any other exit a `failed` with stderr's first line. */
export function wasiFormatter(options: WasiFormatterOptions): FormatterAdapter {
  const memoryMaxBytes = options.memoryMaxBytes ?? DEFAULT_WASI_MEMORY_MAX_BYTES;
  const program = options.info.name;
  const module = lazy(() => loadCapped(options.wasm, memoryMaxBytes, program));
  const encoder = new TextEncoder();

  return {
    name: options.name,
    via: 'wasi',
    languages: options.languages,
    supportsRange: false,
    ...(options.rawText ? { rawText: true } : {}),

    async info(): Promise<FormatterInfo> {
      return { ...options.info, via: 'wasi' };
    },

    async format(request: AdapterRequest): Promise<AdapterResult> {
      const loaded = await module.get();
      if ('refused' in loaded) return { kind: 'refused', reason: loaded.refused };
      const stdin = encoder.encode(request.text);
      const args = typeof options.args === 'function' ? options.args(request) : (options.args ?? []);
      const result = runWasiCommand(loaded.module, {
        args: [program, ...args],
        env: options.env ?? {},
        stdin,
        maxStdoutBytes: options.maxStdoutBytes ? options.maxStdoutBytes(stdin.length) : stdin.length * 4 + 1024 * 1024,
      });
      return resultOf(result, program);
    },
  };
}

/** A run's outcome as an adapter value. */
export function resultOf(result: WasiRunResult, program: string): AdapterResult {
  const said = firstStderrLine(result.stderr);
  switch (result.kind) {
    case 'output-limit':
      return { kind: 'error', message: `${program} wrote more than ${result.limitBytes} bytes to stdout and was stopped` };
    case 'trap':
      return { kind: 'error', message: `${program} trapped: ${result.message}${said ? ` (stderr: ${said})` : ''}` };
    case 'exit': {
      if (result.code !== 0) return { kind: 'error', message: said || `${program} exited with code ${result.code}`, exitCode: result.code };
      try {
        return { kind: 'ok', text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(result.stdout) };
      } catch {
        return { kind: 'error', message: `${program} wrote output that is not UTF-8` };
      }
    }
  }
}

function firstStderrLine(stderr: string): string {
  return (stderr.split('\n').find((line) => line.trim() !== '') ?? '').trim().slice(0, 300);
}

/**
 * Compiles a module with its memory capped, and checks its imports. A refusal is a value (the
 * receipt says why); a module that cannot be read at all throws WASM_LOAD_FAILED.
 */
export async function loadCapped(source: WasmSource, memoryMaxBytes: number, what: string): Promise<{ module: WebAssembly.Module } | { refused: string }> {
  const resolved = typeof source === 'function' ? await source() : source;
  let module: WebAssembly.Module;
  if (resolved instanceof WebAssembly.Module) {
    module = resolved;
  } else {
    const raw = await bytesOf(resolved);
    const capped = capModuleMemory(raw, memoryMaxBytes);
    if (!capped.ok) return { refused: `${what} is not run: ${capped.reason}` };
    module = await compileWasm(capped.bytes, what);
  }
  const unknown = unsupportedImports(module);
  if (unknown.length > 0) {
    return { refused: `${what} is not run: it imports ${unknown.slice(0, 3).join(', ')}${unknown.length > 3 ? ` and ${unknown.length - 3} more` : ''}, which a WASI formatter does not get (only ${WASI_MODULE} functions)` };
  }
  return { module };
}

async function bytesOf(source: Exclude<WasmSource, WebAssembly.Module | (() => unknown)> | ArrayBuffer | ArrayBufferView | URL | Response): Promise<Uint8Array> {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  if (source instanceof URL) {
    const response = await fetch(source);
    if (!response.ok) throw new Error(`HTTP ${response.status} for ${source.href}`);
    return new Uint8Array(await response.arrayBuffer());
  }
  return new Uint8Array(await (source as Response).arrayBuffer());
}
