/**
 * `formatbox format` argument conventions (as in prettier, biome and ruff), kept apart from the
 * project-wide walk in format.ts: a named path that does not exist is reported and the rest run,
 * `--stdin-filepath`, and what `--check --json` calls a file that would change. Light on purpose:
 * the thin entry uses it too.
 */
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { FormatboxError } from '../core/errors.js';
import { shownPath } from '../core/shown.js';
import { EXIT_FORMAT_FAILED, EXIT_USAGE } from './exit-codes.js';
import { COMMAND_HELP } from './help.js';
import { paintFor } from './colour.js';
import { saysNoRoot } from '../node/service/request-root.js';

/**
 * The named paths that exist. Each one that does not is reported on stderr in the per-file form
 * (`error: PATH: no such file or directory`) and the rest still run, as biome and dprint do; the run
 * then exits 2. With no path at all, the working directory is the path (every mode alike).
 */
export function existingPaths(flags: { positional: string[]; color?: boolean }): { paths: string[]; missing: number } {
  if (flags.positional.length === 0) return { paths: ['.'], missing: 0 };
  const paint = paintFor(process.stderr, flags);
  const paths: string[] = [];
  let missing = 0;
  for (const path of flags.positional) {
    if (existsSync(resolve(path))) paths.push(path);
    else {
      missing++;
      process.stderr.write(`${paint.red('error')}: ${shownPath(path)}: no such file or directory\n`);
    }
  }
  return { paths, missing };
}

/** The daemon/handler request for `--stdin-filepath PATH` (PATH relative to the current directory or absolute). */
export function stdinRequest(root: string, stdinFilepath: string, text: string): { method: 'formatText'; path: string; text: string } {
  if (stdinFilepath === '') throw new FormatboxError('INVALID_REQUEST', '--stdin-filepath needs a path');
  return { method: 'formatText', path: relative(root, resolve(stdinFilepath)), text };
}

/**
 * Prints the `--stdin-filepath` result. Formatted or unchanged: the formatted text. Skipped (no
 * formatter for it, or ignored): the input as it was, as prettier does; when no project root was
 * found, stderr says so. Otherwise (a syntax error, a timeout, a refusal): nothing on stdout, the
 * reason on stderr, exit 2.
 */
export function writeStdinResult(receipt: { status: string; content: string; line: string; reason?: string }, text: string): number {
  if (receipt.status === 'formatted' || receipt.status === 'unchanged') {
    process.stdout.write(receipt.content);
    return 0;
  }
  if (receipt.status === 'skipped') {
    if (saysNoRoot(receipt)) process.stderr.write(`formatbox: ${receipt.line}\n`);
    process.stdout.write(text);
    return 0;
  }
  process.stderr.write(`formatbox: ${receipt.line}\n`);
  return EXIT_FORMAT_FAILED;
}

/** The `status` of a `format --json` line: under --check, a file that would change says `would-change`. */
export function formatJsonStatus(status: string, check: boolean): string {
  return check && status === 'formatted' ? 'would-change' : status;
}
