/**
 * The project's own Prettier, with its own config and plugins, in the OS sandbox: the third way
 * between refusing a setup that is code and trusting it in-process. One warm worker per toolchain
 * (root, modules directory, the installed Prettier and the config and lockfile markers it reads, by
 * stat), started on first need, shared by every runtime of this process (the daemon's, `format`'s),
 * evicted when idle or when more than `MAX_WARM_TOOLCHAINS` are warm. A worker that fails is
 * dropped; the next request starts a fresh one.
 *
 *   const adapter = projectPrettierAdapter({ root, timeoutMs, configFiles: () => [...] });
 *   createEngine({ …, projectCode: (formatter) => formatter === 'prettier' ? adapter : { refused: '…' } });
 */
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { AdapterRequest, AdapterResult, FormatterAdapter, FormatterInfo, LineEndingPolicy } from '../../core/types.js';
import { PRETTIER_LANGUAGES, PRETTIER_RANGE_LANGUAGES } from '../../formatters/prettier/adapter.js';
import { detectSandbox } from '../sandbox/index.js';
import { findBwrap } from '../sandbox/bwrap.js';
import { ToolchainProcess, type ToolchainFailure } from './toolchain-process.js';

export { ToolchainProcess } from './toolchain-process.js';

export interface ProjectToolchainOptions {
  /** Absolute real path of the project root (bound read-only; the worker's working directory). */
  root: string;
  /**
   * A host directory holding a `node_modules` tree for a project without its own (fetched from its
   * lockfile), bound read-only at `<parent of root>/node_modules`, where Node's resolution finds it.
   */
  modulesDir?: string;
  /** Per request, the start of a fresh worker included; past it the worker is killed. */
  timeoutMs: number;
  /** Root-relative paths of the project's Prettier config files (their stat is part of the toolchain key). */
  configFiles?: () => readonly string[];
  /** Address-space ceiling of the worker. Default 4 GiB (Node alone reserves about 2). */
  maxMemoryBytes?: number;
  /** Longest answer accepted. Default 64 MiB. */
  maxAnswerBytes?: number;
  /** Workers of this toolchain that may run at once when requests queue (a batch's threads). Default 1. */
  parallel?: number;
}

/** Warm workers kept at once in one process; the least recently used is stopped past it. */
export const MAX_WARM_TOOLCHAINS = 4;
/** A worker unused this long is stopped. */
export const TOOLCHAIN_IDLE_MS = 10 * 60_000;
const DEFAULT_MAX_MEMORY_BYTES = 4 * 1024 ** 3;
/**
 * A TS config on a Node without type stripping loads through the project's tsx, whose loader thread
 * instantiates wasm: V8 reserves 10 GB of address space per wasm memory there, so the ceiling is raised.
 */
const TSX_MAX_MEMORY_BYTES = 16 * 1024 ** 3;
const DEFAULT_MAX_ANSWER_BYTES = 64 * 1024 * 1024;
const TMPFS_BYTES = 64 * 1024 * 1024;
const MAX_PROCESSES = 256;
/** Most workers of one toolchain. */
const MAX_PARALLEL = 8;
/**
 * What the first request of a worker may take on top of `timeoutMs`: Node, the project's Prettier and
 * its plugins loading (Tailwind v3 compiles its config on its first file: seconds on a loaded machine).
 */
export const TOOLCHAIN_STARTUP_MS = 60_000;
/** What the package managers rewrite when they change `node_modules` (npm, pnpm, yarn, bun). */
const INSTALL_MARKERS = ['node_modules/.package-lock.json', 'node_modules/.modules.yaml', 'node_modules/.yarn-state.yml', 'node_modules/.yarn-integrity', 'node_modules/prettier/package.json'];
const END_OF_LINE: Readonly<Record<string, LineEndingPolicy>> = { lf: 'lf', crlf: 'crlf', cr: 'cr', auto: 'first-cr' };

interface Warm {
  /** One or more workers of the same toolchain (a batch may run several, one per core). */
  processes: ToolchainProcess[];
  timer: NodeJS.Timeout;
}

const warm = new Map<string, Warm>();

/** Why the project's code cannot run sandboxed on this host, or undefined when it can. */
export function projectCodeUnavailable(): string | undefined {
  const sandbox = detectSandbox();
  if (sandbox.unavailable) return sandbox.unavailable;
  if (sandbox.kind !== 'bwrap') return `the project's toolchain runs only in bubblewrap, and this host has ${sandbox.kind}`;
  return undefined;
}

/** Whether the project's own Prettier is where the sandboxed worker will import it from. */
export function projectPrettierInstalled(root: string, modulesDir?: string): boolean {
  return existsSync(join(root, 'node_modules/prettier/package.json')) || (modulesDir !== undefined && existsSync(join(modulesDir, 'prettier/package.json')));
}

/** Stops every warm worker of this process (the daemon's shutdown, tests). */
export function stopProjectToolchains(): void {
  for (const [key, entry] of warm) drop(key, entry);
}

/** Stops the warm workers no request is using (the daemon over its memory ceiling); returns how many. */
export function stopIdleProjectToolchains(): number {
  let stopped = 0;
  for (const [key, entry] of warm) {
    if (!entry.processes.every((process) => process.idle)) continue;
    drop(key, entry);
    stopped++;
  }
  return stopped;
}

/** How many workers are warm (doctor, tests). */
export function warmToolchainCount(): number {
  return warm.size;
}

export function projectPrettierAdapter(options: ProjectToolchainOptions): FormatterAdapter {
  const bwrap = findBwrap();
  let lastVersion: string | undefined;
  /** The project's own plugin files the worker reported loading: a change to one starts a new worker. */
  const localPlugins = new Set<string>();
  const learn = (plugins: readonly string[] | undefined): void => {
    for (const plugin of plugins ?? []) if (plugin.startsWith('./') && !plugin.split('/').includes('..') && localPlugins.size < 64) localPlugins.add(plugin.slice(2));
  };
  const workerFor = (): ToolchainProcess => {
    const key = toolchainKey(options, localPlugins);
    let entry = warm.get(key);
    if (entry) {
      entry.processes = entry.processes.filter((process) => process.alive);
      // Most recently used last: eviction takes the first.
      warm.delete(key);
      entry.timer.refresh();
      warm.set(key, entry);
      const free = entry.processes.find((process) => process.load === 0);
      const parallel = Math.max(1, Math.min(options.parallel ?? 1, MAX_PARALLEL));
      if (free) return free;
      if (entry.processes.length >= parallel) return entry.processes.reduce((a, b) => (b.load < a.load ? b : a));
    }
    if (!bwrap) throw new Error('bubblewrap (bwrap) is not installed');
    const process = new ToolchainProcess({
      bwrap,
      root: options.root,
      ...(options.modulesDir ? { modulesDir: options.modulesDir } : {}),
      maxMemoryBytes: Math.max(options.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES, needsTsx(options) ? TSX_MAX_MEMORY_BYTES : 0),
      maxAnswerBytes: options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES,
      tmpfsBytes: TMPFS_BYTES,
      maxProcesses: MAX_PROCESSES,
      startupMs: TOOLCHAIN_STARTUP_MS,
    });
    if (entry) {
      entry.processes.push(process);
      return process;
    }
    const timer = setTimeout(() => drop(key, warm.get(key)), TOOLCHAIN_IDLE_MS);
    timer.unref();
    entry = { processes: [process], timer };
    warm.set(key, entry);
    while (warm.size > MAX_WARM_TOOLCHAINS) {
      const [oldest, old] = warm.entries().next().value as [string, Warm];
      drop(oldest, old);
    }
    return process;
  };

  const info = async (): Promise<FormatterInfo> => {
    try {
      return { name: 'prettier', version: (lastVersion = await workerFor().version), via: 'sandbox' };
    } catch {
      return { name: 'prettier', version: lastVersion ?? 'unknown', via: 'sandbox' };
    }
  };

  return {
    name: 'prettier',
    via: 'sandbox',
    languages: PRETTIER_LANGUAGES,
    supportsRange: true,
    rangeLanguages: PRETTIER_RANGE_LANGUAGES,
    startupMs: TOOLCHAIN_STARTUP_MS,
    info,
    async format(request: AdapterRequest): Promise<AdapterResult> {
      let worker: ToolchainProcess;
      try {
        worker = workerFor();
      } catch (error) {
        return { kind: 'refused', reason: (error as Error).message };
      }
      try {
        const version = (lastVersion = await worker.version);
        const answer = await worker.format({ path: request.path, text: request.text, ...(request.range ? { range: { start: request.range.utf16Start, end: request.range.utf16End } } : {}) }, options.timeoutMs);
        const formatter = (ran?: { config: string | null; plugins: string[] }): FormatterInfo => ({ name: 'prettier', version, via: 'sandbox', ...(ran ? { projectCode: { config: ran.config, plugins: ran.plugins } } : {}) });
        learn(answer.plugins);
        switch (answer.kind) {
          case 'ok': {
            const lineEnding = answer.endOfLine ? END_OF_LINE[answer.endOfLine] : undefined;
            return { kind: 'ok', text: answer.text, formatter: formatter(answer), ...(lineEnding ? { lineEnding } : {}) };
          }
          case 'unsupported':
            return { kind: 'unsupported', reason: answer.reason };
          case 'error':
            return { kind: 'error', message: answer.message, formatter: formatter() };
        }
      } catch (thrown) {
        const failure = thrown as ToolchainFailure;
        if (failure?.kind === 'timeout') return { kind: 'timeout', ms: failure.ms };
        const message = failure?.kind === 'crashed' ? failure.message : String(thrown);
        return { kind: 'error', message: `${message}; the sandboxed worker was stopped and the next edit starts a fresh one`, formatter: { name: 'prettier', version: lastVersion ?? 'unknown', via: 'sandbox' } };
      }
    },
  };
}

function needsTsx(options: ProjectToolchainOptions): boolean {
  const strips = (process.features as { typescript?: unknown }).typescript;
  return !strips && (options.configFiles?.() ?? []).some((file) => /\.[cm]?ts$/.test(file));
}

function drop(key: string, entry: Warm | undefined): void {
  if (!entry) return;
  clearTimeout(entry.timer);
  for (const process of entry.processes) process.kill();
  if (warm.get(key) === entry) warm.delete(key);
}

/** The identity of a toolchain: where it is, and the stat of what it loads (a change starts a new worker). */
function toolchainKey(options: ProjectToolchainOptions, localPlugins: ReadonlySet<string>): string {
  const hash = createHash('sha256');
  hash.update(`${options.root}\0${options.modulesDir ?? ''}\0`);
  const files = [...INSTALL_MARKERS.map((file) => join(options.root, file)), ...[...(options.configFiles?.() ?? []), ...localPlugins].map((file) => join(options.root, file))];
  if (options.modulesDir) files.push(...INSTALL_MARKERS.map((file) => join(options.modulesDir!, file.replace(/^node_modules\//, ''))));
  for (const file of files) {
    try {
      const stat = statSync(file, { bigint: true });
      hash.update(`${file}\0${stat.ino}\0${stat.size}\0${stat.mtimeNs}\0${stat.ctimeNs}\n`);
    } catch {
      hash.update(`${file}\0-\n`);
    }
  }
  return hash.digest('hex');
}
