/**
 * Native Biome, run once over many files inside the OS sandbox: the fast first pass of
 * `formatbox format` for files Biome formats (issue 13: Biome's wasm build alone is 1.6× native
 * Biome's time, so no pool of wasm workers reaches native speed).
 *
 * The binary is formatbox's own `@biomejs/cli-<platform>` package (an optional dependency pinned to
 * the version of the wasm build, checked here), never anything from the project. It runs as
 * `biome format --verbose` on the directories or files named, with the project visible read-only, no
 * network, a cleared environment and a time limit (the `Sandbox` port). It reads the project's Biome config
 * itself: what it says is what Biome's own CLI says.
 *
 * Its answer is used one way only: a file it lists as processed and no diagnostic names is formatted.
 * Every file it has anything to say about (would change, parse error, too large, unreadable), and
 * every file it did not process, is left to the normal per-file path. When its report cannot be
 * trusted whole (an unknown line, counts that do not add up, cut short), none of it is used and the
 * caller says why.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { Sandbox } from '../core/sandbox.js';
import { messageOf } from '../core/errors.js';
import { BIOME_VERSION } from '../formatters/biome.js';
import { isInside } from './fs/paths.js';

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

/** Asked only when both Linux builds are installed (npm installs the one matching the C library). */
function isMusl(): boolean {
  try {
    const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
    return report?.header?.glibcVersionRuntime === undefined;
  } catch {
    return false;
  }
}

/** formatbox's own native Biome, or why there is none it may use. */
export function findNativeBiome(from: string = import.meta.url): NativeBiome | { unavailable: string } {
  const require = createRequire(from);
  const names = platformPackages(process.platform, process.arch);
  const installed = names.flatMap((name) => {
    try {
      return [{ name, manifest: require.resolve(`${name}/package.json`) }];
    } catch {
      return [];
    }
  });
  const chosen = installed.length > 1 && isMusl() ? installed[1] : installed[0];
  if (!chosen) return { unavailable: `no native Biome build for ${process.platform}-${process.arch} is installed (optional dependency ${names[0]})` };
  try {
    const { version } = JSON.parse(readFileSync(chosen.manifest, 'utf8')) as { version?: unknown };
    if (version !== BIOME_VERSION) return { unavailable: `${chosen.name} is ${String(version)}, the wasm build is ${BIOME_VERSION}` };
    const packageDir = dirname(chosen.manifest);
    return { binary: join(packageDir, process.platform === 'win32' ? 'biome.exe' : 'biome'), version, packageDir };
  } catch (error) {
    return { unavailable: `${chosen.name}: ${messageOf(error)}` };
  }
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
      ms: number;
      /** Wall clock (ms) just before the run started: no file it read was read earlier. */
      startedAtMs: number;
    }
  | { kind: 'not-used'; reason: string };

/** Default wall-clock limit of one run over many files. */
const TIMEOUT_MS = 120_000;
/** Characters of paths per run: far below the kernel's argument limits. */
const MAX_ARG_CHARS = 256 * 1024;
/** The report: a line per file processed (stdout); the diagnostics, with the new text of each file that would change (stderr). */
const MAX_REPORT_BYTES = 256 * 1024 * 1024;

/**
 * Runs native Biome in `sandbox` as `biome format --verbose` over `targets` (directories or files,
 * relative to the root), with `rootReal` visible read-only and the working directory, as
 * `biome format` run in the project. Directories, not a list of files: Biome spends more per file
 * named than per file it walks (~0.06 s more for 2,000 files).
 */
export async function checkWithNativeBiome(sandbox: Sandbox, biome: NativeBiome, rootReal: string, targets: readonly string[], options: NativeCheckOptions = {}): Promise<NativeCheck> {
  if (sandbox.unavailable) return { kind: 'not-used', reason: `no sandbox: ${sandbox.unavailable}` };
  if (targets.reduce((n, t) => n + t.length + 1, 0) > MAX_ARG_CHARS) return { kind: 'not-used', reason: 'too many paths to name' };
  const started = performance.now();
  const startedAtMs = Date.now();
  const result = await sandbox.run({
    argv: [biome.binary, 'format', '--verbose', '--colors=off', '--max-diagnostics=none', '--no-errors-on-unmatched', '--', ...targets],
    root: rootReal,
    cwd: rootReal,
    readOnlyPaths: isInside(biome.packageDir, rootReal) ? [] : [biome.packageDir],
    timeoutMs: options.timeoutMs ?? TIMEOUT_MS,
    maxStdoutBytes: MAX_REPORT_BYTES,
    maxStderrBytes: MAX_REPORT_BYTES,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (result.kind !== 'exit') return { kind: 'not-used', reason: `native Biome ${describeFailure(result)}` };
  // The sandbox keeps the first bytes of stderr and drops the rest: a report that reached the limit is not whole.
  if (Buffer.byteLength(result.stderr) >= MAX_REPORT_BYTES - 4096) return { kind: 'not-used', reason: 'native Biome wrote more diagnostics than are read' };
  const judged = judgeVerboseReport(new TextDecoder().decode(result.stdout), result.stderr, rootReal);
  if ('reason' in judged) {
    // Biome's own first words (a config it rejects, say) say more than the shape of its report.
    const said = result.stderr.split('\n').find((line) => line.trim() !== '')?.replace(/\s*━+$/, '').trim().slice(0, 200);
    return { kind: 'not-used', reason: `native Biome (exit ${result.code}): ${judged.reason}${said ? `; it said: ${said}` : ''}` };
  }
  return { kind: 'checked', ...judged, ms: performance.now() - started, startedAtMs };
}

/** A diagnostic's header: `path[:line:column] category[  SEVERITY]  ━━━…` at column 0. */
const HEADER = /^(\S.*?) ([A-Za-z][\w/]*)(?: {2}[A-Z]+)? {1,2}━+$/;
/** The closing block, named after the command: `format ━━━…`. */
const CLOSING = /^[a-z]+ ━+$/;

/**
 * Reads `biome format --verbose --colors=off`: the files processed (stdout, "Files processed:" then
 * `  - path` lines) and the diagnostics (stderr, one header line each). Fails closed: an unknown line
 * at column 0, a processed count other than "Checked N files", or fewer diagnostics than
 * "Found N errors/warnings/infos" counts means the report is not used.
 */
export function judgeVerboseReport(stdout: string, stderr: string, rootReal: string): { processed: Set<string>; flagged: Map<string, string> } | { reason: string } {
  const processed = new Set<string>();
  let checked: number | undefined;
  let found = 0;
  let inProcessed = false;
  for (const line of stdout.split('\n')) {
    if (line.startsWith('  i ')) {
      inProcessed = line === '  i Files processed:';
      continue;
    }
    if (line.startsWith('  - ')) {
      if (!inProcessed) continue;
      const path = projectPath(line.slice(4), rootReal);
      // A file name with a line break in it prints as several lines: one of them would repeat a real
      // file, another could name a file Biome never processed.
      if (processed.has(path)) return { reason: `it listed ${path} twice (a file name with a line break?)` };
      processed.add(path);
      continue;
    }
    if (line.trim() === '' || line.startsWith('  ') || /^ VERBOSE {2}━+$/.test(line)) continue;
    const count = /^Checked (\d+) files? in /.exec(line);
    if (count) checked = Number(count[1]);
    const total = /^Found (\d+) (?:errors?|warnings?|infos?)\.$/.exec(line);
    if (total) found += Number(total[1]);
    if (!count && !total && !/^(Scanned project folder in |Formatted |Fixed )/.test(line)) return { reason: `an unknown line in its report: ${line.slice(0, 120)}` };
  }
  if (checked === undefined) return { reason: 'its report has no "Checked N files" line' };
  if (checked !== processed.size) return { reason: `it checked ${checked} files and listed ${processed.size}` };
  const flagged = new Map<string, string>();
  let headers = 0;
  const lines = stderr.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line === '' || line.startsWith(' ')) continue;
    if (CLOSING.test(line)) break;
    const header = HEADER.exec(line);
    if (!header) return { reason: `an unknown line among its diagnostics: ${line.slice(0, 120)}` };
    headers++;
    const message = `${header[2]}: ${lines.slice(i + 1).find((l) => /^ {2}[×!i] /.test(l))?.slice(4).trim() ?? ''}`.slice(0, 300);
    // `path:line:column`, or a path that itself ends in `:n:n`: both readings are flagged.
    const named = header[1] as string;
    const stripped = named.replace(/:\d+:\d+$/, '');
    for (const path of new Set([named, stripped])) {
      const key = projectPath(path, rootReal);
      if (!flagged.has(key)) flagged.set(key, message);
    }
  }
  // Biome counts a repeated diagnostic once: there may be more headers than it counted, never fewer.
  if (headers < found) return { reason: `it reported ${found} diagnostics and only ${headers} were read` };
  return { processed, flagged };
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
