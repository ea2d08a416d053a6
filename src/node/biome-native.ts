/**
 * Native Biome, run once over many files inside the OS sandbox: the fast first pass of
 * `formatbox format` for files Biome formats (Biome's wasm build alone takes 1.6× native
 * Biome's time, so no pool of wasm workers reaches native speed).
 *
 * The binary is formatbox's own: the official `@biomejs/cli-<platform>` build at the version of the
 * wasm build, installed beside formatbox by the user, or fetched on first use into the formatter
 * store (verified against the registry's integrity), never anything from the project. It runs as
 * `biome format --reporter=summary --verbose` on the directories or files named, with the project visible read-only, no
 * network, a cleared environment and a time limit (the `Sandbox` port). It reads the project's Biome config
 * itself: what it says is what Biome's own CLI says.
 *
 * Its answer: a file it lists as processed and no diagnostic names is formatted; a file whose only
 * diagnostic is "needs to be formatted" would change (`wouldChange`). Every other file it has
 * anything to say about (parse error, too large, unreadable), and every file it did not process, is
 * left to the normal per-file path. When its report cannot be
 * trusted whole (an unknown line, counts that do not add up, cut short), none of it is used and the
 * caller says why.
 */
import { createRequire } from 'node:module';
import { lstatSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readBoundedText } from './fs/read-bounded.js';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { Sandbox } from '../core/sandbox.js';
import { messageOf } from '../core/errors.js';
import { BIOME_VERSION } from '../formatters/biome/adapter.js';
import { isInside } from './fs/paths.js';
import { createFormatterStore, type FormatterStore } from './formatter-store/store.js';
import { nativeBiomePackage } from './pinned-biome-native.js';

/** formatbox's native Biome build. */
export interface NativeBiome {
  binary: string;
  version: string;
  /** The package directory, made visible read-only in the sandbox. */
  packageDir: string;
}

/** Biome's platform packages for this machine (on Linux, the glibc and the musl build). */
function platformPackages(platform: string, arch: string): string[] {
  const base = `@biomejs/cli-${platform}-${arch}`;
  return platform === 'linux' ? [base, `${base}-musl`] : [base];
}

let musl: boolean | undefined;
/** Asked only when both Linux builds are installed (npm installs the one matching the C library), or before a fetch. */
function isMusl(): boolean {
  if (musl !== undefined) return musl;
  try {
    const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
    musl = report?.header?.glibcVersionRuntime === undefined;
  } catch {
    musl = false;
  }
  return musl;
}

/** The store formatbox fetches its own native Biome into (the formatter store, formatter-store/). */
type NativeStore = Pick<FormatterStore, 'lookup' | 'fetch' | 'isStored' | 'dir'>;

/**
 * formatbox's own native Biome, or why there is none it may use: the optional package
 * `@biomejs/cli-<platform>` where the user installed it (beside formatbox), else the build the
 * formatter store holds, verified, from an earlier `fetchNativeBiomeIfAbsent`. Never fetches.
 */
export function findNativeBiome(from: string = import.meta.url, store: NativeStore = defaultStore()): NativeBiome | { unavailable: string } {
  const names = platformPackages(process.platform, process.arch);
  const chosen = installedNativeBiome(from);
  if (!chosen) return storedNativeBiome(store) ?? { unavailable: `no native Biome build for ${process.platform}-${process.arch} is installed (${names[0]}@${BIOME_VERSION}) or fetched yet${fetchableNativeBiome() ? ' (`formatbox format` fetches it on first use)' : ''}` };
  try {
    const { version } = JSON.parse(readFileSync(chosen.manifest, 'utf8')) as { version?: unknown };
    if (version !== BIOME_VERSION) return { unavailable: `${chosen.name} is ${String(version)}, the wasm build is ${BIOME_VERSION}` };
    const packageDir = dirname(chosen.manifest);
    return { binary: join(packageDir, process.platform === 'win32' ? 'biome.exe' : 'biome'), version, packageDir };
  } catch (error) {
    return { unavailable: `${chosen.name}: ${messageOf(error)}` };
  }
}

/** How long a first-use fetch of the native build may take (packument and tarball) before the run goes on without it. */
const FETCH_MS = 30_000;
/** After a failed fetch, runs do not try again for this long (an offline machine does not wait on every run). */
const RETRY_AFTER_MS = 60 * 60 * 1000;

/**
 * Where formatbox has no native Biome yet (not installed, nothing in the store), the official build
 * of its Biome version for this machine, fetched into the formatter store (the registry's integrity
 * checked, as for any pinned version), or why it could not be fetched; `undefined` when there was
 * nothing to fetch (`findNativeBiome` answers). Only for a caller that can run it (the sandbox
 * exists); when it cannot be fetched, the wasm build does the work and the run says why.
 */
export async function fetchNativeBiomeIfAbsent(options: { from?: string; store?: NativeStore } = {}): Promise<NativeBiome | { unavailable: string } | undefined> {
  const store = options.store ?? defaultStore();
  const name = fetchableNativeBiome();
  if (!name || installedNativeBiome(options.from) || store.isStored(name, BIOME_VERSION)) return undefined;
  const failedFile = join(store.dir, `${name.replace('/', '+')}@${BIOME_VERSION}.fetch-failed`);
  const failed = lastFailure(failedFile);
  if (failed) return { unavailable: `native Biome ${BIOME_VERSION} could not be fetched at ${failed.at} (${failed.reason}); the next try is an hour after that, or install ${name}@${BIOME_VERSION} beside formatbox` };
  try {
    const stored = await store.fetch(name, BIOME_VERSION);
    rmSync(failedFile, { force: true });
    return nativeBiomeIn(stored.dir);
  } catch (error) {
    const reason = messageOf(error);
    try {
      mkdirSync(store.dir, { recursive: true, mode: 0o700 });
      // A new file (O_CREAT|O_EXCL: never written through a name already there, a link included).
      rmSync(failedFile, { force: true });
      writeFileSync(failedFile, JSON.stringify({ at: new Date().toISOString(), reason: reason.slice(0, 500) }), { flag: 'wx', mode: 0o600 });
    } catch {
      // A read-only cache: the next run tries again.
    }
    return { unavailable: `native Biome ${BIOME_VERSION} is not installed and could not be fetched (${reason})` };
  }
}

/** The `@biomejs/cli-<platform>` package resolvable from formatbox, if any (which one: see isMusl). */
function installedNativeBiome(from: string = import.meta.url): { name: string; manifest: string } | undefined {
  const require = createRequire(from);
  const installed = platformPackages(process.platform, process.arch).flatMap((name) => {
    try {
      return [{ name, manifest: require.resolve(`${name}/package.json`) }];
    } catch {
      return [];
    }
  });
  return installed.length > 1 && isMusl() ? installed[1] : installed[0];
}

/** The package the store fetches for this machine; none on musl (the store keeps the glibc build only) or elsewhere. */
function fetchableNativeBiome(): string | undefined {
  const name = nativeBiomePackage();
  return name && !isMusl() ? name : undefined;
}

function storedNativeBiome(store: NativeStore): NativeBiome | undefined {
  const name = fetchableNativeBiome();
  if (!name) return undefined;
  try {
    const stored = store.lookup(name, BIOME_VERSION);
    return stored ? nativeBiomeIn(stored.dir) : undefined;
  } catch {
    return undefined; // an unreadable store is a store without it
  }
}

function nativeBiomeIn(packageDir: string): NativeBiome {
  return { binary: join(packageDir, 'biome'), version: BIOME_VERSION, packageDir };
}

function lastFailure(file: string): { at: string; reason: string } | undefined {
  try {
    // The store's own record (this user's regular file, small), or none.
    const stats = lstatSync(file);
    if (!stats.isFile() || stats.uid !== (process.getuid?.() ?? stats.uid) || Date.now() - stats.mtimeMs > RETRY_AFTER_MS) return undefined;
    const read = readBoundedText(file, 4096);
    if (!read || read.truncated) return undefined;
    const { at, reason } = JSON.parse(read.text) as { at?: unknown; reason?: unknown };
    return typeof at === 'string' && typeof reason === 'string' ? { at, reason } : undefined;
  } catch {
    return undefined;
  }
}

let sharedStore: NativeStore | undefined;
/** One per process, so an entry is verified (hashed) once. */
function defaultStore(): NativeStore {
  return (sharedStore ??= createFormatterStore({ limits: { downloadMs: FETCH_MS } }));
}

export interface NativeCheckOptions {
  timeoutMs?: number;
  /** Stops the run (the result is then `not-used`). */
  signal?: AbortSignal;
}

/** What one run found: the files it processed, and those a diagnostic names (with the first one). */
export type NativeCheck =
  | {
      kind: 'checked';
      processed: Set<string>;
      flagged: Map<string, string>;
      /**
       * Of `flagged`: files whose only diagnostic is "needs to be formatted", in a report with no
       * warning or info (Biome's summary also lists a file over `files.maxSize` there, as a warning)
       * and whose counts add up. For these, native Biome's verdict is the answer: would change.
       */
      wouldChange: Set<string>;
      ms: number;
      /** Wall clock (ms) just before the run started: no file it read was read earlier. */
      startedAtMs: number;
    }
  | { kind: 'not-used'; reason: string };

/** Default wall-clock limit of one run over many files. */
const TIMEOUT_MS = 120_000;
/** Characters of paths per run: far below the kernel's argument limits. */
const MAX_ARG_CHARS = 256 * 1024;
/**
 * The report: a line per file processed, and a line per file in each list of flagged files; no
 * diff (the summary reporter prints none). 100,000 files of long paths stay far below this.
 */
const MAX_REPORT_BYTES = 64 * 1024 * 1024;
/** Biome's stderr with the summary reporter: its closing block, or a config error. */
const MAX_STDERR_BYTES = 1024 * 1024;

/**
 * Runs native Biome in `sandbox` as `biome format --reporter=summary --verbose` over `targets`
 * (directories or files, relative to the root), with `rootReal` visible read-only and the working
 * directory, as `biome format` run in the project. Directories, not a list of files: Biome spends
 * more per file named than per file it walks (~0.06 s more for 2,000 files).
 *
 * The summary reporter lists the files per diagnostic category, with no diff: with the default
 * reporter and `--max-diagnostics=none`, Biome prints the whole new text of every file that would
 * change (10 MB at 2,000 unformatted files, 8–13 s instead of 0.6 s). Its report is read as it
 * streams (`SummaryReportReader`): only paths are kept.
 */
export async function checkWithNativeBiome(sandbox: Sandbox, biome: NativeBiome, rootReal: string, targets: readonly string[], options: NativeCheckOptions = {}): Promise<NativeCheck> {
  const started = performance.now();
  const startedAtMs = Date.now();
  const judged = await runSummarised(sandbox, biome, rootReal, [], targets, options);
  if ('reason' in judged) return { kind: 'not-used', reason: judged.reason };
  return { kind: 'checked', ...judged, ms: performance.now() - started, startedAtMs };
}

/**
 * Runs native Biome as `biome format --write` over `files` (relative to `scratchRoot`) in a scratch
 * copy of the project that formatbox made: the copy is the only thing it may write (bound writable
 * in the sandbox), never the project. The caller reads the files it lists fixed back from the copy
 * and commits them itself.
 */
export async function writeWithNativeBiome(sandbox: Sandbox, biome: NativeBiome, scratchRoot: string, files: readonly string[], options: NativeCheckOptions = {}): Promise<{ kind: 'written'; fixed: Set<string>; processed: Set<string>; flagged: Map<string, string> } | { kind: 'not-used'; reason: string }> {
  const judged = await runSummarised(sandbox, biome, scratchRoot, ['--write'], files, { ...options, writableRoot: true });
  if ('reason' in judged) return { kind: 'not-used', reason: judged.reason };
  return { kind: 'written', fixed: judged.fixed, processed: judged.processed, flagged: judged.flagged };
}

/** `biome format [extra] --reporter=summary --verbose` over `targets` in `root` (its working directory), the report read as it streams. */
async function runSummarised(sandbox: Sandbox, biome: NativeBiome, root: string, extra: readonly string[], targets: readonly string[], options: NativeCheckOptions & { writableRoot?: boolean }): Promise<JudgedReport> {
  if (sandbox.unavailable) return { reason: `no sandbox: ${sandbox.unavailable}` };
  if (targets.reduce((n, t) => n + t.length + 1, 0) > MAX_ARG_CHARS) return { reason: 'too many paths to name' };
  const reader = new SummaryReportReader(root);
  const result = await sandbox.run({
    argv: [biome.binary, 'format', ...extra, '--reporter=summary', '--verbose', '--colors=off', '--no-errors-on-unmatched', '--', ...targets],
    root,
    ...(options.writableRoot ? { writableRoot: true } : {}),
    cwd: root,
    readOnlyPaths: isInside(biome.packageDir, root) ? [] : [biome.packageDir],
    timeoutMs: options.timeoutMs ?? TIMEOUT_MS,
    maxStdoutBytes: MAX_REPORT_BYTES,
    maxStderrBytes: MAX_STDERR_BYTES,
    onStdout: (chunk) => reader.push(chunk),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (result.kind !== 'exit') return { reason: `native Biome ${describeFailure(result)}` };
  const judged = reader.end();
  if (!('reason' in judged)) return judged;
  // Biome's own first words (a config it rejects, say) say more than the shape of its report.
  const said = result.stderr.split('\n').find((line) => line.trim() !== '')?.replace(/\s*━+$/, '').trim().slice(0, 200);
  return { reason: `native Biome${extra.length ? ` ${extra.join(' ')}` : ''} (exit ${result.code}): ${judged.reason}${said ? `; it said: ${said}` : ''}` };
}

/** What `SummaryReportReader` makes of a whole report. */
export type JudgedReport = { processed: Set<string>; flagged: Map<string, string>; wouldChange: Set<string>; fixed: Set<string> } | { reason: string };

/** A block's title: `reporter/<category> ━━━…` (the summary's lists) or ` VERBOSE  ━━━…` (processed, fixed). */
const REPORTER_BLOCK = /^reporter\/([\w/]+) ━+$/;
const VERBOSE_BLOCK = /^ VERBOSE {2}━+$/;
/** The category whose list means "would change" (alone: a parse error is listed under `format` too). */
const FORMAT_CATEGORY = 'format';

/**
 * Reads `biome format --reporter=summary --verbose --colors=off` line by line as it streams:
 * `reporter/<category>` blocks, each a list of `  - path` lines (files with a diagnostic of that
 * category), then ` VERBOSE ` blocks (files processed, files fixed), then the counts. Keeps only
 * paths. Fails closed: an unknown line at column 0, a path listed twice in one list, no "Checked N
 * files" line, or more files checked than listed processed means the report is not used.
 */
export class SummaryReportReader {
  private readonly decoder = new TextDecoder();
  private pending = '';
  private block: { kind: 'category'; name: string } | { kind: 'verbose' } | undefined;
  private list: Set<string> | undefined;
  private readonly lists = new Map<string, Set<string>>();
  private readonly processed = new Set<string>();
  private readonly fixed = new Set<string>();
  private checked: number | undefined;
  private errors = 0;
  private warningsOrInfos = 0;
  private failure: string | undefined;

  constructor(private readonly rootReal: string) {}

  push(chunk: Uint8Array): void {
    if (this.failure) return;
    const text = this.pending + this.decoder.decode(chunk, { stream: true });
    const lines = text.split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) if (!this.failure) this.line(line);
  }

  end(): JudgedReport {
    const rest = this.pending + this.decoder.decode();
    if (rest !== '' && !this.failure) this.line(rest);
    if (this.failure) return { reason: this.failure };
    if (this.checked === undefined) return { reason: 'its report has no "Checked N files" line' };
    // A file over `files.maxSize` is listed processed and not counted as checked: fewer is possible, more is not.
    if (this.checked > this.processed.size) return { reason: `it checked ${this.checked} files and listed ${this.processed.size}` };
    // Errors are counted per diagnostic and listed per file (three parse errors, one line): no sum to check.
    if (this.errors > 0 && this.lists.size === 0) return { reason: `it reported ${this.errors} errors and listed no file` };
    const flagged = new Map<string, string>();
    for (const [category, list] of this.lists) {
      for (const path of list) {
        const message = category === FORMAT_CATEGORY ? 'format: needs to be formatted' : `${category}: a diagnostic`;
        // The other category says more than "format" (a parse error is listed under both).
        if (!flagged.has(path) || category !== FORMAT_CATEGORY) flagged.set(path, message);
      }
    }
    const wouldChange = new Set<string>();
    const trusted = this.checked === this.processed.size && this.warningsOrInfos === 0;
    if (trusted) {
      for (const path of this.lists.get(FORMAT_CATEGORY) ?? []) {
        if (this.processed.has(path) && [...this.lists].every(([category, list]) => category === FORMAT_CATEGORY || !list.has(path))) wouldChange.add(path);
      }
    }
    if ([...this.fixed].some((path) => !this.processed.has(path))) return { reason: 'it listed a file fixed that it did not list processed' };
    return { processed: this.processed, flagged, wouldChange, fixed: this.fixed };
  }

  private line(line: string): void {
    const category = REPORTER_BLOCK.exec(line);
    if (category) {
      this.block = { kind: 'category', name: category[1] as string };
      this.list = undefined;
      return;
    }
    if (VERBOSE_BLOCK.test(line)) {
      this.block = { kind: 'verbose' };
      this.list = undefined;
      return;
    }
    if (line.startsWith('  i ')) {
      // A list's title: in a category block, its files; in a verbose block, processed or fixed.
      if (this.block?.kind === 'category') this.list = this.listOf(this.block.name);
      else this.list = line === '  i Files processed:' ? this.processed : line === '  i Files fixed:' ? this.fixed : undefined;
      return;
    }
    if (line.startsWith('  - ')) {
      if (!this.list) return; // a list this reader does not know: its files are not used
      const path = projectPath(line.slice(4), this.rootReal);
      // A file name with a line break in it prints as several lines: one of them would repeat a real
      // file (every flagged file is also listed processed), another could name a file never processed.
      if (this.list.has(path)) {
        this.failure = `it listed ${path} twice (a file name with a line break?)`;
        return;
      }
      this.list.add(path);
      return;
    }
    if (line.trim() === '' || line.startsWith('  ')) return;
    // `Checked N files in …` (a check); `Formatted N files in …. Fixed M files.` (--write).
    const count = /^(?:Checked|Formatted) (\d+) files? in /.exec(line);
    if (count) {
      this.checked = Number(count[1]);
      return;
    }
    const total = /^Found (\d+) (errors?|warnings?|infos?)\.$/.exec(line);
    if (total) {
      if (total[2]!.startsWith('error')) this.errors += Number(total[1]);
      else this.warningsOrInfos += Number(total[1]);
      return;
    }
    if (!/^(Scanned project folder in |Fixed )/.test(line)) this.failure = `an unknown line in its report: ${line.slice(0, 120)}`;
  }

  private listOf(category: string): Set<string> {
    let list = this.lists.get(category);
    if (!list) this.lists.set(category, (list = new Set()));
    return list;
  }
}

/** Reads a whole summary report at once (the streaming reader, fed one chunk). */
export function judgeSummaryReport(stdout: string, rootReal: string): JudgedReport {
  const reader = new SummaryReportReader(rootReal);
  reader.push(new TextEncoder().encode(stdout));
  return reader.end();
}

/** A reported path (relative to the working directory, the root, or absolute) as a project-relative POSIX path. */
function projectPath(raw: string, rootReal: string): string {
  const rel = isAbsolute(raw) ? relative(rootReal, raw) : raw;
  return rel.split(sep).join('/').replace(/^\.\//, '');
}

function describeFailure(result: Exclude<Awaited<ReturnType<Sandbox['run']>>, { kind: 'exit' }>): string {
  switch (result.kind) {
    case 'timeout':
      return `timed out after ${Math.round(result.ms)} ms`;
    case 'output-limit':
      return `wrote more than ${MAX_REPORT_BYTES} bytes of report`;
    case 'refused':
      return `was refused by the sandbox: ${result.reason}`;
    case 'aborted':
      return 'was stopped';
    case 'error':
      return `could not start: ${result.message}`;
  }
}
