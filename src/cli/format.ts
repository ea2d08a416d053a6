/**
 * `formatbox format [--check|--write] [--json] [--threads N] [--no-cache] [--no-native] [--ignore-path FILE] PATHS…`:
 * the project-wide mode.
 *
 * - Files and directories are listed by the shared walker (src/node/walk.ts): dependency, VCS and
 *   cache directories and dot-directories are not entered; `.gitignore` at every level,
 *   `.git/info/exclude` and `--ignore-path` files are honoured; no symlink is followed out of the
 *   root or into a loop; a bad entry is reported and the run goes on.
 * - Files are formatted by a pool of worker threads (by default one per 250 files the cache does not
 *   answer, at most one per core), each wasm module compiled once for the pool, with the same
 *   selection, sandbox and compare-and-swap writes as an edit; results are printed in path order
 *   whatever order they finish in.
 * - A cache of every verdict (src/node/format-cache.ts: formatted, would change, failed) answers
 *   files whose bytes, path, config and formatter build it has seen.
 * - In a Biome project, formatbox's own native Biome checks the files first, once, in the sandbox
 *   (format-native.ts); the files it finds formatted, and with `--check` those it finds would
 *   change, are answered; the rest go on to the pool.
 * - On a TTY, a progress line (done/total, files/s, ETA); then a summary; `--json` prints one JSON
 *   line per file and a final `{"summary": …}` line.
 * Exit 0: ok. 1: `--check` found files that would change. 2: a file could not be formatted (syntax
 * error, timeout, refusal) or a named path is bad.
 */
import { availableParallelism } from 'node:os';
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { shownPath } from '../core/shown.js';
import { FormatboxError, isFormatboxError, messageOf } from '../core/errors.js';
import { languageOf } from '../core/languages.js';
import type { Receipt } from '../core/types.js';
import { SKIPPED_DIRS } from '../node/discover.js';
import { openFormatCache, type FormatCache } from '../node/format-cache.js';
import { isInside, resolveRoot } from '../node/fs/paths.js';
import type { Runtime, RuntimeOptions } from '../node/runtime.js';
import { readSmallFile, walkTree, type WalkResult } from '../node/walk.js';
import { openPrecheck, type Precheck, type PrecheckEntry } from '../node/format-precheck.js';
import { discoverProjectFiles, type Discovered } from '../node/discover.js';
import { bwrapSandbox, detectSandbox, noSandbox } from '../node/sandbox/index.js';
import { findBwrap } from '../node/sandbox/bwrap.js';
import type { Sandbox } from '../core/sandbox.js';
import { fetchNativeBiomeIfAbsent, findNativeBiome } from '../node/biome-native.js';
import { readPinFiles } from '../node/pin-files.js';
import { disagreement, earlyTargets, finishNativeBiomePass, guessNativeBiomePass, runNativeBiomePass, startNativeBiomePass, writeNatively, type NativeOutcome, type NativePass, type NativePassOptions, type NativeRun, type NativeWrites } from './format-native.js';
import { EXIT_OK, EXIT_USAGE, EXIT_WOULD_CHANGE } from './exit-codes.js';
import { quietOnEpipe } from './epipe.js';
import { formatJsonStatus } from './format-args.js';
import type { HandlerOptions } from './requests.js';
import { allowedRoot, placeRequest, saysNoRoot, withNoRootReason } from './request-root.js';
import { formatboxBuildId, formatterBuild } from './version.js';

interface FormatFlags {
  positional: string[];
  check: boolean;
  json: boolean;
}

/** Options only `format` takes (parsed by `takeFormatOptions` before the common flags). */
export interface FormatOptions {
  /** Worker threads. Default: `defaultThreads` of the files the cache does not answer. */
  threads?: number;
  /** Default true; `--no-cache` turns it off. */
  cache: boolean;
  /** `--ignore-path FILE` (repeatable): gitignore-syntax files, patterns relative to the root. */
  ignorePaths: string[];
  /** Default true: files Biome formats are checked first by formatbox's native Biome in the sandbox (format-native.ts); `--no-native` turns it off. */
  native?: boolean;
}

/** Most files one run looks at; a larger tree is named in parts. */
const MAX_FILES = 100_000;
/** Walk bounds for a project-wide run. */
const WALK_LIMITS = { maxDirs: 50_000, maxEntries: 1_000_000, maxDepth: 64 };
/** Per ignore file given with --ignore-path. */
const MAX_IGNORE_PATH_BYTES = 1024 * 1024;

/** Removes `format`'s own options from `args`; the rest goes to the common flag parser. */
export function takeFormatOptions(args: string[]): { args: string[]; options: FormatOptions } {
  const options: FormatOptions = { cache: true, ignorePaths: [] };
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      const next = inline ?? args[++i];
      if (next === undefined) throw new FormatboxError('INVALID_REQUEST', `${name} needs a value`);
      return next;
    };
    if (name === '--no-cache') options.cache = false;
    else if (name === '--no-native') options.native = false;
    else if (name === '--threads') {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1 || n > 256) throw new FormatboxError('INVALID_REQUEST', '--threads needs a whole number from 1 to 256');
      options.threads = n;
    } else if (name === '--ignore-path') options.ignorePaths.push(value());
    else rest.push(arg);
  }
  return { args: rest, options };
}

/** What the report prints of a receipt (a file answered by the cache before the runtime has only these). */
type ReceiptSummary = Pick<Receipt, 'status' | 'line' | 'formatter' | 'reason'>;

/** One line of the report, per path, in path order. */
type Outcome =
  | { kind: 'formatted' | 'unchanged' | 'skipped' | 'failed'; path: string; receipt: ReceiptSummary; cached: boolean }
  | { kind: 'error'; path: string; code: string; message: string };

interface Counts {
  formatted: number;
  unchanged: number;
  cached: number;
  /** Of `cached`: answered before any engine or worker started (format-precheck.ts). */
  cachedBeforeStart: number;
  skipped: number;
  failed: number;
}

/**
 * The files named, grouped by the project root they are formatted in. With --root, one group. Without
 * (`findRoot`), each named path's root is found as for an edit (request-root.ts): the nearest VCS
 * root, else the nearest formatter config; so `format` from a subdirectory formats as from the root.
 */
interface ProjectGroup {
  rootReal: string;
  /** Absolute paths named, in this group. */
  named: string[];
  /** No project root was found: the working directory stood in (skipped files say so). */
  noRoot: boolean;
}

function projectGroups(root: string, named: string[], findRoot: boolean): ProjectGroup[] {
  const absolute = named.map((path) => resolve(path));
  if (!findRoot) return [{ rootReal: resolveRoot(allowedRoot(root, 'the --root')), named: absolute, noRoot: false }];
  const groups = new Map<string, ProjectGroup>();
  for (const abs of absolute) {
    // A directory's root is the one a file directly inside it would get.
    const probe = lstatSync(abs, { throwIfNoEntry: false })?.isDirectory() ? join(abs, '.formatbox-walk') : abs;
    const { request, noRoot } = placeRequest({ method: 'format', path: probe }, { cwd: root });
    const rootReal = resolveRoot(request.root);
    const group = groups.get(rootReal) ?? { rootReal, named: [], noRoot: false };
    group.named.push(abs);
    group.noRoot ||= noRoot;
    groups.set(rootReal, group);
  }
  return [...groups.values()];
}

/** Where the run's cache stands: off (and why), the files used, problems saving. */
interface CacheState {
  off: string | undefined;
  files: string[];
  problems: string[];
}

/** One project's part of a run, set up before any file is formatted. */
interface PreparedGroup {
  group: ProjectGroup;
  listing: Listing;
  cache?: FormatCache;
  discovered?: Discovered;
  nativeOptions?: NativePassOptions;
  /** Native Biome started before the walk (a single project with nothing cached yet). */
  early?: NativeRun | NativeOutcome;
  /** The early start was tried (its outcome may be `undefined`: no Biome file to check). */
  earlyTried: boolean;
}

/** Opens the cache, reads the config, starts native Biome when it may start early, and lists the files. */
async function prepareGroup(group: ProjectGroup, startEarly: boolean, options: HandlerOptions, formatOptions: FormatOptions, cacheState: CacheState): Promise<PreparedGroup> {
  let cache: FormatCache | undefined;
  if (!cacheState.off) {
    try {
      cache = openFormatCache(group.rootReal, { version: formatboxBuildId() });
      cacheState.files.push(cache.file);
    } catch (error) {
      cacheState.off = `off (${messageOf(error)})`; // e.g. a read-only home: the run goes on without it
    }
  }
  const useNative = formatOptions.native !== false;
  // With nothing cached yet, native Biome starts now and runs while formatbox walks and hashes;
  // with a root Biome config, even before discovery, as a guess that the project qualifies.
  const earlyTried = useNative && startEarly && (!cache || cache.size === 0);
  // In a Biome project with a sandbox, formatbox's native build is fetched on first use (biome-native.ts); without it the run says so.
  let biome = useNative && ['biome.json', 'biome.jsonc'].some((name) => existsSync(join(group.rootReal, name))) && !nativeSandbox().unavailable ? await fetchNativeBiomeIfAbsent() : undefined;
  const ports = { sandbox: nativeSandbox, biome: () => (biome ??= findNativeBiome()) }; // the guess and the run find one binary
  const guessed = earlyTried ? guessNativeBiomePass(group.rootReal, namedInside(group), ports) : undefined;
  const discovered = cache || useNative ? await discoverProjectFiles(group.rootReal, { refuseHardLinks: options.trust !== 'trusted' }).catch((error: unknown) => {
    guessed?.stop.abort();
    throw error;
  }) : undefined;
  const nativeOptions: NativePassOptions | undefined =
    useNative && discovered
      ? { projectFiles: discovered.files, pinFiles: readPinFiles(group.rootReal).files, trust: options.trust ?? 'untrusted', ...(options.config ? { config: options.config } : {}), ...ports }
      : undefined;
  // A guess is either adopted or stopped here (nativeOptions exists whenever native Biome may run).
  const early = earlyTried && nativeOptions ? startNativeBiomePass(group.rootReal, nativeOptions, (project) => earlyTargets(group.rootReal, namedInside(group), project.gitignore), guessed) : undefined;
  const listing = await listFiles(group.rootReal, group.named, formatOptions.ignorePaths);
  return { group, listing, earlyTried, ...(cache ? { cache } : {}), ...(discovered ? { discovered } : {}), ...(nativeOptions ? { nativeOptions } : {}), ...(early !== undefined ? { early } : {}) };
}

/** The named paths of `group` inside its root, relative to it (`''`: the root). */
function namedInside(group: ProjectGroup): string[] {
  return group.named.map((abs) => realParent(abs)).filter((abs) => isInside(abs, group.rootReal)).map((abs) => toPosix(relative(group.rootReal, abs)));
}

/** The cache's answers, then native Biome's, for the files of one project. */
async function answerBeforeStart(prepared: PreparedGroup, options: HandlerOptions, check: boolean, say: (line: string) => void): Promise<{ entries: Map<string, PrecheckEntry | undefined>; precheck?: Precheck; misses: string[]; native: NativeOutcome }> {
  const { group, listing, cache, discovered, nativeOptions, early, earlyTried } = prepared;
  const precheck = cache && discovered ? openPrecheck(group.rootReal, cache, discovered, { build: formatterBuild(), ...(options.config ? { config: options.config } : {}) }) : undefined;
  const entries = new Map(precheck ? listing.files.map((path) => [path, precheck.entryOf(path)] as const) : []);
  const misses = precheck ? listing.files.filter((path) => !answeredByCache(entries.get(path), check)) : listing.files;
  let native: NativeOutcome;
  if (early && 'running' in early) {
    say(`checking ${misses.length} files (native Biome first)…`);
    native = await finishNativeBiomePass(early, misses);
  } else if (earlyTried || !nativeOptions || misses.length === 0) native = early;
  else native = await runNativeBiomePass(group.rootReal, misses, nativeOptions);
  return { entries, ...(precheck ? { precheck } : {}), misses, native };
}

/** The cache's verdict is the answer: formatted; would change (for a check: a write needs the bytes); failed. */
function answeredByCache(entry: PrecheckEntry | undefined, check: boolean): boolean {
  return entry !== undefined && (entry.hit || entry.verdict?.kind === 'failed' || (check && entry.verdict?.kind === 'would-change'));
}

export async function runFormat(root: string, flags: FormatFlags, options: HandlerOptions, formatOptions: FormatOptions = { cache: true, ignorePaths: [] }): Promise<number> {
  const started = performance.now();
  let threads = 1;
  const groups = projectGroups(root, flags.positional.length > 0 ? flags.positional : ['.'], options.findRoot === true);
  // Paths are shown relative to the working directory when each file's root was found, else to --root.
  const shownFrom = options.findRoot === true ? resolveRoot(root) : undefined;
  // Trusted mode may load the project's own Prettier plugins, whose code no cache key can cover.
  const cacheState: CacheState = {
    off: !formatOptions.cache ? 'off (--no-cache)' : options.trust === 'trusted' ? 'off (trusted mode: project plugins are not part of the key)' : undefined,
    files: [],
    problems: [],
  };
  const prepared: PreparedGroup[] = [];
  // Native Biome starts early for one project only: several at once would contend for the cores.
  for (const group of groups) prepared.push(await prepareGroup(group, groups.length === 1, options, formatOptions, cacheState));
  // Native Biome has started: now the output streams (created on first use, ~6 ms on a pipe).
  quietOnEpipe();
  const total = prepared.reduce((sum, { listing }) => sum + listing.files.length, 0);
  const walk: WalkResult = { files: [], skipped: [], ignoredCount: 0, ignoreProblems: [] };
  for (const { listing } of prepared) mergeWalk(walk, listing.walk);
  const progress = process.stderr.isTTY === true && !flags.json ? createProgress(total) : undefined;
  const counts: Counts = { formatted: 0, unchanged: 0, cached: 0, cachedBeforeStart: 0, skipped: 0, failed: 0 };
  const nativeOutcomes: Array<Exclude<NativeOutcome, undefined>> = [];
  for (const part of prepared) {
    const { group, listing, cache } = part;
    const shown = (rel: string): string => (shownFrom && shownFrom !== group.rootReal ? toPosix(relative(shownFrom, join(group.rootReal, rel))) : rel);
    const report = (outcome: Outcome) => {
      const placed: Outcome = outcome.kind === 'error' ? outcome : { ...outcome, path: shown(outcome.path), receipt: withNoRootReason(outcome.receipt, group.noRoot) };
      countOutcome(counts, placed);
      progress?.clear();
      printOutcome(placed, flags);
    };
    // Started only for a file neither the cache nor native Biome answers (an unchanged tree starts none).
    let runtime: Promise<Runtime> | undefined;
    let workers = 1;
    const runtimeNow = (): Promise<Runtime> => (runtime ??= startRuntime({ root: group.rootReal, workers, watchConfig: false, ...(options.trust ? { trust: options.trust } : {}), ...(options.config ? { config: options.config } : {}) }));
    try {
      const { entries, precheck, misses, native } = await answerBeforeStart(part, options, flags.check, (line) => progress?.say(line));
      if (native) nativeOutcomes.push(native);
      const nativePass = native && 'used' in native ? native.used : undefined;
      // --write: the files native Biome found would change are written from its own output (a scratch copy), not formatted again.
      let writes: NativeWrites | undefined;
      if (!flags.check && nativePass && nativePass.wouldChange.size > 0 && part.nativeOptions) {
        progress?.say(`writing ${nativePass.wouldChange.size} files (native Biome)…`);
        writes = await writeNatively(group.rootReal, [...nativePass.wouldChange].sort(), part.nativeOptions);
        nativePass.written = writes;
      }
      // The pool is sized by the files left to format.
      const answeredNatively = (nativePass?.formatted.size ?? 0) + (flags.check ? (nativePass?.wouldChange.size ?? 0) : (writes?.written.size ?? 0) + (writes?.failed.size ?? 0));
      workers = formatOptions.threads ?? defaultThreads(misses.length - answeredNatively);
      threads = Math.max(threads, workers);
      const each = { check: flags.check, ...(cache ? { cache } : {}), ...(precheck ? { precheck } : {}), ...(nativePass ? { native: nativePass } : {}) };
      for (const error of listing.errors) report(error);
      await formatInOrder(listing.files, (path) => formatOne(runtimeNow, path, entries.get(path), each), workers * 2, report, () => progress?.tick());
      const problem = cache?.save();
      if (problem) cacheState.problems.push(problem);
    } finally {
      progress?.clear();
      await (await runtime?.catch(() => undefined))?.close();
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const summary = {
    files: total,
    [flags.check ? 'wouldChange' : 'formatted']: counts.formatted,
    unchanged: counts.unchanged,
    fromCache: counts.cached,
    fromCacheBeforeStart: counts.cachedBeforeStart,
    skipped: counts.skipped,
    failed: counts.failed,
    notWalked: walk.skipped.length,
    ignoredByIgnoreFiles: walk.ignoredCount,
    ...(walk.truncated ? { truncated: walk.truncated } : {}),
    threads,
    ...nativeSummary(nativeOutcomes, flags.check),
    cache: cacheState.off ?? (cacheState.files.length > 0 ? cacheState.files.join(', ') : 'off'),
    seconds: Math.round(seconds * 1000) / 1000,
    filesPerSecond: Math.round(total / Math.max(seconds, 0.001)),
  };
  if (flags.json) {
    for (const item of walk.skipped) process.stdout.write(JSON.stringify({ path: item.rel, status: 'not walked', reason: item.reason }) + '\n');
    process.stdout.write(JSON.stringify({ summary }) + '\n');
  } else {
    printNotWalked(walk);
    const verb = flags.check ? 'would change' : 'formatted';
    process.stderr.write(
      `${total} files: ${counts.formatted} ${verb}, ${counts.unchanged} already formatted, ` +
        `${counts.skipped} not formatted (no formatter or ignored), ${counts.failed} failed (${counts.cached} answered from the cache) — ${seconds.toFixed(2)} s, ${summary.filesPerSecond} files/s, ${threads} thread${threads === 1 ? '' : 's'}\n`,
    );
  }
  if (!flags.json) for (const line of nativeLines(nativeOutcomes, flags.check)) process.stderr.write(`formatbox: ${line}\n`);
  for (const problem of cacheState.problems) process.stderr.write(`formatbox: ${problem}\n`);
  if (counts.failed > 0) return EXIT_USAGE;
  return flags.check && counts.formatted > 0 ? EXIT_WOULD_CHANGE : EXIT_OK;
}

function mergeWalk(into: WalkResult, from: WalkResult): void {
  into.skipped.push(...from.skipped);
  into.ignoredCount += from.ignoredCount;
  into.truncated ??= from.truncated;
}

/**
 * Formats `files` with up to `concurrency` calls in flight (the runtime's worker pool does the
 * work) and hands each outcome to `report` in the order of `files`.
 */
export async function formatInOrder(
  files: readonly string[],
  formatFile: (path: string) => Promise<Outcome>,
  concurrency: number,
  report: (outcome: Outcome) => void,
  onDone: () => void = () => undefined,
): Promise<void> {
  const done: Array<Outcome | undefined> = new Array(files.length);
  let nextToStart = 0;
  let nextToReport = 0;
  const worker = async (): Promise<void> => {
    while (nextToStart < files.length) {
      const index = nextToStart++;
      done[index] = await formatFile(files[index] as string);
      onDone();
      while (nextToReport < files.length && done[nextToReport] !== undefined) {
        report(done[nextToReport]!);
        done[nextToReport++] = undefined;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, files.length)) }, worker));
}

/**
 * Files to format per worker thread when `--threads` is not given. A worker's start is paid once
 * (Prettier loaded and warmed up: about a second of CPU; Biome: ~0.15 s) and a file costs 1 to 5 ms:
 * a worker per core for a few changed files spends seconds of CPU to save milliseconds, and where
 * cores contend a second worker slows a small run.
 */
export const FILES_PER_WORKER = 250;

/** One worker per `FILES_PER_WORKER` files to format, at least one, at most one per core. */
export function defaultThreads(filesToFormat: number, cores = availableParallelism()): number {
  return Math.max(1, Math.min(cores, Math.ceil(filesToFormat / FILES_PER_WORKER)));
}

/** The runtime, loaded on first use (the bin's format bundle leaves it out: dist/cli-runtime.js). */
async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { createRuntime } = await import('../node/runtime.js');
  return createRuntime(options);
}

async function formatOne(runtime: () => Promise<Runtime>, path: string, entry: PrecheckEntry | undefined, options: { check: boolean; cache?: FormatCache; precheck?: Precheck; native?: NativePass }): Promise<Outcome> {
  if (entry?.hit) {
    return { kind: 'unchanged', path, receipt: { status: 'unchanged', line: `already formatted (cached): ${shownPath(path)}` }, cached: true };
  }
  // Other verdicts answer where they suffice: "would change" a check (a write needs the bytes), "failed" both.
  if (entry && answeredByCache(entry, options.check)) {
    if (entry.verdict?.kind === 'failed') return { kind: 'failed', path, receipt: { status: 'failed', line: entry.verdict.line }, cached: true };
    return { kind: 'formatted', path, receipt: { status: 'formatted', line: `would reformat (cached): ${shownPath(path)}` }, cached: true };
  }
  const { native } = options;
  const nativeFormatter = native ? { name: 'biome', version: native.version, via: 'sandbox' as const } : undefined;
  if (native?.formatted.has(path)) {
    // Native Biome may have read the file before this run hashed it (it starts before the walk).
    if (entry) options.precheck!.confirmUnchangedSince(entry, path, native.startedAtMs);
    return { kind: 'unchanged', path, receipt: { status: 'unchanged', formatter: nativeFormatter!, line: `already formatted (biome ${native.version}, native): ${shownPath(path)}` }, cached: false };
  }
  if (native?.written?.written.has(path)) {
    return { kind: 'formatted', path, receipt: { status: 'formatted', formatter: nativeFormatter!, line: `formatted (biome ${native.version}, native): ${shownPath(path)}` }, cached: false };
  }
  const writeFailed = native?.written?.failed.get(path);
  if (writeFailed) return { kind: 'error', path, ...writeFailed };
  if (options.check && native?.wouldChange.has(path)) {
    // Native Biome is the project's formatter at its pinned version: its "would change" is the answer.
    if (entry) options.precheck!.confirmUnchangedSince(entry, path, native.startedAtMs, { kind: 'would-change' });
    return { kind: 'formatted', path, receipt: { status: 'formatted', formatter: nativeFormatter!, line: `would reformat (biome ${native.version}, native): ${shownPath(path)}` }, cached: false };
  }
  try {
    let readSha256: string | undefined;
    const receipt = await (await runtime()).format({ path, ...(options.check ? { check: true } : {}), ...(options.cache ? { cache: options.cache } : {}), ...(entry ? { onRead: (sha256: string) => (readSha256 = sha256) } : {}) });
    const disagrees = disagreement(native?.flagged.get(path), receipt.status);
    if (disagrees) return { kind: 'error', path, code: 'FORMATTERS_DISAGREE', message: disagrees };
    const kind = receipt.status === 'formatted' || receipt.status === 'unchanged' || receipt.status === 'skipped' ? receipt.status : 'failed';
    if (entry && kind === 'unchanged') options.precheck!.confirm(entry, receipt.record, receipt.formatter?.via);
    // A check's "would change" and a formatter's own failure (not a timeout or a refusal) hold for these bytes.
    if (entry && options.check && receipt.status === 'formatted') options.precheck!.confirmVerdict(entry, readSha256, receipt.formatter?.via, { kind: 'would-change', outputSha256: receipt.record.sha256 });
    if (entry && receipt.status === 'failed') options.precheck!.confirmVerdict(entry, readSha256, receipt.formatter?.via, { kind: 'failed', line: receipt.line });
    return { kind, path, receipt, cached: receipt.line.startsWith('already formatted (cached') };
  } catch (error) {
    return { kind: 'error', path, code: isFormatboxError(error) ? error.code : 'INTERNAL', message: messageOf(error) };
  }
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

/** The summary's `nativeBiome` field: files checked natively and how many were answered, or why it was not used. */
function nativeSummary(outcomes: ReadonlyArray<Exclude<NativeOutcome, undefined>>, check: boolean): { nativeBiome?: Record<string, unknown> } {
  const used = outcomes.flatMap((o) => ('used' in o ? [o.used] : []));
  const notUsed = outcomes.flatMap((o) => ('notUsed' in o ? [o.notUsed] : []));
  if (used.length === 0 && notUsed.length === 0) return {};
  return {
    nativeBiome: {
      files: used.reduce((n, u) => n + u.files, 0),
      formatted: used.reduce((n, u) => n + u.formatted.size, 0),
      wouldChange: used.reduce((n, u) => n + u.wouldChange.size, 0),
      written: used.reduce((n, u) => n + (u.written?.written.size ?? 0), 0),
      leftToWasm: used.reduce((n, u) => n + leftToWasm(u, check), 0),
      seconds: Math.round(used.reduce((n, u) => n + u.seconds, 0) * 1000) / 1000,
      ...(notUsed.length > 0 ? { notUsed } : {}),
    },
  };
}

/** The files of a native pass that go on to the per-file path: flagged (but for a check's "would change" and those it wrote), or not processed. */
function leftToWasm(pass: NativePass, check: boolean): number {
  const answered = check ? pass.wouldChange.size : (pass.written?.written.size ?? 0) + (pass.written?.failed.size ?? 0);
  return pass.flagged.size - answered + pass.notProcessed;
}

function nativeLines(outcomes: ReadonlyArray<Exclude<NativeOutcome, undefined>>, check: boolean): string[] {
  return outcomes.map((o) =>
    'used' in o
      ? `native Biome ${o.used.version} (sandboxed) checked ${o.used.files} files in ${o.used.seconds.toFixed(2)} s${o.used.written ? `, wrote ${o.used.written.written.size} in ${o.used.written.seconds.toFixed(2)} s${o.used.written.notUsed ? ` (then stopped: ${o.used.written.notUsed})` : ''}` : ''}; ${leftToWasm(o.used, check)} went on to Biome's wasm build`
      : `native Biome not used (${o.notUsed}); Biome's wasm build formats its files`,
  );
}

function countOutcome(counts: Counts, outcome: Outcome): void {
  if (outcome.kind === 'error') counts.failed++;
  else counts[outcome.kind]++;
  if (outcome.kind !== 'error' && outcome.cached) counts.cached++;
  if (outcome.kind !== 'error' && outcome.cached && outcome.receipt.formatter === undefined) counts.cachedBeforeStart++;
}

function printOutcome(outcome: Outcome, flags: FormatFlags): void {
  const { path } = outcome;
  if (outcome.kind === 'error') {
    if (flags.json) process.stdout.write(JSON.stringify({ path, error: { code: outcome.code, message: outcome.message } }) + '\n');
    else process.stdout.write(`error: ${shownPath(path)}: ${outcome.message}\n`);
    return;
  }
  const { receipt } = outcome;
  if (flags.json) {
    const status = formatJsonStatus(receipt.status, flags.check);
    process.stdout.write(JSON.stringify({ path, status, line: receipt.line, ...(receipt.formatter ? { formatter: receipt.formatter } : {}), ...(receipt.reason ? { reason: receipt.reason } : {}), ...(outcome.cached ? { cached: true } : {}) }) + '\n');
  } else if (outcome.kind === 'formatted' || outcome.kind === 'failed' || saysNoRoot(receipt)) {
    process.stdout.write(`${outcome.kind === 'formatted' && flags.check ? `would reformat: ${shownPath(path)}` : receipt.line}\n`);
  }
}

const NOT_WALKED_SHOWN = 20;

function printNotWalked(walk: WalkResult): void {
  for (const item of walk.skipped.slice(0, NOT_WALKED_SHOWN)) process.stderr.write(`not walked: ${shownPath(item.rel)} (${item.reason})\n`);
  if (walk.skipped.length > NOT_WALKED_SHOWN) process.stderr.write(`not walked: ${walk.skipped.length - NOT_WALKED_SHOWN} more (--json lists them)\n`);
  if (walk.truncated) process.stderr.write(`formatbox: the walk was cut short: ${walk.truncated}\n`);
}

interface Listing {
  files: string[];
  errors: Outcome[];
  walk: WalkResult;
}

/**
 * Project-relative paths of the files named, and of the files found below the directories named,
 * sorted and without duplicates. A named path that is missing or outside the root is an error line;
 * the other paths are still formatted.
 */
async function listFiles(rootReal: string, named: string[], ignorePaths: string[]): Promise<Listing> {
  const extraIgnores = ignorePaths.map((file) => {
    const text = readSmallFile(resolve(file), MAX_IGNORE_PATH_BYTES);
    if (typeof text !== 'string') throw new FormatboxError('INVALID_REQUEST', `--ignore-path ${file}: ${text.refused}`);
    return { file, text };
  });
  const out = new Set<string>();
  const errors: Outcome[] = [];
  const walk: WalkResult = { files: [], skipped: [], ignoredCount: 0, ignoreProblems: [] };
  for (const path of named) {
    // The parent resolved (a project reached through a symlinked path), the last name as given (a
    // named symlink is the runtime's to check).
    const lexical = realParent(resolve(path));
    const rel = toPosix(relative(rootReal, lexical));
    if (!isInside(lexical, rootReal)) {
      errors.push({ kind: 'error', path, code: 'PATH_REFUSED', message: `${shownPath(path)} is outside the project root ${shownPath(rootReal)}` });
      continue;
    }
    let isDirectory: boolean;
    try {
      isDirectory = lstatSync(lexical).isDirectory();
    } catch {
      errors.push({ kind: 'error', path: rel || '.', code: 'FILE_NOT_FOUND', message: `${rel || '.'} does not exist` });
      continue;
    }
    if (!isDirectory) {
      out.add(rel); // Named explicitly: the runtime checks it (symlinks out of root are refused there).
      continue;
    }
    const found = await walkTree(rootReal, rel, {
      ...WALK_LIMITS,
      skipDirNames: SKIPPED_DIRS,
      skipHiddenDirs: true,
      gitignore: true,
      extraIgnores,
      wantFile: (name) => languageOf(name) !== undefined,
    });
    // Symlinked files are not formatted in a walk: the target is formatted under its own name.
    for (const file of found.files) {
      if (file.linkTarget) walk.skipped.push({ rel: file.rel, kind: 'file', reason: 'a symlink; its target is formatted under its own path' });
      else out.add(file.rel);
    }
    walk.skipped.push(...found.skipped);
    walk.ignoredCount += found.ignoredCount;
    walk.truncated ??= found.truncated;
    if (out.size > MAX_FILES) throw new FormatboxError('INVALID_REQUEST', `more than ${MAX_FILES} files; name fewer paths`);
  }
  return { files: [...out].sort(), errors, walk };
}

/** A progress line on stderr, redrawn at most 10 times a second. */
function createProgress(total: number): { tick(): void; clear(): void; say(line: string): void } {
  // From the first file answered: the set-up before it (a native pass, a worker's start) is not a rate.
  let started: number | undefined;
  let done = 0;
  let drawnAt = 0;
  let shown = false;
  return {
    tick() {
      done++;
      const now = performance.now();
      started ??= now;
      if (now - drawnAt < 100 && done < total) return;
      drawnAt = now;
      const seconds = (now - started) / 1000;
      const rate = done / Math.max(seconds, 0.001);
      const eta = rate > 0 ? (total - done) / rate : 0;
      process.stderr.write(`\r\x1b[K[${done}/${total}] ${rate.toFixed(0)} files/s, ETA ${eta.toFixed(0)} s`);
      shown = true;
    },
    clear() {
      if (shown) process.stderr.write('\r\x1b[K');
      shown = false;
    },
    /** A line in the progress line's place until the next tick. */
    say(line) {
      process.stderr.write(`\r\x1b[K${line}`);
      shown = true;
    },
  };
}

function realParent(abs: string): string {
  try {
    return join(realpathSync(dirname(abs)), basename(abs));
  } catch {
    return abs; // a missing parent: reported as missing below
  }
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}
