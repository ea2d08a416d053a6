/**
 * `formatbox format` argument conventions (as in prettier, biome and ruff), kept apart from the
 * project-wide walk in format.ts: usage instead of rewriting the current directory unasked, a named
 * path that does not exist exits 2, `--stdin-filepath`, and what `--check --json` calls a file that
 * would change. Light on purpose: the thin entry uses it too.
 */
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { FormatboxError } from '../core/errors.js';
import { EXIT_FORMAT_FAILED, EXIT_USAGE } from './exit-codes.js';
import { COMMAND_HELP } from './help.js';
import { saysNoRoot } from '../node/service/request-root.js';

/**
 * Exit code when the arguments end the command before any file is touched, else undefined.
 * No paths and no --write: usage (exit 2). A named path that does not exist: INVALID_REQUEST (exit 2).
 */
export function checkFormatArgs(flags: { positional: string[]; write: boolean }): number | undefined {
  if (flags.positional.length === 0 && !flags.write) {
    process.stderr.write(`${COMMAND_HELP.format}\n`);
    return EXIT_USAGE;
  }
  const missing = flags.positional.filter((path) => !existsSync(resolve(path)));
  if (missing.length > 0) throw new FormatboxError('INVALID_REQUEST', `${missing.join(', ')}: no such file or directory`);
  return undefined;
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
