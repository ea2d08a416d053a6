/**
 * WASI modules named by config, run in the formatter worker: `{wasi: "tools/fmt.wasm", args, env,
 * sha256?}` from the user config, with the path relative to the project root.
 *
 * The main thread reads the file (inside the root only: `resolveInside` refuses `..`, symlinks out,
 * devices), caps its size, hashes it and checks the user's pin. The worker (`projectWasmWorkerAdapters`)
 * reads the same path, checks that the bytes still have that sha256, writes the memory cap into the
 * module, compiles it once per hash, and runs it with the worker's time limit. Receipts name the
 * module by path, sha256 and size.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { isFormatboxError, messageOf } from '../core/errors.js';
import type { AdapterRequest, AdapterResult, FormatterAdapter, FormatterChoice, FormatterInfo } from '../core/types.js';
import { DEFAULT_WASI_MEMORY_MAX_BYTES, loadCapped, resultOf, runWasiCommand } from '../formatters/wasi.js';
import { resolveInside } from './fs.js';
import type { WorkerPool } from './worker-pool.js';

/** Largest module a config may name: 32 MiB. */
export const MAX_PROJECT_WASM_BYTES = 32 * 1024 * 1024;
/** The worker adapter that runs a module named in `settings.module`. */
export const WASI_FILE_ADAPTER = 'wasi-file';

export interface ProjectWasmFile {
  /** Project-relative path as configured. */
  path: string;
  abs: string;
  sha256: string;
  bytes: number;
}

/** What the worker adapter gets in `settings`. */
interface WasiFileSettings {
  module: ProjectWasmFile;
  args: string[];
  env: Record<string, string>;
  memoryMaxBytes: number;
}

/** Reads a module named by config: inside the root, a regular file, at most `maxBytes`. A refusal is a string. */
export function readProjectWasm(rootReal: string, path: string, maxBytes = MAX_PROJECT_WASM_BYTES): { file: ProjectWasmFile; data: Uint8Array } | { refused: string } {
  try {
    const target = resolveInside(rootReal, path);
    const size = statSync(target.abs, { throwIfNoEntry: false })?.size;
    if (size === undefined) return { refused: `${path} does not exist` };
    if (size > maxBytes) return { refused: `${path} is ${size} bytes, over the ${maxBytes}-byte limit for a wasm module` };
    const data = new Uint8Array(readFileSync(target.abs));
    return { file: { path, abs: target.abs, sha256: createHash('sha256').update(data).digest('hex'), bytes: data.length }, data };
  } catch (error) {
    return { refused: isFormatboxError(error) ? error.message : `${path} cannot be read: ${messageOf(error)}` };
  }
}

/** How receipts and doctor name a module: `wasi:tools/fmt.wasm`, `sha256:0123456789ab 52311 bytes`. */
export function wasmFileInfo(file: Pick<ProjectWasmFile, 'path' | 'sha256' | 'bytes'>, via: 'wasi' | 'wasm', prefix: string): FormatterInfo {
  return { name: `${prefix}:${file.path}`, version: `sha256:${file.sha256.slice(0, 12)} ${file.bytes} bytes`, via };
}

export interface ProjectWasmOptions {
  pool: WorkerPool;
  rootReal: string;
  memoryMaxBytes?: number;
}

/**
 * `adapterFor` for `{wasi}` choices: an adapter that reads and checks the module on the main thread
 * and runs it in the worker. Undefined for any other choice.
 */
export function projectWasiAdapterFor(options: ProjectWasmOptions): (choice: FormatterChoice, language: string) => FormatterAdapter | undefined {
  return (choice, language) => {
    if (typeof choice !== 'object' || !('wasi' in choice)) return undefined;
    const path = choice.wasi;
    let lastInfo: FormatterInfo = { name: `wasi:${path}`, version: 'unread', via: 'wasi' };
    return {
      name: `wasi:${path}`,
      via: 'wasi',
      languages: [language],
      supportsRange: false,
      async info() {
        const read = readProjectWasm(options.rootReal, path);
        if ('file' in read) lastInfo = wasmFileInfo(read.file, 'wasi', 'wasi');
        return lastInfo;
      },
      async format(request: AdapterRequest): Promise<AdapterResult> {
        const read = readProjectWasm(options.rootReal, path);
        if ('refused' in read) return { kind: 'refused', reason: read.refused };
        const { file } = read;
        if (choice.sha256 && choice.sha256 !== file.sha256) {
          return { kind: 'refused', reason: `${path} has sha256 ${file.sha256.slice(0, 12)}…, the user config pins ${choice.sha256.slice(0, 12)}…` };
        }
        lastInfo = wasmFileInfo(file, 'wasi', 'wasi');
        const settings: WasiFileSettings = { module: file, args: choice.args ?? [], env: choice.env ?? {}, memoryMaxBytes: options.memoryMaxBytes ?? DEFAULT_WASI_MEMORY_MAX_BYTES };
        const result = await options.pool.call(WASI_FILE_ADAPTER, { ...request, settings: settings as unknown as Record<string, unknown> });
        return result.kind === 'ok' ? { ...result, formatter: lastInfo } : result;
      },
    };
  };
}

/** Compiled modules by sha256 (and cap), in the worker. Small: a project names a few modules. */
const compiled = new Map<string, Awaited<ReturnType<typeof loadCapped>>>();

/** The worker side: runs the module `settings.module` names, after checking its sha256 again. */
export function projectWasmWorkerAdapters(): FormatterAdapter[] {
  const wasiFile: FormatterAdapter = {
    name: WASI_FILE_ADAPTER,
    via: 'wasi',
    languages: [],
    supportsRange: false,
    async info() {
      return { name: WASI_FILE_ADAPTER, version: 'per module', via: 'wasi' };
    },
    async format(request) {
      const settings = request.settings as unknown as Partial<WasiFileSettings>;
      if (!settings.module || !settings.args || !settings.env || !settings.memoryMaxBytes) return { kind: 'unsupported', reason: `${WASI_FILE_ADAPTER} runs only modules named by a {wasi} choice` };
      const loaded = await moduleFor(settings.module, settings.memoryMaxBytes);
      if ('refused' in loaded) return { kind: 'refused', reason: loaded.refused };
      const stdin = new TextEncoder().encode(request.text);
      const run = runWasiCommand(loaded.module, {
        args: [settings.module.path, ...settings.args],
        env: settings.env,
        stdin,
        maxStdoutBytes: stdin.length * 4 + 1024 * 1024,
      });
      return resultOf(run, settings.module.path);
    },
  };
  return [wasiFile];
}

async function moduleFor(file: ProjectWasmFile, memoryMaxBytes: number): Promise<Awaited<ReturnType<typeof loadCapped>>> {
  const key = `${file.sha256}:${memoryMaxBytes}`;
  const cached = compiled.get(key);
  if (cached) return cached;
  const data = new Uint8Array(readFileSync(file.abs));
  const sha256 = createHash('sha256').update(data).digest('hex');
  if (sha256 !== file.sha256) return { refused: `${file.path} changed while it was being loaded` };
  const loaded = await loadCapped(data, memoryMaxBytes, file.path);
  if (compiled.size >= 16) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, loaded);
  return loaded;
}

/** What `doctor()` says about one wasm module named by config. */
export interface DoctorWasmModule {
  /** Where it was named: `formatters.text` of the user config. */
  namedBy: string;
  path: string;
  kind: 'wasi';
  sha256?: string;
  bytes?: number;
  /** Set when the module would not run: missing, too large, outside the root, a pinned hash that differs. */
  refused?: string;
}

/** Every `{wasi}` module the user config names, read and hashed (never run) for `doctor()`. */
export function doctorWasmModules(rootReal: string, formatters: Record<string, unknown> | undefined): DoctorWasmModule[] {
  const out: DoctorWasmModule[] = [];
  for (const [key, choice] of Object.entries(formatters ?? {})) {
    if (typeof choice !== 'object' || choice === null || typeof (choice as { wasi?: unknown }).wasi !== 'string') continue;
    const { wasi: path, sha256: pinned } = choice as { wasi: string; sha256?: string };
    const read = readProjectWasm(rootReal, path);
    if ('refused' in read) {
      out.push({ namedBy: `formatters.${key}`, path, kind: 'wasi', refused: read.refused });
      continue;
    }
    const mismatch = pinned && pinned.toLowerCase() !== read.file.sha256 ? `the user config pins sha256 ${pinned.slice(0, 12)}…` : undefined;
    out.push({ namedBy: `formatters.${key}`, path, kind: 'wasi', sha256: read.file.sha256, bytes: read.file.bytes, ...(mismatch ? { refused: mismatch } : {}) });
  }
  return out;
}
