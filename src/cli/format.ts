/**
 * `formatbox format [-c|-w|-l] [--json] [--threads N] [--no-cache] [--no-native] [--ignore-path FILE] [PATHS…]`:
 * the project-wide mode's printing and exit codes. The work is `formatTree` (src/node/project/):
 * this finds each named path's project root, and hands the outcomes it yields, in path order, to
 * format-output.ts (the conventions a person sees; `--json`: one JSON line per file and a final
 * `{"summary": …}` line), with a progress line on a TTY for every phase. A file over its time budget
 * is formatted again alone with a larger one before it counts as timed out.
 * Exit 0: ok. 1: `--check` (or `-l`) found files that would change. 2 (EXIT_FORMAT_FAILED): a file
 * could not be formatted (syntax error, timeout, refusal).
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
import type { HandlerOptions } from '../node/service/requests.js';
import { allowedRoot, placeRequest, saysNoRoot, withNoRootReason } from '../node/service/request-root.js';
import { paintFor, plural, type Paint } from './colour.js';
import { createFormatOutput, type FileVerdict, type VerdictCounts } from './format-output.js';
import { resolveLimits } from '../config/limits.js';
import { realPathOf } from '../node/project-root.js';

type FormatFlags = Pick<Flags, 'positional' | 'check' | 'json'> &
  Partial<Pick<Flags, 'threads' | 'cache' | 'native' | 'ignorePaths' | 'listDifferent' | 'ignoreUnknown' | 'verbose' | 'logLevel' | 'color'>>;

/** What only the JSON summary and the --verbose details count. */
interface RunCounts {
  cached: number;
  /** Files over the budget on the first pass, formatted again with the larger one. */
  retried: number;
  /** Of `cached`: answered before any engine or worker started (the tree cache). */
  cachedBeforeStart: number;
}

/**
 * A file over its budget is formatted again, alone, with this many times the budget before it counts
 * as timed out: the budget guards against a hung formatter, and a slow file on a loaded machine
 * (other workers, other processes on the cores) must get the same verdict as on an idle one.
 */
const RETRY_BUDGET_FACTOR = 3;

/**
 * The files named, grouped by the project root they are formatted in. With --root, one group. Without
 * (`findRoot`), each named path finds its own project root from its location (request-root.ts
 * `decideNamedRoot`): the nearest VCS root, else the nearest formatter config, wherever the command runs.
 */
interface ProjectGroup {
  rootReal: string;
  /** Absolute paths named, in this group. */
  named: string[];
  /** No project root was found: the file's directory or the working directory stood in. */
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
  const output = createFormatOutput({ ...flags, check: flags.check });
  const counts: RunCounts = { cached: 0, retried: 0, cachedBeforeStart: 0 };
  const reports: TreeReport[] = [];
  const out = createLineOut();
  const budgetMs = resolveLimits(options.config).timeoutMs;
  // Said once per run, not per file: a pinned version that did not run, and why (offline, not fetched).
  const versionNotes = new Set<string>();
  let total = 0;
  for (const group of groups) {
    const shown = (rel: string): string => (shownFrom && shownFrom !== group.rootReal ? toPosix(relative(shownFrom, join(group.rootReal, rel))) : rel);
    const namedFiles = new Set(group.named.filter((abs) => lstatSync(abs, { throwIfNoEntry: false })?.isFile()).map((abs) => realPathOf(abs)));
    const progress = process.stderr.isTTY === true && !flags.json && output.shows('warn') ? createProgress(paintFor(process.stderr, flags)) : undefined;
    progress?.say(`listing files in ${shownPath(shownFrom ? toPosix(relative(shownFrom, group.rootReal)) || '.' : group.rootReal)}…`);
    const run = (paths: string[], retry: boolean) =>
      formatTree({
        root: group.rootReal,
        paths,
        check: flags.check,
        ...(options.trust ? { trust: options.trust } : {}),
        // The retry: the same config with the larger budget, one file at a time, no native pass.
        ...(retry ? { config: { ...options.config, timeoutMs: budgetMs * RETRY_BUDGET_FACTOR }, threads: 1, native: false } : options.config ? { config: options.config } : {}),
        ...(flags.cache === false ? { cache: false } : {}),
        ...(flags.native === false ? { native: false } : {}),
        ...(flags.threads !== undefined && !retry ? { threads: flags.threads } : {}),
        ...(flags.ignorePaths ? { ignorePaths: flags.ignorePaths } : {}),
        // Native Biome starts early for one project only: several at once would contend for the cores.
        startNativeEarly: groups.length === 1 && !retry,
        onListed: (files) => {
          if (!retry) total += files;
          // Native Biome has started: now the output streams (created on first use, ~6 ms on a pipe).
          quietOnEpipe();
          progress?.setTotal(files);
        },
        onStage: (line) => progress?.say(line),
      });
    const timedOut: string[] = [];
    for (const retry of [false, true]) {
      if (retry && timedOut.length === 0) break;
      if (retry) counts.retried += timedOut.length;
      if (retry) progress?.say(`${plural(timedOut.length, 'file')} over the ${budgetMs} ms budget: formatting again, alone, with ${budgetMs * RETRY_BUDGET_FACTOR} ms…`);
      const tree = run(retry ? timedOut.map((rel) => join(group.rootReal, rel)) : group.named, retry);
      reports.push(tree.report);
      try {
        for await (const outcome of tree) {
          if (!retry && outcome.kind === 'failed' && outcome.receipt.status === 'timeout') {
            timedOut.push(outcome.path);
            continue;
          }
          const placed: TreeOutcome = outcome.kind === 'error' ? { ...outcome, path: shown(outcome.path) } : { ...outcome, path: shown(outcome.path), receipt: withNoRootReason(outcome.receipt, group.noRoot) };
          if (placed.kind !== 'error' && placed.cached) counts.cached++;
          const ran = placed.kind !== 'error' ? placed.receipt.formatter : undefined;
          if (ran?.pinnedNote && ran.pinned) versionNotes.add(`${ran.name} ${ran.version} ran, not the ${ran.pinned} the project pins: ${ran.pinnedNote}`);
          if (placed.kind !== 'error' && placed.cached && placed.receipt.formatter === undefined) counts.cachedBeforeStart++;
          progress?.clear();
          if (flags.json) printJson(placed, flags, out.write);
          else output.file(verdictOf(placed, outcome.path, group.noRoot, namedFiles.has(join(group.rootReal, outcome.path))), out.write);
          if (flags.json) countJson(output.counts, placed);
          progress?.tick();
        }
      } finally {
        out.flush();
        progress?.clear();
      }
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const firstRuns = reports.filter((_, index) => index === 0 || reports[index - 1]?.root !== reports[index]?.root);
  const walk: WalkResult = { files: [], skipped: firstRuns.flatMap((r) => r.walk.skipped), ignoredCount: firstRuns.reduce((n, r) => n + r.walk.ignoredCount, 0), ignoreProblems: [] };
  const truncated = reports.find((r) => r.walk.truncated)?.walk.truncated;
  if (truncated) walk.truncated = truncated;
  const nativeOutcomes = reports.flatMap((r) => (r.native ? [r.native] : []));
  const threads = Math.max(1, ...reports.map((r) => r.threads));
  const cacheOff = reports.find((r) => r.cache.off)?.cache.off;
  const cacheFiles = [...new Set(reports.flatMap((r) => (r.cache.file ? [r.cache.file] : [])))];
  const c = output.counts;
  const summary = {
    files: total,
    [flags.check ? 'wouldChange' : 'formatted']: c.formatted,
    unchanged: c.unchanged,
    fromCache: counts.cached,
    fromCacheBeforeStart: counts.cachedBeforeStart,
    skipped: c.skipped,
    failed: c.failed,
    timedOut: c.timedOut,
    retriedAfterTimeout: counts.retried,
    notWalked: walk.skipped.length,
    ignoredByIgnoreFiles: walk.ignoredCount,
    ...(walk.truncated ? { truncated: walk.truncated } : {}),
    threads,
    ...nativeSummary(nativeOutcomes, flags.check),
    cache: cacheOff ?? (cacheFiles.length > 0 ? cacheFiles.join(', ') : 'off'),
    seconds: Math.round(seconds * 1000) / 1000,
    filesPerSecond: Math.round(total / Math.max(seconds, 0.001)),
  };
  const problems = reports.flatMap((r) => (r.cache.problem ? [r.cache.problem] : []));
  if (flags.json) {
    for (const item of walk.skipped) process.stdout.write(JSON.stringify({ path: item.rel, status: 'not walked', reason: item.reason }) + '\n');
    process.stdout.write(JSON.stringify({ summary }) + '\n');
  } else {
    if (walk.truncated && output.shows('error')) process.stderr.write(`formatbox: the walk was cut short: ${walk.truncated}\n`);
    for (const problem of problems) if (output.shows('error')) process.stderr.write(`formatbox: ${problem}\n`);
    for (const note of versionNotes) if (output.shows('warn')) process.stderr.write(`formatbox: ${note}\n`);
    output.summary([
      `${seconds.toFixed(2)} s, ${summary.filesPerSecond} files/s, ${plural(threads, 'thread')}; ${counts.cached} answered from the cache (${summary.cache})${counts.retried > 0 ? `; ${plural(counts.retried, 'file')} over the ${budgetMs} ms budget formatted again with ${budgetMs * RETRY_BUDGET_FACTOR} ms` : ''}`,
      ...nativeLines(nativeOutcomes, flags.check),
      ...notWalkedLines(walk),
    ]);
  }
  if (c.failed + c.timedOut > 0) return EXIT_FORMAT_FAILED;
  return flags.check && c.formatted > 0 ? EXIT_WOULD_CHANGE : EXIT_OK;
}

/** What a person is shown of an outcome (format-output.ts). `rel`: the path the receipt's line names. */
function verdictOf(outcome: TreeOutcome, rel: string, noRoot: boolean, named: boolean): FileVerdict {
  const { path } = outcome;
  if (outcome.kind === 'error') return { kind: 'failed', path, message: outcome.message };
  const { receipt } = outcome;
  if (outcome.kind === 'failed') return { kind: receipt.status === 'timeout' ? 'timed out' : 'failed', path, message: receipt.reason ?? afterPath(receipt.line, rel) };
  if (outcome.kind === 'skipped') return { kind: 'skipped', path, reason: receipt.reason ?? 'no formatter', named, noRoot: noRoot || saysNoRoot(receipt) };
  return { kind: outcome.kind, path, line: receipt.line };
}

/** A cached failure keeps only its line (`formatter failed (…): PATH: MESSAGE`): the message, for the one per-file form. */
function afterPath(line: string, rel: string): string {
  const marker = `: ${shownPath(rel)}: `;
  const at = line.indexOf(marker);
  return at === -1 ? line : line.slice(at + marker.length);
}

/** The --json counts: the output's counts, without its printing. */
function countJson(counts: VerdictCounts, outcome: TreeOutcome): void {
  counts.files++;
  if (outcome.kind === 'error') counts.failed++;
  else if (outcome.kind === 'failed' && outcome.receipt.status === 'timeout') counts.timedOut++;
  else counts[outcome.kind]++;
}

function printJson(outcome: TreeOutcome, flags: FormatFlags, write: (text: string) => void): void {
  const { path } = outcome;
  if (outcome.kind === 'error') {
    write(JSON.stringify({ path, error: { code: outcome.code, message: outcome.message } }) + '\n');
    return;
  }
  const { receipt } = outcome;
  const status = formatJsonStatus(receipt.status, flags.check);
  write(JSON.stringify({ path, status, line: receipt.line, ...(receipt.formatter ? { formatter: receipt.formatter } : {}), ...(receipt.reason ? { reason: receipt.reason } : {}), ...(outcome.cached ? { cached: true } : {}) }) + '\n');
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

/** The --verbose lines for what the walk did not enter (--json lists them all). */
function notWalkedLines(walk: WalkResult): string[] {
  const lines = walk.skipped.slice(0, NOT_WALKED_SHOWN).map((item) => `not walked: ${shownPath(item.rel)} (${item.reason})`);
  if (walk.skipped.length > NOT_WALKED_SHOWN) lines.push(`not walked: ${walk.skipped.length - NOT_WALKED_SHOWN} more (--json lists them)`);
  return lines;
}

/**
 * A progress line on stderr (a TTY), redrawn at most 10 times a second: each phase says what it does
 * (listing, native Biome, a retry) until the files' count takes over.
 */
function createProgress(paint: Paint): { setTotal(files: number): void; tick(): void; clear(): void; say(line: string): void } {
  // From the first file answered: the set-up before it (a native pass, a worker's start) is not a rate.
  let started: number | undefined;
  let total = 0;
  let done = 0;
  let drawnAt = 0;
  let shown = false;
  return {
    setTotal(files) {
      total = files;
      done = 0;
      started = undefined;
      this.say(`${plural(files, 'file')} listed; formatting…`);
    },
    tick() {
      done++;
      const now = performance.now();
      started ??= now;
      if (now - drawnAt < 100 && done < total) return;
      drawnAt = now;
      const seconds = (now - started) / 1000;
      const rate = done / Math.max(seconds, 0.001);
      const eta = rate > 0 ? (total - done) / rate : 0;
      process.stderr.write(`\r\x1b[K${paint.dim(`[${done}/${total}] ${rate.toFixed(0)} files/s, ETA ${eta.toFixed(0)} s`)}`);
      shown = true;
    },
    clear() {
      if (shown) process.stderr.write('\r\x1b[K');
      shown = false;
    },
    /** A line in the progress line's place until the next tick. */
    say(line) {
      process.stderr.write(`\r\x1b[K${paint.dim(line)}`);
      shown = true;
    },
  };
}
