/**
 * The one state object of a runtime: what `createRuntime` resolved from its options (root, trust,
 * limits, pool, pinned store) and what changes while it runs (the engine once started, the last
 * discovery, the pin files not read, the subprocess formatters). Every piece of the runtime
 * (bootstrap, config-refresh, single-file, apply-patch, format-file, doctor) takes it as its first argument.
 */
import type { Engine } from '../../engine/engine.js';
import { resolveLimits } from '../../config/limits.js';
import type { IgnoredItem, Limits, ProjectFiles } from '../../core/types.js';
import { createConfigWatch, type ConfigWatch } from '../config-watch.js';
import { flushDirectorySyncs } from '../fs/staged-write.js';
import { resolveRoot } from '../fs/paths.js';
import { createPinnedFormatters, type PinnedFormatters } from '../pinned-formatters.js';
import type { LocalDprintPlugin } from '../project-wasm.js';
import type { SubprocessFormatters } from '../subprocess.js';
import { trustedPrettierModuleUrl } from '../trusted-prettier.js';
import { createWorkerPool, type WorkerPool } from '../worker-pool.js';
import type { RuntimeOptions, Trust, WriteObserver } from './types.js';

export interface RuntimeState {
  readonly options: RuntimeOptions;
  readonly rootReal: string;
  readonly trust: Trust;
  readonly limits: Limits;
  readonly observers: readonly WriteObserver[];
  readonly pool: WorkerPool;
  /** The pool and the pinned store are closed with the runtime only when it made them. */
  readonly ownPool: boolean;
  readonly pinned: PinnedFormatters | undefined;
  readonly ownPinned: boolean;
  /** `options.watchConfig`: check config and pin files on disk before each format. */
  readonly watchConfig: boolean;
  readonly configWatch: ConfigWatch;
  /** Untrusted mode refuses files with several hard links (one name may be outside the project). */
  readonly readOptions: { refuseHardLinks: boolean };
  /** Directories whose leftover temp files were swept (once per directory per runtime). */
  readonly swept: Set<string>;
  closed: boolean;
  /** The engine, from the first call on (bootstrap.ts); undefined again after a failed start. */
  engineReady: Promise<Engine> | undefined;
  /** The last discovery's config files and what it left out (doctor lists them). */
  discovered: { files: ProjectFiles; ignored: IgnoredItem[] };
  /** Pin files present but not read, from the last read of them. */
  pinIgnored: IgnoredItem[];
  subprocess: SubprocessFormatters | undefined;
  /** The .wasm dprint plugins inside the repo that the config lists (doctor lists them). */
  localPlugins: LocalDprintPlugin[];
}

export function createRuntimeState(options: RuntimeOptions): RuntimeState {
  const rootReal = resolveRoot(options.root);
  const trust: Trust = options.trust ?? 'untrusted';
  const limits = resolveLimits(options.config, options.limits);
  const pool = options.pool ?? createWorkerPool({
    timeoutMs: limits.timeoutMs,
    builtins: options.builtins ?? true,
    // Trusted mode (the user's explicit choice): the project's own Prettier config and plugins, in the worker.
    modules: [...(options.adapterModules ?? []), ...(trust === 'trusted' ? [trustedPrettierModuleUrl(rootReal)] : [])],
    size: options.workers ?? 1,
    ...(options.memoryBudgetMb !== undefined ? { memoryBudgetMb: options.memoryBudgetMb } : {}),
  });
  return {
    options,
    rootReal,
    trust,
    limits,
    observers: options.observers ?? [],
    pool,
    ownPool: options.pool === undefined,
    pinned: options.pinned === false ? undefined : (options.pinned ?? createPinnedFormatters({ timeoutMs: limits.timeoutMs })),
    ownPinned: options.pinned === undefined,
    watchConfig: options.watchConfig !== false,
    configWatch: createConfigWatch(rootReal),
    readOptions: { refuseHardLinks: trust === 'untrusted' },
    swept: new Set(),
    closed: false,
    engineReady: undefined,
    discovered: { files: {}, ignored: [] },
    pinIgnored: [],
    subprocess: undefined,
    localPlugins: [],
  };
}

export async function closeRuntime(state: RuntimeState): Promise<void> {
  if (state.closed) return;
  state.closed = true;
  const ready = state.engineReady;
  state.engineReady = undefined;
  try {
    await (await ready?.catch(() => undefined))?.dispose();
  } finally {
    if (state.ownPool) await state.pool.close();
    if (state.ownPinned) await state.pinned?.close();
    await flushDirectorySyncs();
  }
}
