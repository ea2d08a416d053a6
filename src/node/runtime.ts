/**
 * `createRuntime`: formatbox on a real file system. It performs the agent's edit, writes W
 * atomically (compare-and-swap against P), formats W in a worker thread through the engine,
 * writes F only if the disk still holds W, and returns the receipt.
 *
 * Order around each write (as the harnesses in prior-art do): `before` observers (e.g. a
 * checkpoint of P) → write W → formatter → write F → `after` observers (e.g. LSP diagnostics on
 * the final bytes).
 */
import { trustedPrettierModuleUrl } from './trusted-prettier.js';
import { dirname, relative, resolve, sep } from 'node:path';
import { realpathSync, statSync } from 'node:fs';
import { createEngine, type Engine } from '../engine/engine.js';
import { resolveLimits } from '../config/limits.js';
import { FormatboxError, isFormatboxError, messageOf } from '../core/errors.js';
import { LANGUAGE_BY_EXTENSION } from '../core/languages.js';
import type {
  ApplyPatchInput,
  EditInput,
  FormatOutcome,
  FormatterAdapter,
  FormatterChoice,
  FormatterInfo,
  IgnoredItem,
  Limits,
  MultiEditInput,
  ProjectFiles,
  Receipt,
  SingleFileInput,
  ToolInput,
  UserConfig,
  WriteInput,
} from '../core/types.js';
import { CONFIG_FILE_NAMES, PRETTIER_CODE_CONFIG_NAMES, type ConfigBudgetReport } from '../config/index.js';
import { applyInput, applyParsedPatch, finalStates, parsePatch, toolKind, wrapPatch, type ToolKind } from '../tools/index.js';
import type { PatchReceipt } from '../reconcile/index.js';
import { discoverProjectFiles } from './discover.js';
import { pinFilesSignature, readPinFiles } from './pin-files.js';
import { createPinnedFormatters, type PinnedFormatters } from './pinned-formatters.js';
import type { VersionReport } from '../engine/engine.js';
import type { VersionPin } from '../config/pins.js';
import { findNativeBiome } from './biome-native.js';
import { createConfigWatch } from './config-watch.js';
import { flushDirectorySyncs, holdsSync, removeFileSync, stageWrite, writeAtomic, type StagedWrite } from './fs/staged-write.js';
import { readSnapshot, type FileSnapshot } from './fs/read.js';
import { isInside, resolveInside, resolveRoot, type ResolvedPath } from './fs/paths.js';
import { sweepTemps, sweepTree } from './fs/sweep.js';
import { nodeSha256 } from './hash.js';
import { PathLocks } from './lock.js';
import { doctorDprintPlugins, doctorWasmModules, localDprintRules, projectDprintAdapterFor, projectWasiAdapterFor, type DoctorWasmModule, type LocalDprintPlugin } from './project-wasm.js';
import { loadDprintConfigs } from '../config/dprint.js';
import { formatCacheKey, type FormatCache } from './format-cache.js';
import { swapped } from './pinned-dir.js';
import { shownPath } from '../core/shown.js';
import { createWorkerPool, type PoolStats, type WorkerPool } from './worker-pool.js';
import { createSubprocessFormatters, type ApprovalRequest, type SubprocessFormatters, type SubprocessStatus } from './subprocess.js';
import { detectSandbox } from './sandbox/index.js';
import type { Sandbox } from '../core/sandbox.js';

export type Trust = 'untrusted' | 'trusted';

/** What a `before` observer sees: the file as it is (P) and what is about to be written (W). */
export interface BeforeWriteEvent {
  /** Project-relative POSIX path. */
  path: string;
  absolutePath: string;
  tool: ToolKind | 'format';
  /** P; null when the file does not exist yet. */
  prior: string | null;
  /** W; null when the file is being deleted. */
  written: string | null;
}

/** What an `after` observer sees: the receipt, whose `content` is the final file. */
export interface AfterWriteEvent {
  path: string;
  absolutePath: string;
  tool: ToolKind | 'format' | 'afterWrite';
  receipt: Receipt;
}

/**
 * Runs around each write, in the order given: every `before` before the file is touched (a
 * throwing `before` cancels the edit, nothing is written), every `after` once the final bytes are
 * on disk (a throwing `after` is reported in the receipt's note; the write stands).
 */
export interface WriteObserver {
  name?: string;
  before?(event: BeforeWriteEvent): void | Promise<void>;
  after?(event: AfterWriteEvent): void | Promise<void>;
}

export interface RuntimeOptions {
  /** The project root. Every path must resolve inside it (symlinks followed). */
  root: string;
  /** Default 'untrusted': project config is read as data only and never loads code. */
  trust?: Trust;
  /** Trusted user config (see UserConfig). */
  config?: UserConfig;
  limits?: Partial<Limits>;
  observers?: WriteObserver[];
  /**
   * Asked once per command named by the repo's config (and config hash) before it first runs in
   * the sandbox. Without it, untrusted mode runs no repo-named command.
   */
  approve?: (request: ApprovalRequest) => boolean | Promise<boolean>;
  /** Formatter worker threads. Default 1. */
  workers?: number;
  /**
   * Check the project's config files on disk before each format (config-watch.ts). Default true: a
   * warm runtime never formats with stale config. A one-shot batch (`formatbox format`) turns it off
   * and formats every file with the config found at its start, as dprint and treefmt do; a config
   * file formatbox itself writes is still picked up.
   */
  watchConfig?: boolean;
  /** Process RSS growth during one formatter call that stops it. Default 1024 MB. */
  memoryBudgetMb?: number;
  /**
   * Extra adapter modules loaded in the formatter worker (each exports `createAdapters()`).
   * Trusted code from the embedding program; project config cannot reach this.
   */
  adapterModules?: Array<string | URL>;
  /** Load the built-in adapters. Default true. */
  builtins?: boolean;
  /**
   * A worker pool to share (e.g. several roots served by one process, or a benchmark measuring the
   * bare formatter call in the same worker). The runtime does not close a pool it was given.
   * When given, `workers`, `memoryBudgetMb`, `adapterModules` and `builtins` are the pool's business.
   */
  pool?: WorkerPool;
  /**
   * Formatters at the version the project pins, from the per-user verified store (pinned-formatters.ts).
   * Share one between runtimes (the daemon) so that every root uses one store and one worker per
   * version; the runtime does not close one it was given. Default: its own, closed with the runtime.
   * `false`: none (receipts then say which version the project pins, as offline).
   */
  pinned?: PinnedFormatters | false;
}

export interface EditRequest extends EditInput {
  path: string;
}
export interface MultiEditRequest extends MultiEditInput {
  path: string;
}
export interface WriteRequest extends WriteInput {
  path: string;
}
export interface AfterWriteRequest {
  path: string;
  input: SingleFileInput;
  /** P. Needed for edit/multiEdit; a write without it counts as creating the file. */
  prior?: string;
}

export interface FormatFileRequest {
  path: string;
  /** Report only: write nothing, run no observers. */
  check?: boolean;
  /**
   * Files known formatted (`formatbox format`'s cache): a file whose key is in it is `unchanged`
   * without a formatter call; one found formatted, or written formatted, is added.
   */
  cache?: FormatCache;
  /** Called with the sha256 of the bytes read and formatted (so a caller can tie a verdict to the bytes it hashed). */
  onRead?: (sha256: string) => void;
}

export interface DoctorLanguage {
  language: string;
  /** The representative path that was asked about. */
  path: string;
  formatter?: string;
  because?: string;
  skipped?: string;
}

export interface DoctorReport {
  root: string;
  /** The directory the answers are for, relative to `root` ('' for the root itself): `doctor({path})`. */
  dir: string;
  trust: Trust;
  languages: DoctorLanguage[];
  sandbox: { kind: string; available: boolean; detail: string };
  /** Subprocess formatters (sandboxed): where each binary is, or why it cannot run. */
  subprocess: SubprocessStatus[];
  ignored: IgnoredItem[];
  /** What the project's config used of its budget, and why loading stopped when it did (`exceeded`). */
  configBudget?: ConfigBudgetReport;
  workers: PoolStats;
  limits: Limits;
  /** Wasm modules the config names (`{wasi}`): path, sha256 and size, or why they would not run. */
  wasm: DoctorWasmModule[];
  /** Per formatter the project pins: the version pinned, where it was read, and the version that will run. */
  versions: VersionReport[];
}

export interface Runtime {
  readonly root: string;
  edit(request: EditRequest): Promise<Receipt>;
  multiEdit(request: MultiEditRequest): Promise<Receipt>;
  write(request: WriteRequest): Promise<Receipt>;
  /** The rewritten patch, and one receipt per file (`receipts`, in patch order). */
  applyPatch(request: ApplyPatchInput): Promise<PatchReceipt>;
  /** For harnesses that wrote the file themselves: formats what is on disk and reconciles. */
  afterWrite(request: AfterWriteRequest): Promise<Receipt>;
  /**
   * Formats the file as it is and writes F (compare-and-swap against the bytes read). The receipt's
   * input is a `write` of F. `check: true` writes nothing and runs no observers (`formatbox format --check`).
   */
  format(request: FormatFileRequest): Promise<Receipt>;
  /**
   * Formats `text` as if it were the file at `path` (which need not exist): the same selection and
   * config as for that path, nothing read from it or written (`formatbox format --stdin-filepath`).
   */
  formatText(request: { path: string; text: string }): Promise<Receipt>;
  /** `path`: a directory or file inside the root; the answers are for files there, as `format` would treat them. */
  doctor(options?: { path?: string }): Promise<DoctorReport>;
  close(): Promise<void>;
}

const CONFIG_NAMES = new Set(CONFIG_FILE_NAMES);
/** One lock table per process: calls on the same real path are serialised across runtimes too. */
const locks = new PathLocks();
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

export function createRuntime(options: RuntimeOptions): Runtime {
  const rootReal = resolveRoot(options.root);
  const trust: Trust = options.trust ?? 'untrusted';
  const limits: Limits = resolveLimits(options.config, options.limits);
  const observers = options.observers ?? [];
  const swept = new Set<string>();
  const ownPool = options.pool === undefined;
  const pool: WorkerPool = options.pool ?? createWorkerPool({
    timeoutMs: limits.timeoutMs,
    builtins: options.builtins ?? true,
    // Trusted mode (the user's explicit choice): the project's own Prettier config and plugins, in the worker.
    modules: [...(options.adapterModules ?? []), ...(trust === 'trusted' ? [trustedPrettierModuleUrl(rootReal)] : [])],
    size: options.workers ?? 1,
    ...(options.memoryBudgetMb !== undefined ? { memoryBudgetMb: options.memoryBudgetMb } : {}),
  });
  const ownPinned = options.pinned === undefined;
  const pinned: PinnedFormatters | undefined = options.pinned === false ? undefined : (options.pinned ?? createPinnedFormatters({ timeoutMs: limits.timeoutMs }));
  let closed = false;
  let discoveredIgnored: IgnoredItem[] = [];
  let discoveredFiles: ProjectFiles = {};
  let pinIgnored: IgnoredItem[] = [];
  let pinSignature = '';
  const configWatch = createConfigWatch(rootReal);
  let engineReady: Promise<Engine> | undefined;
  let subprocess: SubprocessFormatters | undefined;
  let localPlugins: LocalDprintPlugin[] = [];

  function engine(): Promise<Engine> {
    if (closed) return Promise.reject(new FormatboxError('INVALID_REQUEST', 'the runtime is closed'));
    engineReady ??= (async () => {
      // Temp files of a process that died mid-write (SIGKILL) are removed on the next start.
      sweepTree(rootReal, undefined, swept);
      const [discovered, adapters] = await Promise.all([discoverProjectFiles(rootReal, { refuseHardLinks: trust === 'untrusted' }), pool.adapters()]);
      const pinFiles = readPins();
      discoveredIgnored = discovered.ignored;
      discoveredFiles = discovered.files;
      configWatch.reset(discovered.files);
      // Subprocess formatters run on this thread: the work happens in the sandboxed process.
      const sub = createSubprocessFormatters({
        sandbox: detectSandbox(),
        root: rootReal,
        trust,
        timeoutMs: limits.timeoutMs,
        ...(options.approve ? { approve: options.approve } : {}),
      });
      subprocess = sub;
      const wasiFor = projectWasiAdapterFor({ pool, rootReal });
      const dprintFor = projectDprintAdapterFor({ pool, rootReal, ...(options.config?.wasmPins ? { pins: options.config.wasmPins } : {}) });
      // .wasm plugins a dprint.json lists inside the repo: asked (in the worker) which files they take.
      const dprintConfigs = loadDprintConfigs(discovered.files, []);
      const local = dprintConfigs.some((c) => c.localPlugins.length > 0)
        ? await localDprintRules(pool, rootReal, dprintConfigs, options.config?.wasmPins)
        : { rules: {}, plugins: [] };
      localPlugins = local.plugins;
      const config = Object.keys(local.rules).length > 0 ? { ...options.config, formatters: { ...(options.config?.formatters ?? {}), ...local.rules } } : options.config;
      return createEngine({
        formatters: [...adapters, ...sub.adapters],
        ...(config ? { config } : {}),
        projectFiles: discovered.files,
        unread: unreadByDiscovery(discovered.ignored),
        pinFiles,
        sha256: nodeSha256,
        trust,
        limits,
        ...(pinned ? { pinnedAdapter: (formatter: string, pin: VersionPin) => pinned.adapterFor(formatter, pin, { root: rootReal, trusted: trust === 'trusted' }) } : {}),
        adapterFor: (choice: FormatterChoice, language: string): FormatterAdapter | undefined => wasiFor(choice, language) ?? dprintFor(choice, language) ?? sub.adapterFor(choice, language),
      });
    })().catch((error: unknown) => {
      engineReady = undefined;
      throw error;
    });
    return engineReady;
  }

  function resolve(path: string): ResolvedPath {
    const target = resolveInside(rootReal, path);
    const dir = dirname(target.abs);
    if (!swept.has(dir)) {
      swept.add(dir);
      sweepTemps(dir);
    }
    return target;
  }

  /**
   * Takes the locks of `paths` and, when the call had to wait for them, resolves them again under
   * the locks: a directory swapped for a symlink while the call waited is caught here (and, after
   * this, by the pinned-directory file operations of fs.ts, which never follow a symlink). A call
   * that found its locks free goes on at once, with the paths it resolved microseconds before.
   */
  async function withResolved<T>(paths: readonly string[], run: (targets: ResolvedPath[]) => Promise<T>): Promise<T> {
    const before = paths.map(resolve);
    return locks.with(before.map((t) => t.abs), async (waited) => {
      if (!waited) return run(before);
      const now = paths.map((path) => resolveInside(rootReal, path));
      now.forEach((target, index) => {
        if (target.abs !== before[index]!.abs) throw swapped(target.shown, 'it resolved to another file while the call waited for its lock');
      });
      return run(now);
    });
  }

  /** Untrusted mode refuses files with several hard links (one name may be outside the project). */
  const readOptions = { refuseHardLinks: trust === 'untrusted' };

  /**
   * Before each format: when a project config file was written here, or one along the file's path
   * changed, appeared or disappeared on disk (git, an editor, `sed`), selection must see the new config.
   */
  async function refreshConfigIfNeeded(eng: Engine, paths: string[]): Promise<void> {
    // A lockfile or node_modules changed (an install): the pinned versions are read again.
    if (options.watchConfig !== false && pinsChanged()) return refreshConfig(eng);
    if (!paths.some(isConfigFile) && (options.watchConfig === false || !paths.some((path) => configWatch.changed(path)))) return;
    await refreshConfig(eng);
  }

  async function refreshConfig(eng: Engine): Promise<void> {
    const discovered = await discoverProjectFiles(rootReal, { refuseHardLinks: trust === 'untrusted' });
    discoveredIgnored = discovered.ignored;
    discoveredFiles = discovered.files;
    configWatch.reset(discovered.files);
    eng.setProjectFiles(discovered.files, { unread: unreadByDiscovery(discovered.ignored), pinFiles: readPins() });
  }

  function pinsChanged(): boolean {
    return pinFilesSignature(rootReal) !== pinSignature;
  }

  function readPins(): ProjectFiles {
    pinSignature = pinFilesSignature(rootReal);
    const read = readPinFiles(rootReal);
    pinIgnored = read.ignored;
    return read.files;
  }

  async function runBefore(event: BeforeWriteEvent): Promise<void> {
    for (const observer of observers) await observer.before?.(event);
  }

  async function runAfter(event: AfterWriteEvent): Promise<Receipt> {
    let receipt = event.receipt;
    for (const observer of observers) {
      if (!observer.after) continue;
      try {
        await observer.after({ ...event, receipt });
      } catch (error) {
        const name = observer.name ?? 'observer';
        receipt = { ...receipt, note: `${receipt.note}\n(${name} failed after the write: ${messageOf(error)})` };
      }
    }
    return receipt;
  }

  /**
   * W is on disk and the engine produced F (`receipt.content`). Writes F when the disk still holds
   * W; otherwise the formatted bytes are dropped and the receipt says `concurrent modification`.
   */
  async function commitFinal(target: ResolvedPath, receipt: Receipt, written: string, writtenBytes: Uint8Array, keep: FileSnapshot | undefined, input: ToolInput, writtenFlushed?: Promise<void>, staged?: FinalWrite): Promise<Receipt> {
    try {
      if (receipt.content !== written) {
        if (!(await staged?.commit(receipt.content, writtenBytes))) {
          await writeAtomic(target.abs, encoder.encode(receipt.content), { expect: writtenBytes, shown: target.shown, ...(keep ? { keep } : {}) });
        }
      } else if (!holdsSync(target.abs, target.shown, writtenBytes)) {
        throw new FormatboxError('MODIFIED_SINCE_READ', `${target.shown} changed while it was being formatted`);
      } else {
        await writtenFlushed; // W is the final file: durable before the receipt says so
      }
      return receipt;
    } catch (error) {
      if (!isFormatboxError(error) || error.code !== 'MODIFIED_SINCE_READ') throw error;
      return concurrentReceipt(target.rel, receipt, written, input);
    }
  }

  async function single(tool: 'edit' | 'multiEdit' | 'write', path: string, input: SingleFileInput): Promise<Receipt> {
    const started = performance.now();
    const eng = await engine();
    return withResolved([path], async ([target]) => {
      if (!target) throw new FormatboxError('INVALID_REQUEST', 'no path');
      // P's and W's fds stay open until the call ends, so the renames of W over P and of F over W
      // do not have to free the file they replace (that happens at the close, in the thread pool).
      let callEnded!: () => void;
      const ended = new Promise<void>((resolve) => (callEnded = resolve));
      try {
        const snapshot = await readSnapshot(target.abs, target.shown, { ...readOptions, holdOpenUntil: ended });
        if (!snapshot && tool !== 'write') {
          throw new FormatboxError('FILE_NOT_FOUND', `${target.shown} does not exist; create it with write`);
        }
        const prior = snapshot ? priorText(snapshot, tool, target.shown) : '';
        const written = withPath(target.shown, () => applyInput(prior, input));
        await runBefore({ path: target.rel, absolutePath: target.abs, tool, prior: snapshot ? prior : null, written });
        const receipt = await writeAndFormat({ eng, target, snapshot: snapshot ?? undefined, prior, input, written, ended });
        return await finish(target, tool, receipt, started);
      } finally {
        callEnded();
      }
    });
  }

  /**
   * W written (CAS against P), formatted, F written (CAS against W). The formatter works on W in
   * memory: its request goes to the worker first; while it runs, W is written (W is on disk, or the
   * edit refused, before F can be written), F's temp file made and the config files checked; F's
   * bytes are written and flushed while the engine builds the receipt.
   */
  async function writeAndFormat(edit: { eng: Engine; target: ResolvedPath; snapshot: FileSnapshot | undefined; prior: string; input: SingleFileInput; written: string; ended: Promise<void> }): Promise<Receipt> {
    const { eng, target, snapshot, prior, input, written } = edit;
    let writtenBytes!: Uint8Array; // encoded while the formatter runs
    // W is usually replaced by F moments later: it is flushed in the background, and waited for
    // only when it stays (a kill leaves P, W or F either way; F is flushed before its rename).
    let flushedW: Promise<void> | undefined;
    const writeW = async () => {
      writtenBytes = encoder.encode(written);
      flushedW = (await writeAtomic(target.abs, writtenBytes, { expect: snapshot?.bytes ?? null, shown: target.shown, syncLater: true, holdOpenUntil: edit.ended, ...(snapshot ? { keep: snapshot } : {}) })).flushed;
    };
    const request = { path: target.realRel, prior, input, written };
    if (isConfigFile(target.realRel)) {
      await writeW();
      await refreshConfigIfNeeded(eng, [target.realRel]);
      return commitFinal(target, await eng.afterEdit(request), written, writtenBytes, snapshot, input, flushedW);
    }
    const final = new FinalWrite(target, snapshot, written);
    try {
      let pending = eng.afterEdit({ ...request, onFormatted: (outcome) => final.formatted(outcome) });
      pending.catch(() => undefined);
      await nextEventLoopTurn();
      // F's temp file is made first (W's own write makes a new file's directories): its creation goes
      // into the journal commit W's flush starts, instead of waiting behind it (measured on ext4 under
      // load: 0.1-0.3 ms less per edit), and the formatter's answer does not find this thread in it.
      if (snapshot) final.stage();
      await writeW();
      if (!snapshot) final.stage();
      if (options.watchConfig !== false && (configWatch.changed(target.realRel) || pinsChanged())) {
        // That call used the config (or the pinned versions) as it was: format again with what is now on disk.
        await pending.catch(() => undefined);
        await refreshConfig(eng);
        pending = eng.afterEdit(request);
      }
      return await commitFinal(target, await pending, written, writtenBytes, snapshot, input, flushedW, final);
    } finally {
      final.release();
    }
  }

  async function finish(target: ResolvedPath, tool: ToolKind, receipt: Receipt, started: number): Promise<Receipt> {
    receipt = await runAfter({ path: target.rel, absolutePath: target.abs, tool, receipt });
    return { ...receipt, ms: elapsed(started) };
  }

  async function applyPatch(request: ApplyPatchInput): Promise<PatchReceipt> {
    const started = performance.now();
    const eng = await engine();
    const parsed = withPath(undefined, () => parsePatch(request.patch));
    const named: string[] = [];
    for (const file of parsed.files) {
      named.push(file.path);
      if (file.kind === 'update' && file.moveTo) named.push(file.moveTo);
    }
    return withResolved(named, async (resolved) => {
      const targets = new Map<string, ResolvedPath>(named.map((path, index) => [path, resolved[index]!]));
      const snapshots = new Map<string, FileSnapshot | null>();
      const priors = new Map<string, string>();
      for (const [path, target] of targets) {
        const snapshot = await readSnapshot(target.abs, target.shown, readOptions);
        snapshots.set(path, snapshot);
        if (!snapshot) continue;
        const text = decode(snapshot.bytes);
        if (text === undefined) throw new FormatboxError('EDIT_NOT_APPLICABLE', `${target.shown} is not UTF-8 text; applyPatch works on UTF-8 files only`);
        priors.set(path, text);
      }
      // All or nothing: every file op is checked before anything is written.
      const files = withPath(undefined, () => applyParsedPatch(parsed, (path) => priors.get(path)));
      for (const file of files) {
        // Delete, Move (both ends) and replacing a file act on the file itself, never through a link.
        if (file.kind === 'delete' || file.finalPath !== file.path) refuseLink(targets.get(file.path)!, file.kind === 'delete' ? 'delete' : 'move');
        if (file.finalPath !== file.path || file.replaced) refuseLink(targets.get(file.finalPath)!, 'replace');
      }
      for (const file of files) {
        const target = targets.get(file.path)!;
        await runBefore({ path: target.rel, absolutePath: target.abs, tool: 'applyPatch', prior: file.prior, written: file.finalPath === file.path ? file.written : null });
        if (file.finalPath !== file.path) {
          const moved = targets.get(file.finalPath)!;
          await runBefore({ path: moved.rel, absolutePath: moved.abs, tool: 'applyPatch', prior: null, written: file.written });
        }
      }

      // Write each path's final state (a path may be named twice); on a failure, put back what was already written.
      const final = finalStates(files);
      const undo: Array<() => unknown> = [];
      try {
        for (const [path, content] of final) {
          if (content === null) continue;
          const target = targets.get(path)!;
          const snapshot = snapshots.get(path) ?? null;
          const movedFrom = files.find((f) => f.finalPath === path && f.path !== path);
          const keep = snapshot ?? (movedFrom ? snapshots.get(movedFrom.path) ?? null : null);
          const bytes = encoder.encode(content);
          await writeAtomic(target.abs, bytes, { expect: snapshot?.bytes ?? null, shown: target.shown, ...(keep ? { keep } : {}) });
          undo.push(() =>
            snapshot
              ? writeAtomic(target.abs, snapshot.bytes, { expect: bytes, shown: target.shown, keep: snapshot })
              : removeIfSame(target.abs, bytes),
          );
        }
        for (const [path, content] of final) {
          const snapshot = snapshots.get(path) ?? null;
          if (content !== null || !snapshot) continue;
          const target = targets.get(path)!;
          removeAtomic(target, snapshot.bytes);
          undo.push(() => writeAtomic(target.abs, snapshot.bytes, { expect: null, shown: target.shown, keep: snapshot }));
        }
      } catch (error) {
        for (const step of undo.reverse()) {
          try {
            await step();
          } catch {
            // Someone else changed the file meanwhile; their bytes stand.
          }
        }
        throw error;
      }

      await refreshConfigIfNeeded(eng, files.map((f) => targets.get(f.finalPath)!.realRel));
      const priorMap: Record<string, string | null> = {};
      const writtenMap: Record<string, string | null> = {};
      // The disk before the patch (the engine runs the operations again, in order), and each path's final W.
      for (const path of targets.keys()) priorMap[path] = priors.get(path) ?? null;
      for (const [path, content] of final) writtenMap[path] = content;
      const result = (await eng.afterEdit({ path: files[0]?.finalPath ?? '', prior: priorMap, input: request, written: writtenMap })) as PatchReceipt;
      const receipts: Receipt[] = [];
      const parts: string[] = [];
      let changed = false;
      for (const [index, file] of files.entries()) {
        const finalTarget = targets.get(file.finalPath)!;
        let receipt = result.receipts[index]!;
        if (file.written !== null && !file.superseded) {
          const before = receipt;
          receipt = await commitFinal(finalTarget, receipt, file.written, encoder.encode(file.written), snapshots.get(file.path) ?? undefined, { patch: wrapPatch(parsed.format, [file.patch.source ?? '']) });
          if (receipt !== before) changed = true;
        }
        receipt = await runAfter({ path: finalTarget.rel, absolutePath: finalTarget.abs, tool: 'applyPatch', receipt });
        receipts.push(receipt);
        parts.push(unwrapPatch((receipt.input as ApplyPatchInput).patch, parsed.format));
      }
      const out: PatchReceipt = { ...result, receipts, ms: elapsed(started) };
      if (changed) {
        // A file changed on disk while it was formatted: its part of the patch stays as the agent wrote it.
        out.input = { patch: wrapPatch(parsed.format, parts) };
        out.note = receipts.map((r) => r.note).filter((n) => n !== '').join('\n');
      }
      return out;
    });
  }

  async function afterWrite(request: AfterWriteRequest): Promise<Receipt> {
    const started = performance.now();
    const eng = await engine();
    const tool = toolKind(request.input);
    if (tool === 'applyPatch') throw new FormatboxError('INVALID_REQUEST', 'afterWrite takes one file; for a patch, call it once per file with a write input');
    if (request.prior === undefined && tool !== 'write') {
      throw new FormatboxError('INVALID_REQUEST', `afterWrite needs prior (the file before the ${tool}) to reconcile the edit`);
    }
    return withResolved([request.path], async ([target]) => {
      if (!target) throw new FormatboxError('INVALID_REQUEST', 'no path');
      const snapshot = await readSnapshot(target.abs, target.shown, readOptions);
      if (!snapshot) throw new FormatboxError('FILE_NOT_FOUND', `${target.shown} does not exist; afterWrite runs after the file was written`);
      const written = decode(snapshot.bytes);
      if (written === undefined) throw new FormatboxError('EDIT_NOT_APPLICABLE', `${target.shown} is not UTF-8 text`);
      await refreshConfigIfNeeded(eng, [target.realRel]);
      let receipt = await eng.afterEdit({ path: target.realRel, prior: request.prior ?? '', input: request.input, written });
      receipt = await commitFinal(target, receipt, written, snapshot.bytes, snapshot, request.input);
      receipt = await runAfter({ path: target.rel, absolutePath: target.abs, tool: 'afterWrite', receipt });
      return { ...receipt, ms: elapsed(started) };
    });
  }

  async function format(request: FormatFileRequest): Promise<Receipt> {
    const started = performance.now();
    const eng = await engine();
    return withResolved([request.path], async ([target]) => {
      if (!target) throw new FormatboxError('INVALID_REQUEST', 'no path');
      const snapshot = await readSnapshot(target.abs, target.shown, readOptions);
      if (!snapshot) throw new FormatboxError('FILE_NOT_FOUND', `${target.shown} does not exist`);
      request.onRead?.(nodeSha256(snapshot.bytes));
      const prior = decode(snapshot.bytes);
      if (prior === undefined) {
        const outcome = await eng.format({ path: target.realRel, bytes: snapshot.bytes });
        return { ...skippedReceipt(target.rel, outcome.content, outcome.reason ?? 'not UTF-8', outcome.line), ms: elapsed(started) };
      }
      const input: WriteInput = { content: prior };
      await refreshConfigIfNeeded(eng, [target.realRel]);
      // Keyed after the config refresh: the key covers the config this file gets now.
      const cached = request.cache ? await cacheKeyOf(eng, request.cache, target.realRel) : undefined;
      if (cached && request.cache!.has(cached.key(snapshot.bytes))) {
        const line = `already formatted (cached; ${cached.label}): ${target.shown}`;
        // The bytes are valid UTF-8 (decoded above), so they are the encoding of `prior`: hash them as they are.
        const record = { sha256: nodeSha256(snapshot.bytes), bytes: snapshot.bytes.byteLength };
        return { path: target.rel, status: 'unchanged', formatter: cached.info, input, reconciled: true, content: prior, line, note: line, record, ...(cached.ignored ? { ignored: cached.ignored } : {}), ms: elapsed(started) };
      }
      let receipt: Receipt;
      if (request.check) {
        receipt = { ...(await eng.afterEdit({ path: target.realRel, prior, input, written: prior })), ms: elapsed(started) };
      } else {
        await runBefore({ path: target.rel, absolutePath: target.abs, tool: 'format', prior, written: prior });
        receipt = await eng.afterEdit({ path: target.realRel, prior, input, written: prior });
        receipt = await commitFinal(target, receipt, prior, snapshot.bytes, snapshot, input);
        receipt = await runAfter({ path: target.rel, absolutePath: target.abs, tool: 'format', receipt });
        receipt = { ...receipt, ms: elapsed(started) };
      }
      // Only a file the formatter left as it was is known formatted; a file written formatted is
      // confirmed by the next run (so a formatter that is not idempotent is never cached as done).
      if (cached && receipt.status === 'unchanged') request.cache!.add(cached.key(snapshot.bytes));
      return receipt;
    });
  }

  async function formatText(request: { path: string; text: string }): Promise<Receipt> {
    const started = performance.now();
    const eng = await engine();
    const target = resolveInside(rootReal, request.path);
    const input: WriteInput = { content: request.text };
    await refreshConfigIfNeeded(eng, [target.realRel]);
    return { ...(await eng.afterEdit({ path: target.realRel, prior: request.text, input, written: request.text })), ms: elapsed(started) };
  }

  async function doctor(request: { path?: string } = {}): Promise<DoctorReport> {
    const dir = request.path === undefined ? '' : doctorDir(rootReal, request.path);
    const eng = await engine();
    // Config changed on disk along the way to the directory is seen, as before a format.
    await refreshConfigIfNeeded(eng, [`${dir === '' ? '' : `${dir}/`}example`]);
    const languages: DoctorLanguage[] = [];
    const seen = new Set<string>();
    for (const [extension, language] of Object.entries(LANGUAGE_BY_EXTENSION)) {
      if (seen.has(language)) continue;
      seen.add(language);
      const path = `${dir === '' ? '' : `${dir}/`}example.${extension}`;
      const selection = eng.explain(path);
      if (selection.kind === 'format') {
        const formatter = typeof selection.formatter === 'string' ? selection.formatter : JSON.stringify(selection.formatter);
        languages.push({ language, path, formatter, because: selection.because });
      } else if (selection.kind === 'invalid-config') {
        languages.push({ language, path, formatter: selection.formatter, because: selection.because, skipped: `${selection.error.refusal ? 'refused' : 'invalid project config'}: ${selection.error.file}: ${selection.error.message}` });
      } else {
        languages.push({ language, path, skipped: selection.detail ? `${selection.reason}: ${selection.detail}` : selection.reason });
      }
    }
    const sandbox = detectSandbox();
    return {
      root: rootReal,
      dir,
      trust,
      languages,
      sandbox: { kind: sandbox.kind, available: sandbox.unavailable === undefined, detail: sandbox.unavailable ?? sandbox.describe() },
      subprocess: [...(subprocess?.status() ?? []), nativeBiomeStatus(sandbox)],
      ignored: dedupeIgnored([...discoveredIgnored, ...pinIgnored, ...eng.ignored, ...unreadFiles(discoveredFiles, [...discoveredIgnored, ...eng.ignored], trust)]),
      ...(eng.configBudget ? { configBudget: eng.configBudget } : {}),
      workers: pool.stats(),
      limits: eng.limits,
      wasm: [...doctorWasmModules(rootReal, options.config?.formatters as Record<string, unknown> | undefined), ...doctorDprintPlugins(localPlugins)],
      versions: await eng.versions(),
    };
  }

  return {
    root: rootReal,
    edit: ({ path, ...input }) => single('edit', path, input),
    multiEdit: ({ path, edits }) => single('multiEdit', path, { edits }),
    write: ({ path, content }) => single('write', path, { content }),
    applyPatch,
    afterWrite,
    format,
    formatText,
    doctor,
    async close() {
      if (closed) return;
      closed = true;
      const ready = engineReady;
      engineReady = undefined;
      try {
        await (await ready?.catch(() => undefined))?.dispose();
      } finally {
        if (ownPool) await pool.close();
        if (ownPinned) await pinned?.close();
        await flushDirectorySyncs();
      }
    },
  };
}

// ---------------------------------------------------------------------------

/**
 * F's write, started before the receipt is ready: its temp file is made while the formatter runs
 * (`stage`, before W is written, or after it for a new file), its bytes written and their flush
 * started as soon as the formatter's output is known (`formatted`), and the flush finished, the
 * compare-and-swap and the rename done once the receipt is built (`commit`).
 */
class FinalWrite {
  private staged: StagedWrite | undefined;
  private filled: { content: string; done: Promise<void> } | undefined;
  private pendingContent: string | undefined;
  /** The formatter's outcome is in (a file with no formatter gets it at once: nothing to stage). */
  private settled = false;

  constructor(
    private readonly target: ResolvedPath,
    private readonly keep: FileSnapshot | undefined,
    private readonly written: string,
  ) {}

  /** Make F's temp file (while the formatter runs). A failure here is left to the ordinary write of F. */
  stage(): void {
    if (this.settled && this.pendingContent === undefined) return;
    try {
      // The flush starts when the bytes are written and is finished on this thread at the rename (see StageOptions).
      this.staged = stageWrite(this.target.abs, { shown: this.target.shown, flushAtCommit: true, ...(this.keep ? { keep: this.keep } : {}) });
    } catch {
      return;
    }
    if (this.pendingContent !== undefined) this.fill(this.pendingContent);
  }

  formatted(outcome: FormatOutcome): void {
    this.settled = true;
    if (outcome.status !== 'formatted' || outcome.content === this.written || this.filled) return;
    if (this.staged) this.fill(outcome.content);
    else this.pendingContent = outcome.content;
  }

  /** True when F (`content`) was written through the staged file; false when it was not staged. */
  async commit(content: string, expect: Uint8Array): Promise<boolean> {
    if (!this.staged || this.filled?.content !== content) return false;
    await this.filled.done;
    // One turn of the event loop first: a flush the thread pool has finished is then known, and
    // the commit does not flush again (see StageOptions.flushAtCommit).
    await new Promise((resolve) => setImmediate(resolve));
    this.staged.commit(expect);
    return true;
  }

  release(): void {
    this.staged?.release();
  }

  private fill(content: string): void {
    const done = this.staged!.fill(content);
    done.catch(() => undefined); // awaited by commit
    this.filled = { content, done };
  }
}

/** formatbox's native Biome build, which `formatbox format` runs once per run in the sandbox (src/node/project/native-biome-pass.ts). */
function nativeBiomeStatus(sandbox: Sandbox): SubprocessStatus {
  const biome = findNativeBiome();
  const name = 'biome (native, for `formatbox format`)';
  if ('unavailable' in biome) return { name, available: false, detail: biome.unavailable };
  if (sandbox.unavailable) return { name, available: false, detail: `${biome.binary} ${biome.version}; no sandbox: ${sandbox.unavailable}` };
  return { name, available: true, detail: `${biome.binary} ${biome.version}` };
}

/** Settles on the next turn of the event loop (setImmediate: after I/O callbacks, not only microtasks), so the formatter request started just before has been posted to its worker. */
function nextEventLoopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function isConfigFile(path: string): boolean {
  return CONFIG_NAMES.has(path.slice(path.lastIndexOf('/') + 1));
}

/** Tool errors name the file, so the agent knows which call to fix. */
function withPath<T>(path: string | undefined, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (!isFormatboxError(error)) throw new FormatboxError('EDIT_NOT_APPLICABLE', messageOf(error));
    if (path === undefined || error.message.includes(path)) throw error;
    throw new FormatboxError(error.code, `${path}: ${error.message}`, error.details);
  }
}

/** P as text: UTF-8, or (for a `write` replacing a file that is not UTF-8) its bytes as latin1. */
function priorText(snapshot: FileSnapshot, tool: 'edit' | 'multiEdit' | 'write', shown: string): string {
  const decoded = decode(snapshot.bytes);
  if (decoded !== undefined) return decoded;
  if (tool !== 'write') throw new FormatboxError('EDIT_NOT_APPLICABLE', `${shown} is not UTF-8 text; edit works on UTF-8 files only (use write to replace it)`);
  return new TextDecoder('latin1').decode(snapshot.bytes);
}

function decode(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The cache key of a file for the formatter and config it would get now (format-cache.ts); undefined when it would not be formatted. */
async function cacheKeyOf(eng: Engine, cache: FormatCache, path: string): Promise<CachedIdentity | undefined> {
  const found = await eng.formatterFor(path);
  if (!found || found.info.version === 'unknown') return undefined;
  const { selection, info } = found;
  const ignored = selection.ignored.length > 0 ? selection.ignored : undefined;
  return { key: (bytes) => formatCacheKey(cache, bytes, path, { formatter: info, selection }), info, label: `${info.name} ${info.version}, ${info.via}`, ...(ignored ? { ignored } : {}) };
}

interface CachedIdentity {
  key: (bytes: Uint8Array) => string;
  info: FormatterInfo;
  label: string;
  /** Config items ignored for this file: a cached receipt names them as a formatted one does. */
  ignored?: IgnoredItem[];
}

function sha256(text: string): { sha256: string; bytes: number } {
  const bytes = encoder.encode(text);
  return { sha256: nodeSha256(bytes), bytes: bytes.byteLength };
}

function concurrentReceipt(path: string, formatted: Receipt, written: string, input: ToolInput): Receipt {
  const line = `not formatted (concurrent modification): ${shownPath(path)}`;
  return {
    path,
    status: 'skipped',
    ...(formatted.formatter ? { formatter: formatted.formatter } : {}),
    input,
    reconciled: true,
    reason: 'concurrent modification',
    content: written,
    line,
    note: `${line}\nThe file changed on disk while it was being formatted; the formatted bytes were not written. Read the file again before the next edit.`,
    record: sha256(written),
    ms: formatted.ms,
  };
}

function skippedReceipt(path: string, content: string, reason: string, line: string): Receipt {
  return { path, status: 'skipped', input: { content }, reconciled: true, reason, content, line, note: line, record: sha256(content), ms: 0 };
}

/** The file part of a one-file patch made by `wrapPatch`. */
function unwrapPatch(patch: string, format: 'codex' | 'unified'): string {
  if (format !== 'codex') return patch;
  const head = '*** Begin Patch\n';
  const tail = '*** End Patch\n';
  return patch.startsWith(head) && patch.endsWith(tail) ? patch.slice(head.length, patch.length - tail.length) : patch;
}

/**
 * Delete, Move (both ends) and replacing an existing file act on the named file itself. A path that
 * is a symlink, or lies under one, is refused: the link's target is never deleted, moved or replaced.
 */
function refuseLink(target: ResolvedPath, action: 'delete' | 'move' | 'replace'): void {
  if (target.realRel === target.rel) return;
  const what = action === 'delete' ? 'delete the link itself with your shell' : 'name the real path';
  throw new FormatboxError('PATH_REFUSED', `${target.shown} is a symlink or lies under one (it leads to ${shownPath(target.realRel)}); applyPatch does not ${action} through a link, so its target is never touched: ${what}`);
}

function removeAtomic(target: ResolvedPath, expect: Uint8Array): void {
  if (!removeFileSync(target.abs, target.shown, expect)) throw new FormatboxError('MODIFIED_SINCE_READ', `${target.shown} was modified since it was read; read it again and redo the patch`);
}

function removeIfSame(abs: string, bytes: Uint8Array): void {
  removeFileSync(abs, abs, bytes);
}

/** Config files found but never read (code configs such as prettier.config.js), unless already reported. */
function unreadFiles(files: ProjectFiles, reported: IgnoredItem[], trust: Trust): IgnoredItem[] {
  const named = new Set(reported.map((item) => item.file));
  return Object.entries(files)
    .filter(([file, content]) => content === null && !named.has(file))
    // In trusted mode Prettier's own loader runs its code configs (trusted-prettier.ts); other code configs stay unread.
    .filter(([file]) => !(trust === 'trusted' && PRETTIER_CODE_CONFIG_NAMES.includes(file.slice(file.lastIndexOf('/') + 1))))
    .map(([file]) => ({ file, item: file, reason: trust === 'untrusted' ? 'a config file that is code: never loaded in untrusted mode' : 'a config file that is code: not read as data' }));
}

function dedupeIgnored(items: IgnoredItem[]): IgnoredItem[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = `${item.file}\0${item.item}\0${item.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}

export type { ProjectFiles, ToolInput };

/** Of discovery's ignored items, those that mean config may be missing: a stopped search, a config file not read. */
function unreadByDiscovery(ignored: IgnoredItem[]): IgnoredItem[] {
  return ignored.filter((item) => item.item === 'config search' || item.reason.startsWith('not read') || item.reason.startsWith('larger than') || item.reason.startsWith('could not be opened') || item.reason === 'not a regular file');
}

/**
 * The directory `path` names (a file's own directory), relative to the root, as the project-relative
 * POSIX path the engine's config lookup uses. Refused when it leaves the root, also through a symlink.
 */
function doctorDir(rootReal: string, path: string): string {
  if (typeof path !== 'string' || path.includes('\0')) throw new FormatboxError('PATH_REFUSED', 'doctor: the path is not a string');
  const lexical = resolve(rootReal, path);
  let real = lexical;
  try {
    real = realpathSync(lexical);
    if (!statSync(real).isDirectory()) real = dirname(real);
  } catch {
    // A path that does not exist yet: the answers are for its lexical directory.
    real = /[\\/]$/.test(path) ? lexical : dirname(lexical);
  }
  if (real !== rootReal && !isInside(real, rootReal)) throw new FormatboxError('PATH_REFUSED', `doctor: ${shownPath(path)} is outside the project root`);
  return relative(rootReal, real).split(sep).join('/');
}
