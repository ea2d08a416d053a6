/**
 * What `formatbox format` prints for a person, in one place for the project-wide walk (format.ts)
 * and the daemon's named-file path (entry.ts), following prettier and biome (docs/cli.md,
 * Conventions): the files that were or would be reformatted on stdout (`-l`: only their paths); a
 * file's problem on stderr in one form, `error: PATH: MESSAGE`; one summary line on stderr with the
 * next step; details with `--verbose`; colour only on a TTY without NO_COLOR or --no-color.
 * `--log-level`: silent prints nothing, error only the problems. Light: the thin entry loads it.
 */
import { shownPath } from '../core/shown.js';
import { paintFor, plural, type Paint } from './colour.js';

export interface OutputFlags {
  check: boolean;
  listDifferent?: boolean;
  ignoreUnknown?: boolean;
  verbose?: boolean;
  logLevel?: 'silent' | 'error' | 'warn' | 'log' | 'debug';
  color?: boolean;
}

/** One file's verdict, as shown. `named`: the person named this file itself (not a directory it is in). */
export type FileVerdict =
  | { kind: 'formatted' | 'unchanged'; path: string; line: string }
  | { kind: 'skipped'; path: string; reason: string; named: boolean; noRoot: boolean }
  | { kind: 'failed' | 'timed out'; path: string; message: string };

export interface VerdictCounts {
  files: number;
  formatted: number;
  unchanged: number;
  skipped: number;
  /** Of `skipped`: no project root was found for them. */
  noRoot: number;
  /** Of `skipped`: the project declares no formatter for them (`--mode always` would format them). */
  undeclared: number;
  failed: number;
  timedOut: number;
}

export function emptyCounts(): VerdictCounts {
  return { files: 0, formatted: 0, unchanged: 0, skipped: 0, noRoot: 0, undeclared: 0, failed: 0, timedOut: 0 };
}

export interface FormatOutput {
  readonly counts: VerdictCounts;
  /** Counts `verdict` and prints its line, if it has one. `write` takes stdout's lines (format.ts blocks them on a pipe). */
  file(verdict: FileVerdict, write?: (text: string) => void): void;
  /** The summary line, then (--verbose) `details`. */
  summary(details?: readonly string[]): void;
  /** Whether a line at this level is shown. */
  shows(level: 'error' | 'warn' | 'debug'): boolean;
}

const LEVELS = ['silent', 'error', 'warn', 'log', 'debug'] as const;

export function createFormatOutput(flags: OutputFlags, env: NodeJS.ProcessEnv = process.env): FormatOutput {
  const out = paintFor(process.stdout, flags, env);
  const err = paintFor(process.stderr, flags, env);
  const level = flags.verbose ? 'debug' : (flags.logLevel ?? 'log');
  const shows = (wanted: 'error' | 'warn' | 'debug'): boolean => LEVELS.indexOf(level) >= LEVELS.indexOf(wanted);
  const counts = emptyCounts();
  return {
    counts,
    shows,
    file(verdict, write = (text) => void process.stdout.write(text)) {
      counts.files++;
      switch (verdict.kind) {
        case 'formatted':
          counts.formatted++;
          if (!shows('warn')) return;
          if (flags.listDifferent) write(`${shownPath(verdict.path)}\n`);
          else write(flags.check ? `${out.yellow('would reformat')}: ${shownPath(verdict.path)}\n` : `${out.green(verdict.line)}\n`);
          return;
        case 'unchanged':
          counts.unchanged++;
          return;
        case 'skipped':
          counts.skipped++;
          if (verdict.noRoot) counts.noRoot++;
          if (verdict.reason.startsWith('no formatter declared')) counts.undeclared++;
          // A file named on its own that nothing formats is said (prettier: "No parser could be inferred"); -u silences it.
          if (verdict.named && !flags.ignoreUnknown && shows('warn')) process.stderr.write(`${err.yellow('not formatted')}: ${shownPath(verdict.path)} (${verdict.reason})\n`);
          return;
        case 'failed':
        case 'timed out':
          if (verdict.kind === 'failed') counts.failed++;
          else counts.timedOut++;
          if (shows('error')) process.stderr.write(`${err.red(verdict.kind === 'failed' ? 'error' : 'timed out')}: ${shownPath(verdict.path)}: ${verdict.message}\n`);
          return;
      }
    },
    summary(details = []) {
      if (!shows('warn')) return;
      process.stderr.write(`${summaryLine(counts, flags.check, err)}\n`);
      if (shows('debug')) for (const line of details) process.stderr.write(`${err.dim(line)}\n`);
    },
  };
}

/** `Checked 3 files: 1 would change, 2 already formatted. Run with --write to fix.` */
export function summaryLine(counts: VerdictCounts, check: boolean, paint: Paint): string {
  const parts: string[] = [];
  if (check) parts.push(paint.yellow(`${counts.formatted} would change`));
  parts.push(`${counts.unchanged} already formatted`);
  if (counts.skipped > 0) parts.push(`${counts.skipped} not formatted`);
  if (counts.failed > 0) parts.push(paint.red(`${counts.failed} failed`));
  if (counts.timedOut > 0) parts.push(paint.red(`${counts.timedOut} timed out`));
  const head = check ? `Checked ${plural(counts.files, 'file')}` : `Formatted ${counts.formatted} of ${plural(counts.files, 'file')}`;
  return `${paint.bold(head)}: ${parts.join(', ')}.${nextStep(counts, check)}`;
}

function nextStep(counts: VerdictCounts, check: boolean): string {
  if (counts.failed + counts.timedOut > 0) return ` See the ${counts.failed + counts.timedOut === 1 ? 'error' : 'errors'} above.`;
  if (check && counts.formatted > 0) return ' Run with --write to fix.';
  if (counts.noRoot > 0 && counts.formatted + counts.unchanged === 0) return ' No project root was found (no VCS root or formatter config above them): add a formatter config, or run with --mode always.';
  if (counts.undeclared > 0 && counts.formatted + counts.unchanged === 0) return ' The project declares no formatter for them: add a formatter config, or run with --mode always.';
  return '';
}
