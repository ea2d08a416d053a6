/**
 * `formatbox format [--check|--write] [--json] [--threads N] [--no-cache] [--no-native] [--ignore-path FILE] PATHS…`:
 * the project-wide mode's printing and exit codes. The work is `formatTree` (src/node/project/):
 * this finds each named path's project root, and prints the outcomes it yields in path order (a
 * line per file that was or would be reformatted or failed; `--json`: one JSON line per file and a
 * final `{"summary": …}` line), a progress line on a TTY (done/total, files/s, ETA), and a summary.
 * Exit 0: ok. 1: `--check` found files that would change. 2 (EXIT_FORMAT_FAILED): a file could not be
 * formatted (syntax error, timeout, refusal) or a named path is bad.
 */
import { lstatSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { shownPath } from '../core/shown.js';
import { resolveRoot } from '../node/fs/paths.js';
import { formatTree, type TreeOutcome, type TreeReport } from '../node/project/format-tree.js';
import type { NativeOutcome, NativePass } from '../node/project/native-biome-pass.js';
import { toPosix } from '../node/project/list.js';
import type { WalkResult } from '../node/walk.js';
import { EXIT_FORMAT_FAILED, EXIT_OK, EXIT_WOULD_CHANGE } from './exit-codes.js';
import { quietOnEpipe } from './epipe.js';
import { formatJsonStatus } from './format-args.js';
import type { Flags } from './flags.js';
import type { HandlerOptions } from './requests.js';
import { allowedRoot, placeRequest, saysNoRoot, withNoRootReason } from './request-root.js';

type FormatFlags = Pick<Flags, 'positional' | 'check' | 'json'> & Partial<Pick<Flags, 'threads' | 'cache' | 'native' | 'ignorePaths'>>;

interface Counts {
  formatted: number;
  unchanged: number;
  cached: number;
  /** Of `cached`: answered before any engine or worker started (the tree cache). */
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
    const { request, noRoot } = placeRequest({ method: 'format', path: probe }, { cwd: root, named: true });
    const rootReal = resolveRoot(request.root);
    const group = groups.get(rootReal) ?? { rootReal, named: [], noRoot: false };
    group.named.push(abs);
    group.noRoot ||= noRoot;
    groups.set(rootReal, group);
  }
  return [...groups.values()];
}

export async function runFormat(root: string, flags: FormatFlags, options: HandlerOptions): Promise<number> {
  const started = performance.now();
  const groups = projectGroups(root, flags.positional.length > 0 ? flags.positional : ['.'], options.findRoot === true);
  // Paths are shown relative to the working directory when each file's root was found, else to --root.
  const shownFrom = options.findRoot === true ? resolveRoot(root) : undefined;
  const counts: Counts = { formatted: 0, unchanged: 0, cached: 0, cachedBeforeStart: 0, skipped: 0, failed: 0 };
  const reports: TreeReport[] = [];
  const out = createLineOut();
  let total = 0;
  for (const group of groups) {
    const shown = (rel: string): string => (shownFrom && shownFrom !== group.rootReal ? toPosix(relative(shownFrom, join(group.rootReal, rel))) : rel);
    let progress: ReturnType<typeof createProgress> | undefined;
    const run = formatTree({
      root: group.rootReal,
      paths: group.named,
      check: flags.check,
      ...(options.trust ? { trust: options.trust } : {}),
      ...(options.config ? { config: options.config } : {}),
      ...(flags.cache === false ? { cache: false } : {}),
      ...(flags.native === false ? { native: false } : {}),
      ...(flags.threads !== undefined ? { threads: flags.threads } : {}),
      ...(flags.ignorePaths ? { ignorePaths: flags.ignorePaths } : {}),
      // Native Biome starts early for one project only: several at once would contend for the cores.
      startNativeEarly: groups.length === 1,
      onListed: (files) => {
        total += files;
        // Native Biome has started: now the output streams (created on first use, ~6 ms on a pipe).
        quietOnEpipe();
        if (process.stderr.isTTY === true && !flags.json) progress = createProgress(files);
      },
      onStage: (line) => progress?.say(line),
    });
    reports.push(run.report);
    try {
      for await (const outcome of run) {
        const placed: TreeOutcome = outcome.kind === 'error' ? outcome : { ...outcome, path: shown(outcome.path), receipt: withNoRootReason(outcome.receipt, group.noRoot) };
        countOutcome(counts, placed);
        progress?.clear();
        printOutcome(placed, flags, out.write);
        progress?.tick();
      }
    } finally {
      out.flush();
      progress?.clear();
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const walk: WalkResult = { files: [], skipped: reports.flatMap((r) => r.walk.skipped), ignoredCount: reports.reduce((n, r) => n + r.walk.ignoredCount, 0), ignoreProblems: [] };
  const truncated = reports.find((r) => r.walk.truncated)?.walk.truncated;
  if (truncated) walk.truncated = truncated;
  const nativeOutcomes = reports.flatMap((r) => (r.native ? [r.native] : []));
  const threads = Math.max(1, ...reports.map((r) => r.threads));
  const cacheOff = reports.find((r) => r.cache.off)?.cache.off;
  const cacheFiles = reports.flatMap((r) => (r.cache.file ? [r.cache.file] : []));
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
    cache: cacheOff ?? (cacheFiles.length > 0 ? cacheFiles.join(', ') : 'off'),
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
  for (const problem of reports.flatMap((r) => (r.cache.problem ? [r.cache.problem] : []))) process.stderr.write(`formatbox: ${problem}\n`);
  if (counts.failed > 0) return EXIT_FORMAT_FAILED;
  return flags.check && counts.formatted > 0 ? EXIT_WOULD_CHANGE : EXIT_OK;
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
      ? `native Biome ${o.used.version} (sandboxed) ${o.used.written ? `formatted ${o.used.files} files in ${o.used.seconds.toFixed(2)} s (a scratch copy) and formatbox wrote ${o.used.written.written.size}${o.used.written.notUsed ? ` (then stopped: ${o.used.written.notUsed})` : ''}` : `checked ${o.used.files} files in ${o.used.seconds.toFixed(2)} s`}; ${leftToWasm(o.used, check)} went on to Biome's wasm build`
      : `native Biome not used (${o.notUsed}); Biome's wasm build formats its files`,
  );
}

function countOutcome(counts: Counts, outcome: TreeOutcome): void {
  if (outcome.kind === 'error') counts.failed++;
  else counts[outcome.kind]++;
  if (outcome.kind !== 'error' && outcome.cached) counts.cached++;
  if (outcome.kind !== 'error' && outcome.cached && outcome.receipt.formatter === undefined) counts.cachedBeforeStart++;
}

function printOutcome(outcome: TreeOutcome, flags: FormatFlags, write: (text: string) => void): void {
  const { path } = outcome;
  if (outcome.kind === 'error') {
    if (flags.json) write(JSON.stringify({ path, error: { code: outcome.code, message: outcome.message } }) + '\n');
    else write(`error: ${shownPath(path)}: ${outcome.message}\n`);
    return;
  }
  const { receipt } = outcome;
  if (flags.json) {
    const status = formatJsonStatus(receipt.status, flags.check);
    write(JSON.stringify({ path, status, line: receipt.line, ...(receipt.formatter ? { formatter: receipt.formatter } : {}), ...(receipt.reason ? { reason: receipt.reason } : {}), ...(outcome.cached ? { cached: true } : {}) }) + '\n');
  } else if (outcome.kind === 'formatted' || outcome.kind === 'failed' || saysNoRoot(receipt)) {
    write(`${outcome.kind === 'formatted' && flags.check ? `would reformat: ${shownPath(path)}` : receipt.line}\n`);
  }
}

/** Text gathered before a write: a block of lines at most this long, or this old. */
const LINE_BLOCK_CHARS = 32 * 1024;
const LINE_BLOCK_MS = 100;

/**
 * The per-file lines on stdout. On a terminal each is written as it comes; on a pipe or a file they
 * go in blocks (at most 32 KiB or 100 ms old): a write per file cost the main thread ~0.15 ms, time
 * the workers formatting on the same cores are short of. `flush` before anything else is printed.
 */
function createLineOut(): { write: (text: string) => void; flush: () => void } {
  if (process.stdout.isTTY === true) return { write: (text) => void process.stdout.write(text), flush: () => undefined };
  let pending: string[] = [];
  let chars = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const block = pending.join('');
    pending = [];
    chars = 0;
    process.stdout.write(block);
  };
  return {
    write(text) {
      pending.push(text);
      chars += text.length;
      if (chars >= LINE_BLOCK_CHARS) flush();
      else timer ??= setTimeout(flush, LINE_BLOCK_MS);
    },
    flush,
  };
}

const NOT_WALKED_SHOWN = 20;

function printNotWalked(walk: WalkResult): void {
  for (const item of walk.skipped.slice(0, NOT_WALKED_SHOWN)) process.stderr.write(`not walked: ${shownPath(item.rel)} (${item.reason})\n`);
  if (walk.skipped.length > NOT_WALKED_SHOWN) process.stderr.write(`not walked: ${walk.skipped.length - NOT_WALKED_SHOWN} more (--json lists them)\n`);
  if (walk.truncated) process.stderr.write(`formatbox: the walk was cut short: ${walk.truncated}\n`);
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
