/**
 * Wasm modules named by config, run in the formatter worker:
 *   - `{wasi: "tools/fmt.wasm", args, env, sha256?}` from the user config (WASI preview1, stdin→stdout);
 *   - `.wasm` plugins inside the repository that a dprint.json lists (the dprint plugin ABI, through
 *     `@dprint/formatter`, whose WASI imports give no files, environment or arguments). Allowed in
 *     untrusted mode: the module is size-capped, memory-capped, stopped by the worker's time limit.
 * Paths are relative to the project root.
 *
 * The main thread reads the file (inside the root only: `resolveInside` refuses `..`, symlinks out,
 * devices), caps its size, hashes it and checks the user's pin. The worker (`projectWasmWorkerAdapters`)
 * reads the same path, checks that the bytes still have that sha256, writes the memory cap into the
 * module, compiles it once per hash, and runs it with the worker's time limit. Receipts name the
 * module by path, sha256 and size.
 */
import { nodeSha256 } from './hash.js';
import { readBoundedNoFollow } from './fs/read-bounded.js';
import { isFormatboxError, messageOf } from '../core/errors.js';
import type { AdapterRequest, AdapterResult, FormatterAdapter, FormatterChoice, FormatterInfo } from '../core/types.js';
import { createFromWasmModule, type Formatter } from '@dprint/formatter';
import { DEFAULT_WASI_MEMORY_MAX_BYTES, capModuleMemory, loadCapped, resultOf, runWasiCommand } from '../formatters/wasi.js';
import { dprintConfig, locateDprintError } from '../formatters/dprint/adapter.js';
import type { DprintConfigFile } from '../formatters/dprint/config.js';
import { resolveInside } from './fs/paths.js';
import type { WorkerPool } from './worker-pool.js';

/** Largest module a config may name: 32 MiB. */
const MAX_PROJECT_WASM_BYTES = 32 * 1024 * 1024;
/** The worker adapter that runs a module named in `settings.module`. */
const WASI_FILE_ADAPTER = 'wasi-file';

interface ProjectWasmFile {
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

/** A module's bytes again, as readProjectWasm read them (a changed file is caught by its sha256; a refused one reads as empty). */
function readLoadedModule(file: ProjectWasmFile): Uint8Array {
  try {
    return readBoundedNoFollow(file.abs, MAX_PROJECT_WASM_BYTES)?.bytes ?? new Uint8Array(0);
  } catch {
    return new Uint8Array(0);
  }
}

/** Reads a module named by config: inside the root, a regular file, at most `maxBytes`. A refusal is a string. */
function readProjectWasm(rootReal: string, path: string, maxBytes = MAX_PROJECT_WASM_BYTES): { file: ProjectWasmFile; data: Uint8Array } | { refused: string } {
  try {
    const target = resolveInside(rootReal, path);
    // Its real path (resolveInside followed the links inside the root): read with no link followed, a regular file only, bounded.
    const read = readBoundedNoFollow(target.abs, maxBytes);
    if (read === null) return { refused: `${path} does not exist` };
    if (read.truncated) return { refused: `${path} is ${read.size} bytes, over the ${maxBytes}-byte limit for a wasm module` };
    const data = read.bytes;
    return { file: { path, abs: target.abs, sha256: nodeSha256(data), bytes: data.length }, data };
  } catch (error) {
    return { refused: isFormatboxError(error) ? error.message : `${path} cannot be read: ${messageOf(error)}` };
  }
}

/** How receipts and doctor name a module: `wasi:tools/fmt.wasm`, `sha256:0123456789ab 52311 bytes`. */
function wasmFileInfo(file: Pick<ProjectWasmFile, 'path' | 'sha256' | 'bytes'>, via: 'wasi' | 'wasm', prefix: string): FormatterInfo {
  return { name: `${prefix}:${file.path}`, version: `sha256:${file.sha256.slice(0, 12)} ${file.bytes} bytes`, via };
}

interface ProjectWasmOptions {
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

/** The worker adapter that runs a dprint plugin named in `settings.module`. */
const DPRINT_FILE_ADAPTER = 'dprint-file';

/** What a local dprint plugin says about itself (its `getPluginInfo` and file matching). */
interface LocalPluginInfo {
  name: string;
  version: string;
  configKey: string;
  fileExtensions: string[];
  fileNames: string[];
}

interface DprintFileSettings {
  module: ProjectWasmFile;
  memoryMaxBytes: number;
  /** dprint.json's global keys and sections. */
  config: Record<string, unknown>;
  /** `info`: answer with the plugin's LocalPluginInfo as JSON instead of formatting. */
  query?: 'info';
}

/**
 * `adapterFor` for `{dprint: 'plugins/fmt.wasm'}` choices (a dprint.json's local plugin, made into a
 * rule by `localDprintRules`): reads and checks the file here, formats in the worker.
 */
export function projectDprintAdapterFor(options: ProjectWasmOptions & { pins?: Readonly<Record<string, string>> }): (choice: FormatterChoice, language: string) => FormatterAdapter | undefined {
  return (choice, language) => {
    if (typeof choice !== 'object' || !('dprint' in choice) || !choice.dprint.toLowerCase().endsWith('.wasm')) return undefined;
    const path = choice.dprint;
    let lastInfo: FormatterInfo = { name: `dprint:${path}`, version: 'unread', via: 'wasm' };
    return {
      name: `dprint:${path}`,
      via: 'wasm',
      languages: [language],
      supportsRange: false,
      async info() {
        return lastInfo;
      },
      async format(request: AdapterRequest): Promise<AdapterResult> {
        const read = readProjectWasm(options.rootReal, path);
        if ('refused' in read) return { kind: 'refused', reason: read.refused };
        const pinned = choice.sha256 ?? options.pins?.[path];
        if (pinned && pinned.toLowerCase() !== read.file.sha256) {
          return { kind: 'refused', reason: `${path} has sha256 ${read.file.sha256.slice(0, 12)}…, the user config pins ${pinned.slice(0, 12)}…` };
        }
        lastInfo = wasmFileInfo(read.file, 'wasm', 'dprint');
        const settings: DprintFileSettings = { module: read.file, memoryMaxBytes: options.memoryMaxBytes ?? DEFAULT_WASI_MEMORY_MAX_BYTES, config: choice.settings ?? {} };
        const result = await options.pool.call(DPRINT_FILE_ADAPTER, { ...request, settings: settings as unknown as Record<string, unknown> });
        return result.kind === 'ok' ? { ...result, formatter: lastInfo } : result;
      },
    };
  };
}

/** A local dprint plugin as doctor reports it. */
export interface LocalDprintPlugin {
  path: string;
  declaredBy: string;
  sha256?: string;
  bytes?: number;
  info?: LocalPluginInfo;
  refused?: string;
}

/**
 * Reads every local plugin the dprint configs list, asks it (in the worker, under the time limit)
 * which files it formats, and returns user-config rules for them: a glob per config directory
 * (`**\/*.{ext,…}` and its file names) choosing `{dprint: path, sha256, settings, declaredBy}`.
 */
export async function localDprintRules(pool: WorkerPool, rootReal: string, configs: readonly DprintConfigFile[], pins: Readonly<Record<string, string>> = {}): Promise<{ rules: Record<string, FormatterChoice>; plugins: LocalDprintPlugin[] }> {
  const rules: Record<string, FormatterChoice> = {};
  const plugins: LocalDprintPlugin[] = [];
  for (const config of configs) {
    for (const path of config.localPlugins) {
      const read = readProjectWasm(rootReal, path);
      if ('refused' in read) {
        plugins.push({ path, declaredBy: config.file, refused: read.refused });
        continue;
      }
      const pinned = pins[path];
      const base = { path, declaredBy: config.file, sha256: read.file.sha256, bytes: read.file.bytes };
      if (pinned && pinned.toLowerCase() !== read.file.sha256) {
        plugins.push({ ...base, refused: `the user config pins sha256 ${pinned.slice(0, 12)}…` });
        continue;
      }
      const settings: DprintFileSettings = { module: read.file, memoryMaxBytes: DEFAULT_WASI_MEMORY_MAX_BYTES, config: config.raw, query: 'info' };
      const answer = await pool.call(DPRINT_FILE_ADAPTER, { path: '', language: '', text: '', settings: settings as unknown as Record<string, unknown> });
      if (answer.kind !== 'ok') {
        plugins.push({ ...base, refused: answer.kind === 'timeout' ? `it did not answer within ${answer.ms} ms` : answer.kind === 'error' ? answer.message : answer.reason });
        continue;
      }
      const info = JSON.parse(answer.text) as LocalPluginInfo;
      plugins.push({ ...base, info });
      const dir = config.dir === '' ? '' : `${config.dir}/`;
      const choice: FormatterChoice = { dprint: path, sha256: read.file.sha256, settings: config.raw, declaredBy: config.file };
      const extensions = info.fileExtensions.filter((e) => /^[\w.+-]+$/.test(e));
      if (extensions.length > 0) rules[`${dir}**/*.${extensions.length === 1 ? extensions[0] : `{${extensions.join(',')}}`}`] = choice;
      for (const name of info.fileNames.filter((n) => /^[\w.+-]+$/.test(n))) rules[`${dir}**/${name}`] = choice;
    }
  }
  return { rules, plugins };
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
  const dprintFile: FormatterAdapter = {
    name: DPRINT_FILE_ADAPTER,
    via: 'wasm',
    languages: [],
    supportsRange: false,
    async info() {
      return { name: DPRINT_FILE_ADAPTER, version: 'per module', via: 'wasm' };
    },
    async format(request) {
      const settings = request.settings as unknown as Partial<DprintFileSettings>;
      if (!settings.module || !settings.memoryMaxBytes || !settings.config) return { kind: 'unsupported', reason: `${DPRINT_FILE_ADAPTER} runs only plugins a dprint.json lists` };
      const plugin = await dprintPluginFor(settings.module, settings.memoryMaxBytes);
      if ('refused' in plugin) return { kind: 'refused', reason: plugin.refused };
      try {
        const info = plugin.formatter.getPluginInfo();
        const { global, plugin: section } = dprintConfig(settings.config, info.configKey);
        plugin.formatter.setConfig(global, section);
        if (settings.query === 'info') {
          const matching = plugin.formatter.getFileMatchingInfo();
          const answer: LocalPluginInfo = { name: info.name, version: info.version, configKey: info.configKey, fileExtensions: matching.fileExtensions, fileNames: matching.fileNames };
          return { kind: 'ok', text: JSON.stringify(answer) };
        }
        const diagnostics = plugin.formatter.getConfigDiagnostics();
        if (diagnostics.length > 0) return { kind: 'error', message: `invalid ${info.configKey} settings: ${diagnostics.map((d) => `${d.propertyName}: ${d.message}`).join('; ')}` };
        return { kind: 'ok', text: plugin.formatter.formatText({ filePath: request.path, fileText: request.text }) };
      } catch (thrown) {
        // A trap leaves the instance unusable: the next call makes a new one.
        dprintInstances.delete(settings.module.sha256);
        return { kind: 'error', message: thrown instanceof WebAssembly.RuntimeError ? `${settings.module.path} trapped: ${messageOf(thrown)}` : locateDprintError(messageOf(thrown)) };
      }
    },
  };
  return [wasiFile, dprintFile];
}

const dprintInstances = new Map<string, { formatter: Formatter } | { refused: string }>();

/** A local plugin's instance, from its bytes (checked against the sha256 read on the main thread), memory capped. */
async function dprintPluginFor(file: ProjectWasmFile, memoryMaxBytes: number): Promise<{ formatter: Formatter } | { refused: string }> {
  const cached = dprintInstances.get(file.sha256);
  if (cached) return cached;
  const data = readLoadedModule(file);
  let result: { formatter: Formatter } | { refused: string };
  if (nodeSha256(data) !== file.sha256) {
    result = { refused: `${file.path} changed while it was being loaded` };
  } else {
    const capped = capModuleMemory(data, memoryMaxBytes);
    if (!capped.ok) {
      result = { refused: `${file.path} is not run: ${capped.reason}` };
    } else {
      try {
        result = { formatter: createFromWasmModule(await WebAssembly.compile(capped.bytes as BufferSource), { onOutput: () => {} }) };
      } catch (error) {
        result = { refused: `${file.path} is not a dprint plugin formatbox can run: ${messageOf(error)}` };
      }
    }
  }
  if (dprintInstances.size >= 16) dprintInstances.delete(dprintInstances.keys().next().value!);
  dprintInstances.set(file.sha256, result);
  return result;
}

async function moduleFor(file: ProjectWasmFile, memoryMaxBytes: number): Promise<Awaited<ReturnType<typeof loadCapped>>> {
  const key = `${file.sha256}:${memoryMaxBytes}`;
  const cached = compiled.get(key);
  if (cached) return cached;
  const data = readLoadedModule(file);
  const sha256 = nodeSha256(data);
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
  kind: 'wasi' | 'dprint-plugin';
  /** A dprint plugin's own name and version, and the files it formats. */
  plugin?: string;
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

/** Local dprint plugins as doctor lists them. */
export function doctorDprintPlugins(plugins: readonly LocalDprintPlugin[]): DoctorWasmModule[] {
  return plugins.map((p) => ({
    namedBy: `${p.declaredBy} plugins`,
    path: p.path,
    kind: 'dprint-plugin' as const,
    ...(p.info ? { plugin: `${p.info.name} ${p.info.version} (${[...p.info.fileExtensions.map((e) => `.${e}`), ...p.info.fileNames].join(' ')})` } : {}),
    ...(p.sha256 ? { sha256: p.sha256, bytes: p.bytes! } : {}),
    ...(p.refused ? { refused: p.refused } : {}),
  }));
}
