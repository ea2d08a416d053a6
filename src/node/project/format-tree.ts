/**
 * `formatTree`: formats (or checks) a whole project tree and yields one outcome per file, in path
 * order, whatever order the files finish in. `formatbox format` is this plus printing and exit codes.
 *
 * The stages, each its own module:
 * - list.ts: the files named and those below the directories named (the shared walker);
 * - cache.ts: the cache, a decorator around the per-file judge: a file whose bytes, path, config and
 *   formatter build it has seen is answered by its verdict (formatted, would change, failed);
 * - native-biome-pass.ts: in a Biome project that qualifies, formatbox's own native Biome checks the
 *   files once, in the sandbox, before any worker starts; the files it finds formatted, and with
 *   `check` those it finds would change, are answered (native-biome-write.ts: with a write, it
 *   writes those from its own output);
 * - the runtime (runtime.ts), loaded only for a file none of these answers, with a pool of worker
 *   threads (one per 250 files to format, at most one per core), the same selection, sandbox and
 *   compare-and-swap writes as an edit.
 */
import { availableParallelism } from 'node:os';
import { existsSync, lstatSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { isFormatboxError, messageOf } from '../../core/errors.js';
import { shownPath } from '../../core/shown.js';
import type { Sandbox } from '../../core/sandbox.js';
import type { ProjectFiles, Receipt, UserConfig } from '../../core/types.js';
import { BIOME_CONFIG_NAMES } from '../../formatters/biome/config.js';
import { fetchNativeBiomeIfAbsent, findNativeBiome } from '../biome-native.js';
import { discoverProjectFiles, SKIPPED_DIRS } from '../discover.js';
import { openFormatCache, type FormatCache } from '../format-cache.js';
import { isInside, resolveRoot } from '../fs/paths.js';
import { readPinFiles } from '../pin-files.js';
import type { Runtime, RuntimeOptions, Trust } from '../runtime.js';
import { findBwrap } from '../sandbox/bwrap.js';
import { bwrapSandbox, detectSandbox, noSandbox } from '../sandbox/index.js';
import { formatboxBuildId, formatterBuild } from '../version.js';
import { readSmallFile, type WalkResult } from '../walk.js';
import { openTreeCache, type Judge, type Judged } from './cache.js';
import { listFiles, realParent, toPosix, type Listing, type ListingError } from './list.js';
import { loadProjectConfig, normaliseUserConfig, selectFormatter } from '../../config/index.js';
import { resolveLimits } from '../../config/limits.js';
import { moduleOfAdapter } from '../../formatters/derived.js';
import { disagreement, earlyTargets, finishNativeBiomePass, guessNativeBiomePass, runNativeBiomePass, runNativeBiomeWritePass, startNativeBiomePass, type NativeOutcome, type NativePass, type NativePassOptions } from './native-biome-pass.js';
import { openPrecheck } from './precheck.js';

export interface FormatTreeOptions {
  /** The project root (a directory; its real path is used). */
  root: string;
  /** Files and directories to format, absolute or relative to the working directory. Default: the root. */
  paths?: readonly string[];
  /** Report what would change, write nothing. Default false: write. */
  check?: boolean;
  trust?: Trust;
  config?: UserConfig;
  /** Default true. Off in trusted mode whatever this says: the project's own plugins are not part of the key. */
  cache?: boolean;
  /** Default true: in a Biome project that qualifies, formatbox's native Biome checks the files first, in the sandbox. */
  native?: boolean;
  /** Worker threads. Default: `defaultThreads` of the files left to format. */
  threads?: number;
  /** Gitignore-syntax files (patterns relative to the root). */
  ignorePaths?: readonly string[];
  /** Default true: native Biome starts before the walk when nothing is cached yet (off when several trees run at once). */
  startNativeEarly?: boolean;
  /** Called once the files are listed, with how many there are. */
  onListed?: (files: number) => void;
  /** A line about a long stage (native Biome checking or writing), for a progress display. */
  onStage?: (line: string) => void;
}

/** What a report shows of a receipt (a file answered by the cache has only these). */
export type ReceiptSummary = Pick<Receipt, 'status' | 'line' | 'formatter' | 'reason'>;

/** One file's outcome, in path order. `path` is relative to the root. */
export type TreeOutcome =
  | { kind: 'formatted' | 'unchanged' | 'skipped' | 'failed'; path: string; receipt: ReceiptSummary; cached: boolean }
  | ListingError;

/** What the run did besides the files' outcomes: filled in as it goes, complete once the iteration ends. */
export interface TreeReport {
  /** The real root. */
  root: string;
  /** Files listed. */
  files: number;
  /** Worker threads the run sized its pool for (1 when no file needed the runtime). */
  threads: number;
  /** What the walk did not enter, and why. */
  walk: Pick<WalkResult, 'skipped' | 'ignoredCount' | 'truncated'>;
  /** The native Biome pass: used (and what it answered), or why not; absent when no file was Biome's. */
  native?: Exclude<NativeOutcome, undefined>;
  /** The cache file, or why the cache is off, and a problem saving it. */
  cache: { file?: string; off?: string; problem?: string };
}

export interface TreeRun extends AsyncIterable<TreeOutcome> {
  readonly report: TreeReport;
}

/**
 * Formats the tree; iterate the result for the outcomes (each file once, in path order). Setting up
 * starts with the iteration; ending the iteration early stops starting files and closes the runtime.
 */
export function formatTree(options: FormatTreeOptions): TreeRun {
  const report: TreeReport = { root: options.root, files: 0, threads: 1, walk: { skipped: [], ignoredCount: 0 }, cache: {} };
  return { report, [Symbol.asyncIterator]: () => runTree(options, report) };
}

async function* runTree(options: FormatTreeOptions, report: TreeReport): AsyncGenerator<TreeOutcome> {
  const rootReal = resolveRoot(options.root);
  report.root = rootReal;
  const check = options.check === true;
  const trust = options.trust ?? 'untrusted';
  const named = (options.paths ?? [rootReal]).map((path) => realParent(resolve(path)));
  const namedRel = named.filter((abs) => isInside(abs, rootReal)).map((abs) => toPosix(relative(rootReal, abs)));

  let cache: FormatCache | undefined;
  const off = options.cache === false ? 'off (--no-cache)' : trust === 'trusted' ? 'off (trusted mode: project plugins are not part of the key)' : undefined;
  if (off) report.cache.off = off;
  else {
    try {
      cache = openFormatCache(rootReal, { version: formatboxBuildId() });
      report.cache.file = cache.file;
    } catch (error) {
      report.cache.off = `off (${messageOf(error)})`; // e.g. a read-only home: the run goes on without it
    }
  }

  // A check with nothing cached yet: native Biome starts now and runs while formatbox walks and
  // hashes; with a root Biome config, even before discovery, as a guess that the project qualifies.
  // (A write runs native Biome once, on a copy of the files listed: below.)
  const useNative = options.native !== false;
  const earlyTried = useNative && check && options.startNativeEarly !== false && (!cache || cache.size === 0);
  // In a Biome project with a sandbox, formatbox's native build is fetched on first use (biome-native.ts); without it the run says so.
  let biome = useNative && BIOME_CONFIG_NAMES.some((name) => existsSync(join(rootReal, name))) && !nativeSandbox().unavailable ? await fetchNativeBiomeIfAbsent() : undefined;
  const ports = { sandbox: nativeSandbox, biome: () => (biome ??= findNativeBiome()) }; // the guess and the run find one binary
  const guessed = earlyTried ? guessNativeBiomePass(rootReal, namedRel, ports) : undefined;
  const discovered = cache || useNative ? await discoverProjectFiles(rootReal, { refuseHardLinks: trust !== 'trusted' }).catch((error: unknown) => {
    guessed?.stop.abort();
    throw error;
  }) : undefined;
  // The root's and each package's pins: native Biome answers only for files whose pin allows it, and the cache's tree key covers them.
  const pinFiles = discovered ? readPinFiles(rootReal, discovered.files).files : undefined;
  const nativeOptions: NativePassOptions | undefined = useNative && discovered
    ? { projectFiles: discovered.files, ...(pinFiles ? { pinFiles } : {}), trust, ...(options.config ? { config: options.config } : {}), ...ports }
    : undefined;
  // A guess is either adopted or stopped here (nativeOptions exists whenever native Biome may run).
  const early = earlyTried && nativeOptions ? startNativeBiomePass(rootReal, nativeOptions, (project) => earlyTargets(rootReal, namedRel, project.gitignore), guessed) : undefined;
  const listed = await listFiles(rootReal, named, [...(options.ignorePaths ?? [])]);
  const listing = { ...listed, files: await withFilesItsFormatterWalksInto(rootReal, listed, discovered?.files, trust, options.config) };
  report.files = listing.files.length;
  report.walk = listing.walk;
  options.onListed?.(listing.files.length);

  const precheck = cache && discovered ? openPrecheck(rootReal, cache, discovered, { build: formatterBuild(), ...(pinFiles ? { pinFiles } : {}), ...(options.config ? { config: options.config } : {}) }) : undefined;
  const treeCache = openTreeCache(precheck, listing.files, check);
  const left = treeCache.left;
  let native: NativeOutcome;
  if (early && 'running' in early) {
    options.onStage?.(`checking ${left.length} files (native Biome first)…`);
    native = await finishNativeBiomePass(early, left);
  } else if (earlyTried || !nativeOptions || left.length === 0) native = early;
  else if (check) native = await runNativeBiomePass(rootReal, left, nativeOptions);
  else {
    // A write: the files native Biome would change are written from its own output (a scratch copy), not formatted again.
    options.onStage?.(`formatting ${left.length} files (native Biome first)…`);
    native = await runNativeBiomeWritePass(rootReal, left, nativeOptions);
  }
  if (native) report.native = native;
  const pass = native && 'used' in native ? native.used : undefined;

  // The pool is sized by the files left to format; the runtime starts only for the first of them.
  const answeredNatively = (pass?.formatted.size ?? 0) + (check ? (pass?.wouldChange.size ?? 0) : (pass?.written?.written.size ?? 0) + (pass?.written?.failed.size ?? 0));
  const workers = options.threads ?? defaultThreads(left.length - answeredNatively);
  report.threads = workers;
  let runtime: Promise<Runtime> | undefined;
  const runtimeNow = (): Promise<Runtime> => (runtime ??= startRuntime({ root: rootReal, workers, watchConfig: false, trust, ...(options.config ? { config: options.config } : {}) }));
  const judge = judgeWith(runtimeNow, { check, rootReal, maxInputBytes: resolveLimits(options.config).maxInputBytes, ...(cache ? { cache } : {}), ...(pass ? { native: pass } : {}) });
  try {
    yield* listing.errors;
    // Four files in flight per worker: one running, one sent ahead, two being read and selected, so a
    // worker does not wait for this thread when it is slow to get the cores (a loaded machine).
    yield* inPathOrder(listing.files, treeCache.wrap(judge), workers * FILES_IN_FLIGHT_PER_WORKER);
  } finally {
    const problem = cache?.save();
    if (problem) report.cache.problem = problem;
    await (await runtime?.catch(() => undefined))?.close();
  }
}

/**
 * Runs `judge` on `paths` with up to `concurrency` calls in flight and yields their outcomes in the
 * order of `paths`. A slow file holds back what is yielded after it, not what is started.
 */
export async function* inPathOrder<T>(paths: readonly string[], judge: (path: string) => Promise<T>, concurrency: number): AsyncGenerator<T> {
  const results: Array<{ promise: Promise<T>; resolve: (value: T) => void } | undefined> = paths.map(() => {
    let resolve!: (value: T) => void;
    const promise = new Promise<T>((done) => (resolve = done));
    return { promise, resolve };
  });
  let nextToStart = 0;
  let stopped = false;
  const worker = async (): Promise<void> => {
    while (!stopped && nextToStart < paths.length) {
      const index = nextToStart++;
      results[index]!.resolve(await judge(paths[index] as string));
    }
  };
  const workers = Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, paths.length)) }, worker));
  try {
    for (let index = 0; index < paths.length; index++) {
      const value = await results[index]!.promise;
      results[index] = undefined; // yielded: not held
      yield value;
    }
  } finally {
    stopped = true;
    await workers;
  }
}

/**
 * Files to format per worker thread when `threads` is not given. A worker's start is paid once
 * (Prettier loaded and warmed up: about a second of CPU; Biome: ~0.15 s) and a file costs 1 to 5 ms:
 * a worker per core for a few changed files spends seconds of CPU to save milliseconds, and where
 * cores contend a second worker slows a small run.
 */
export const FILES_PER_WORKER = 250;

/** Files judged at once per worker thread (inPathOrder's concurrency). */
const FILES_IN_FLIGHT_PER_WORKER = 4;

/** One worker per `FILES_PER_WORKER` files to format, at least one, at most one per core. */
export function defaultThreads(filesToFormat: number, cores = availableParallelism()): number {
  return Math.max(1, Math.min(cores, Math.ceil(filesToFormat / FILES_PER_WORKER)));
}

/** The runtime, loaded on first use (the bin's format bundle leaves it out: dist/cli-runtime.js). */
async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { createRuntime } = await import('../runtime.js');
  return createRuntime(options);
}

/** The per-file judge behind the cache: native Biome's answer where it has one, else the runtime's. */
function judgeWith(runtime: () => Promise<Runtime>, options: { check: boolean; rootReal: string; maxInputBytes: number; cache?: FormatCache; native?: NativePass }): Judge {
  const { check, native } = options;
  const nativeFormatter = native ? { name: 'biome', version: native.version, via: 'sandbox' as const } : undefined;
  return async (path): Promise<Judged> => {
    if (native && nativeFormatter) {
      const judge = { by: 'judge' as const, startedAtMs: native.startedAtMs };
      if (native.formatted.has(path)) {
        return { outcome: { kind: 'unchanged', path, receipt: { status: 'unchanged', formatter: nativeFormatter, line: `already formatted (biome ${native.version}, native): ${shownPath(path)}` }, cached: false }, evidence: judge };
      }
      if (native.written?.written.has(path)) {
        return { outcome: { kind: 'formatted', path, receipt: { status: 'formatted', formatter: nativeFormatter, line: `formatted (biome ${native.version}, native): ${shownPath(path)}` }, cached: false } };
      }
      const writeFailed = native.written?.failed.get(path);
      if (writeFailed) return { outcome: { kind: 'error', path, ...writeFailed } };
      if (check && native.wouldChange.has(path)) {
        // Native Biome is the project's formatter at its pinned version: its "would change" is the answer.
        return { outcome: { kind: 'formatted', path, receipt: { status: 'formatted', formatter: nativeFormatter, line: `would reformat (biome ${native.version}, native): ${shownPath(path)}` }, cached: false }, evidence: judge };
      }
    }
    // A file over the input limit is skipped by its size: never read whole only to be refused (its
    // first bytes, a shebang, were all the walk needed). A UTF-8 BOM is the only byte not counted.
    const size = sizeOf(join(options.rootReal, path));
    if (size !== undefined && size > options.maxInputBytes + 3) {
      const line = `not formatted (too large: ${size} bytes > ${options.maxInputBytes}): ${shownPath(path)}`;
      return { outcome: { kind: 'skipped', path, receipt: { status: 'skipped', reason: 'too large', line }, cached: false } };
    }
    try {
      let readSha256: string | undefined;
      // The hash of the bytes read ties a verdict to the bytes the cache hashed: without a cache it is not taken.
      const cached = options.cache ? { cache: options.cache, onRead: (sha256: string) => (readSha256 = sha256) } : {};
      const receipt = await (await runtime()).format({ path, ...(check ? { check: true } : {}), ...cached });
      const disagrees = disagreement(native?.flagged.get(path), receipt.status);
      if (disagrees) return { outcome: { kind: 'error', path, code: 'FORMATTERS_DISAGREE', message: disagrees } };
      const kind = receipt.status === 'formatted' || receipt.status === 'unchanged' || receipt.status === 'skipped' ? receipt.status : 'failed';
      const outcome: TreeOutcome = { kind, path, receipt, cached: receipt.line.startsWith('already formatted (cached') };
      return { outcome, evidence: { by: 'runtime', ...(readSha256 ? { readSha256 } : {}), ...(receipt.formatter ? { via: receipt.formatter.via } : {}), record: receipt.record } };
    } catch (error) {
      return { outcome: { kind: 'error', path, code: errorCodeOf(error), message: messageOf(error) } };
    }
  };
}

function sizeOf(abs: string): number | undefined {
  try {
    return lstatSync(abs).size;
  } catch {
    return undefined;
  }
}

/** The stable code of an error from the runtime, also when it comes from another bundle's copy of FormatboxError. */
function errorCodeOf(error: unknown): string {
  if (isFormatboxError(error)) return error.code;
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  return name === 'FormatboxError' && typeof code === 'string' ? code : 'INTERNAL';
}

/**
 * The sandbox native Biome runs in. On Linux, bwrap without detectSandbox's trial run (~12 ms before
 * anything starts): a bwrap that cannot create a sandbox here fails the run itself, which then says why.
 */
function nativeSandbox(): Sandbox {
  if (process.platform !== 'linux') return detectSandbox();
  const bwrap = findBwrap();
  return bwrap ? bwrapSandbox({ bwrapPath: bwrap }) : noSandbox('bubblewrap (bwrap) is not installed');
}

/**
 * The listed files, plus those found below a dot-directory or a conventional dependency, build or
 * cache directory that their formatter's own walk formats too (Prettier's and Biome's enter every
 * directory but version control and node_modules); below such a directory, a file of any other
 * formatter is left out, as before.
 */
async function withFilesItsFormatterWalksInto(rootReal: string, listing: Listing, discovered: ProjectFiles | undefined, trust: Trust, config: UserConfig | undefined): Promise<string[]> {
  if (listing.belowSkippedDirs.length === 0) return listing.files;
  const files = discovered ?? (await discoverProjectFiles(rootReal, { refuseHardLinks: trust !== 'trusted' })).files;
  const project = loadProjectConfig(files, { trust });
  const user = normaliseUserConfig(config);
  const seen = new Map<string, boolean>();
  const kept = listing.belowSkippedDirs.filter((path) => {
    const selection = selectFormatter(project, user, path, listing.firstBytes.get(path));
    const module = selection.kind === 'format' && typeof selection.formatter === 'string' ? moduleOfAdapter(selection.formatter) : undefined;
    return module?.walksEveryDirectory === true && !unreadConfigOnTheWay(rootReal, path, module.configFiles, seen);
  });
  return kept.length === 0 ? listing.files : [...listing.files, ...kept].sort();
}

/**
 * Whether a directory of `path` at or below its first SKIPPED_DIRS directory holds one of `names` or
 * an `.editorconfig` (a package.json only with a "prettier" key): config discovery does not read
 * those directories (it does read dot-directories), so such a file would be formatted with the wrong
 * settings; it is left out instead, as before.
 */
function unreadConfigOnTheWay(rootReal: string, path: string, names: readonly string[], seen: Map<string, boolean>): boolean {
  const segments = path.split('/').slice(0, -1);
  const first = segments.findIndex((name) => SKIPPED_DIRS.has(name));
  if (first < 0) return false;
  for (let depth = first + 1; depth <= segments.length; depth++) {
    const dir = segments.slice(0, depth).join('/');
    let found = seen.get(dir);
    if (found === undefined) {
      found = [...names, '.editorconfig'].some((name) => {
        const file = join(rootReal, dir, name);
        if (!existsSync(file)) return false;
        if (name !== 'package.json' && name !== 'package.yaml') return true;
        const text = readSmallFile(file, 1024 * 1024);
        return typeof text !== 'string' || /(^|["\s])prettier["']?\s*:/m.test(text);
      });
      seen.set(dir, found);
    }
    if (found) return true;
  }
  return false;
}
