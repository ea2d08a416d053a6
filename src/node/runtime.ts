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
import { createHash } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { createEngine, DEFAULT_LIMITS, type Engine } from '../core/engine.js';
import { FormatboxError, isFormatboxError, messageOf } from '../core/errors.js';
import { LANGUAGE_BY_EXTENSION } from '../core/languages.js';
import type {
  ApplyPatchInput,
  EditInput,
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
import { CONFIG_FILE_NAMES, PRETTIER_CODE_CONFIG_NAMES } from '../config/index.js';
import { applyInput, applyParsedPatch, parsePatch, toolKind, wrapPatch, type ToolKind } from '../tools/index.js';
import type { PatchReceipt } from '../reconcile/index.js';
import { discoverProjectFiles } from './discover.js';
import { flushDirectorySyncs, readCurrentSync, readSnapshot, resolveInside, resolveRoot, sameBytes, sweepTemps, sweepTree, writeAtomic, type FileSnapshot, type ResolvedPath } from './fs.js';
import { PathLocks } from './lock.js';
import type { FormatCache } from './format-cache.js';
import { createWorkerPool, type PoolStats, type WorkerPool } from './worker-pool.js';
import { createSubprocessFormatters, type ApprovalRequest, type SubprocessFormatters, type SubprocessStatus } from './subprocess.js';
import { detectSandbox } from './sandbox/index.js';

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
  trust: Trust;
  languages: DoctorLanguage[];
  sandbox: { kind: string; available: boolean; detail: string };
  /** Subprocess formatters (sandboxed): where each binary is, or why it cannot run. */
  subprocess: SubprocessStatus[];
  ignored: IgnoredItem[];
  workers: PoolStats;
  limits: Limits;
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
  doctor(): Promise<DoctorReport>;
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
  const limits: Limits = {
    ...DEFAULT_LIMITS,
    ...definedOnly({
      timeoutMs: options.config?.timeoutMs ?? options.config?.format?.timeoutMs,
      maxInputBytes: options.config?.maxInputBytes,
      maxDiffChars: options.config?.maxDiffChars,
    }),
    ...definedOnly(options.limits ?? {}),
  };
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
  let closed = false;
  let discoveredIgnored: IgnoredItem[] = [];
  let discoveredFiles: ProjectFiles = {};
  let engineReady: Promise<Engine> | undefined;
  let subprocess: SubprocessFormatters | undefined;

  function engine(): Promise<Engine> {
    if (closed) return Promise.reject(new FormatboxError('INVALID_REQUEST', 'the runtime is closed'));
    engineReady ??= (async () => {
      // Temp files of a process that died mid-write (SIGKILL) are removed on the next start.
      for (const path of sweepTree(rootReal)) swept.add(dirname(path));
      const [discovered, adapters] = await Promise.all([discoverProjectFiles(rootReal), pool.adapters()]);
      discoveredIgnored = discovered.ignored;
      discoveredFiles = discovered.files;
      // Subprocess formatters run on this thread: the work happens in the sandboxed process.
      const sub = createSubprocessFormatters({
        sandbox: detectSandbox(),
        root: rootReal,
        trust,
        timeoutMs: limits.timeoutMs,
        ...(options.approve ? { approve: options.approve } : {}),
      });
      subprocess = sub;
      return createEngine({
        formatters: [...adapters, ...sub.adapters],
        ...(options.config ? { config: options.config } : {}),
        projectFiles: discovered.files,
        trust,
        limits,
        adapterFor: (choice: FormatterChoice, language: string): FormatterAdapter | undefined => sub.adapterFor(choice, language),
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

  /** After a project config file was written, formatter selection must see the new config. */
  async function refreshConfigIfNeeded(eng: Engine, paths: string[]): Promise<void> {
    if (!paths.some(isConfigFile)) return;
    const discovered = await discoverProjectFiles(rootReal);
    discoveredIgnored = discovered.ignored;
    discoveredFiles = discovered.files;
    eng.setProjectFiles(discovered.files);
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
  async function commitFinal(target: ResolvedPath, receipt: Receipt, written: string, writtenBytes: Uint8Array, keep: FileSnapshot | undefined, input: ToolInput, writtenFlushed?: Promise<void>): Promise<Receipt> {
    try {
      if (receipt.content !== written) {
        await writeAtomic(target.abs, encoder.encode(receipt.content), { expect: writtenBytes, shown: target.rel, ...(keep ? { keep } : {}) });
      } else if (!sameBytes(readCurrentSync(target.abs), writtenBytes)) {
        throw new FormatboxError('MODIFIED_SINCE_READ', `${target.rel} changed while it was being formatted`);
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
    const target = resolve(path);
    return locks.with([target.abs], async () => {
      const snapshot = await readSnapshot(target.abs, target.rel);
      if (!snapshot && tool !== 'write') {
        throw new FormatboxError('FILE_NOT_FOUND', `${target.rel} does not exist; create it with write`);
      }
      let prior = '';
      if (snapshot) {
        const decoded = decode(snapshot.bytes);
        if (decoded === undefined) {
          if (tool !== 'write') throw new FormatboxError('EDIT_NOT_APPLICABLE', `${target.rel} is not UTF-8 text; edit works on UTF-8 files only (use write to replace it)`);
          prior = new TextDecoder('latin1').decode(snapshot.bytes);
        } else {
          prior = decoded;
        }
      }
      const written = withPath(target.rel, () => applyInput(prior, input));
      await runBefore({ path: target.rel, absolutePath: target.abs, tool, prior: snapshot ? prior : null, written });
      const writtenBytes = encoder.encode(written);
      // W is usually replaced by F moments later: it is flushed in the background, and waited for
      // only when it stays (a kill leaves P, W or F either way; F is flushed before its rename).
      let flushedW: Promise<void> | undefined;
      const writeW = async () => {
        flushedW = (await writeAtomic(target.abs, writtenBytes, { expect: snapshot?.bytes ?? null, shown: target.rel, syncLater: true, ...(snapshot ? { keep: snapshot } : {}) })).flushed;
      };
      let pending: Promise<Receipt>;
      if (isConfigFile(target.realRel)) {
        await writeW();
        await refreshConfigIfNeeded(eng, [target.realRel]);
        pending = eng.afterEdit({ path: target.realRel, prior, input, written });
      } else {
        // The formatter works on W in memory: start it, and write W to disk while it runs.
        // W is on disk (or the edit refused) before F can be written.
        pending = eng.afterEdit({ path: target.realRel, prior, input, written });
        pending.catch(() => undefined);
        await writeW();
      }
      let receipt = await pending;
      receipt = await commitFinal(target, receipt, written, writtenBytes, snapshot ?? undefined, input, flushedW);
      receipt = await runAfter({ path: target.rel, absolutePath: target.abs, tool, receipt });
      return { ...receipt, ms: elapsed(started) };
    });
  }

  async function applyPatch(request: ApplyPatchInput): Promise<PatchReceipt> {
    const started = performance.now();
    const eng = await engine();
    const parsed = withPath(undefined, () => parsePatch(request.patch));
    const targets = new Map<string, ResolvedPath>();
    for (const file of parsed.files) {
      targets.set(file.path, resolve(file.path));
      if (file.kind === 'update' && file.moveTo) targets.set(file.moveTo, resolve(file.moveTo));
    }
    return locks.with([...targets.values()].map((t) => t.abs), async () => {
      const snapshots = new Map<string, FileSnapshot | null>();
      const priors = new Map<string, string>();
      for (const [path, target] of targets) {
        const snapshot = await readSnapshot(target.abs, target.rel);
        snapshots.set(path, snapshot);
        if (!snapshot) continue;
        const text = decode(snapshot.bytes);
        if (text === undefined) throw new FormatboxError('EDIT_NOT_APPLICABLE', `${target.rel} is not UTF-8 text; applyPatch works on UTF-8 files only`);
        priors.set(path, text);
      }
      // All or nothing: every file op is checked before anything is written.
      const files = withPath(undefined, () => applyParsedPatch(parsed, (path) => priors.get(path)));
      for (const file of files) {
        if (file.finalPath !== file.path && snapshots.get(file.finalPath)) {
          throw new FormatboxError('FILE_EXISTS', `${file.finalPath} already exists; cannot move ${file.path} onto it`);
        }
      }
      for (const file of files) {
        const target = targets.get(file.path)!;
        await runBefore({ path: target.rel, absolutePath: target.abs, tool: 'applyPatch', prior: file.prior, written: file.finalPath === file.path ? file.written : null });
        if (file.finalPath !== file.path) {
          const moved = targets.get(file.finalPath)!;
          await runBefore({ path: moved.rel, absolutePath: moved.abs, tool: 'applyPatch', prior: null, written: file.written });
        }
      }

      // Write W for every file; on a failure, put back what was already written.
      const undo: Array<() => unknown> = [];
      try {
        for (const file of files) {
          const source = targets.get(file.path)!;
          const snapshot = snapshots.get(file.path) ?? null;
          if (file.kind === 'delete' || file.finalPath !== file.path) {
            if (file.finalPath !== file.path) {
              const dest = targets.get(file.finalPath)!;
              const bytes = encoder.encode(file.written ?? '');
              await writeAtomic(dest.abs, bytes, { expect: null, shown: dest.rel, ...(snapshot ? { keep: snapshot } : {}) });
              undo.push(() => removeIfSame(dest.abs, bytes));
            }
            removeAtomic(source, snapshot!.bytes);
            undo.push(() => writeAtomic(source.abs, snapshot!.bytes, { expect: null, shown: source.rel, keep: snapshot! }));
            continue;
          }
          const bytes = encoder.encode(file.written ?? '');
          await writeAtomic(source.abs, bytes, { expect: snapshot?.bytes ?? null, shown: source.rel, ...(snapshot ? { keep: snapshot } : {}) });
          undo.push(() =>
            snapshot
              ? writeAtomic(source.abs, snapshot.bytes, { expect: bytes, shown: source.rel, keep: snapshot })
              : removeIfSame(source.abs, bytes),
          );
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
      for (const file of files) {
        priorMap[file.path] = file.prior;
        writtenMap[file.finalPath] = file.written;
      }
      const result = (await eng.afterEdit({ path: files[0]?.finalPath ?? '', prior: priorMap, input: request, written: writtenMap })) as PatchReceipt;
      const receipts: Receipt[] = [];
      const parts: string[] = [];
      let changed = false;
      for (const [index, file] of files.entries()) {
        const finalTarget = targets.get(file.finalPath)!;
        let receipt = result.receipts[index]!;
        if (file.written !== null) {
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
    const target = resolve(request.path);
    const tool = toolKind(request.input);
    if (tool === 'applyPatch') throw new FormatboxError('INVALID_REQUEST', 'afterWrite takes one file; for a patch, call it once per file with a write input');
    if (request.prior === undefined && tool !== 'write') {
      throw new FormatboxError('INVALID_REQUEST', `afterWrite needs prior (the file before the ${tool}) to reconcile the edit`);
    }
    return locks.with([target.abs], async () => {
      const snapshot = await readSnapshot(target.abs, target.rel);
      if (!snapshot) throw new FormatboxError('FILE_NOT_FOUND', `${target.rel} does not exist; afterWrite runs after the file was written`);
      const written = decode(snapshot.bytes);
      if (written === undefined) throw new FormatboxError('EDIT_NOT_APPLICABLE', `${target.rel} is not UTF-8 text`);
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
    const target = resolve(request.path);
    return locks.with([target.abs], async () => {
      const snapshot = await readSnapshot(target.abs, target.rel);
      if (!snapshot) throw new FormatboxError('FILE_NOT_FOUND', `${target.rel} does not exist`);
      const prior = decode(snapshot.bytes);
      if (prior === undefined) {
        const outcome = await eng.format({ path: target.realRel, bytes: snapshot.bytes });
        return { ...skippedReceipt(target.rel, outcome.content, outcome.reason ?? 'not UTF-8', outcome.line), ms: elapsed(started) };
      }
      const input: WriteInput = { content: prior };
      const cached = request.cache ? await cacheKeyOf(eng, request.cache, target.realRel) : undefined;
      if (cached && request.cache!.has(cached.key(snapshot.bytes))) {
        const line = `already formatted (cached; ${cached.label}): ${target.rel}`;
        // The bytes are valid UTF-8 (decoded above), so they are the encoding of `prior`: hash them as they are.
        const record = { sha256: createHash('sha256').update(snapshot.bytes).digest('hex'), bytes: snapshot.bytes.byteLength };
        return { path: target.rel, status: 'unchanged', formatter: cached.info, input, reconciled: true, content: prior, line, note: line, record, ms: elapsed(started) };
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

  async function doctor(): Promise<DoctorReport> {
    const eng = await engine();
    const languages: DoctorLanguage[] = [];
    const seen = new Set<string>();
    for (const [extension, language] of Object.entries(LANGUAGE_BY_EXTENSION)) {
      if (seen.has(language)) continue;
      seen.add(language);
      const path = `example.${extension}`;
      const selection = eng.explain(path);
      if (selection.kind === 'format') {
        const formatter = typeof selection.formatter === 'string' ? selection.formatter : JSON.stringify(selection.formatter);
        languages.push({ language, path, formatter, because: selection.because });
      } else {
        languages.push({ language, path, skipped: selection.detail ? `${selection.reason}: ${selection.detail}` : selection.reason });
      }
    }
    const sandbox = detectSandbox();
    return {
      root: rootReal,
      trust,
      languages,
      sandbox: { kind: sandbox.kind, available: sandbox.unavailable === undefined, detail: sandbox.unavailable ?? sandbox.describe() },
      subprocess: subprocess?.status() ?? [],
      ignored: dedupeIgnored([...discoveredIgnored, ...eng.ignored, ...unreadFiles(discoveredFiles, [...discoveredIgnored, ...eng.ignored], trust)]),
      workers: pool.stats(),
      limits: eng.limits,
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
        await flushDirectorySyncs();
      }
    },
  };
}

// ---------------------------------------------------------------------------

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

function decode(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The cache key of a file for the formatter and config it would get now; undefined when it would not be formatted. */
async function cacheKeyOf(eng: Engine, cache: FormatCache, path: string): Promise<{ key: (bytes: Uint8Array) => string; info: FormatterInfo; label: string } | undefined> {
  const found = await eng.formatterFor(path);
  if (!found || found.info.version === 'unknown') return undefined;
  const { selection, info } = found;
  const config = { formatter: selection.formatter, language: selection.language, settings: selection.settings, settingsDir: selection.settingsDir ?? null };
  return { key: (bytes) => cache.key(bytes, { path, formatter: info, config }), info, label: `${info.name} ${info.version}, ${info.via}` };
}

function sha256(text: string): { sha256: string; bytes: number } {
  const bytes = encoder.encode(text);
  return { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.byteLength };
}

function concurrentReceipt(path: string, formatted: Receipt, written: string, input: ToolInput): Receipt {
  const line = `not formatted (concurrent modification): ${path}`;
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

function removeAtomic(target: ResolvedPath, expect: Uint8Array): void {
  const current = readCurrentSync(target.abs);
  if (!sameBytes(current, expect)) throw new FormatboxError('MODIFIED_SINCE_READ', `${target.rel} was modified since it was read; read it again and redo the patch`);
  unlinkSync(target.abs);
}

function removeIfSame(abs: string, bytes: Uint8Array): void {
  if (sameBytes(readCurrentSync(abs), bytes)) unlinkSync(abs);
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

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export type { ProjectFiles, ToolInput };
