/**
 * `formatbox format [--check|--write] [--json] PATHS…`: the project-wide mode. Files and directories
 * (walked, skipping dependency, VCS and cache directories) are formatted in place with the same
 * selection, sandbox and atomic compare-and-swap writes as an edit; `--check` writes nothing.
 * Exit 0: ok. 1: `--check` found files that would change. 2: a file could not be formatted (syntax
 * error, timeout, refusal) or a path is bad.
 */
import { shownPath } from '../core/shown.js';
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { FormatboxError, isFormatboxError, messageOf } from '../core/errors.js';
import { languageOf } from '../core/languages.js';
import type { Receipt } from '../core/types.js';
import { SKIPPED_DIRS } from '../node/discover.js';
import { EXIT_OK, EXIT_USAGE, EXIT_WOULD_CHANGE } from './exit-codes.js';
import { formatJsonStatus } from './format-args.js';
import { createRequestHandler, type HandlerOptions } from './requests.js';
import { saysNoRoot } from './request-root.js';

interface FormatFlags {
  positional: string[];
  check: boolean;
  json: boolean;
}

/** Most files one run looks at; a larger tree is named in parts. */
const MAX_FILES = 100_000;

export async function runFormat(root: string, flags: FormatFlags, options: HandlerOptions): Promise<number> {
  const files = collectFiles(root, flags.positional.length > 0 ? flags.positional : ['.'], options.findRoot === true);
  const handler = createRequestHandler(options);
  const tty = process.stderr.isTTY === true && !flags.json;
  const counts = { formatted: 0, unchanged: 0, skipped: 0, failed: 0 };
  try {
    for (let i = 0; i < files.length; i++) {
      const path = files[i] as string;
      if (tty) process.stderr.write(`\r\x1b[K[${i + 1}/${files.length}] ${shownPath(path)}`);
      let receipt: Receipt;
      try {
        receipt = (await handler.handle({ method: 'format', path, check: flags.check })) as Receipt;
      } catch (error) {
        counts.failed++;
        const code = isFormatboxError(error) ? error.code : 'INTERNAL';
        if (flags.json) process.stdout.write(JSON.stringify({ path, error: { code, message: messageOf(error) } }) + '\n');
        else process.stdout.write(`${tty ? '\r\x1b[K' : ''}error: ${shownPath(path)}: ${messageOf(error)}\n`);
        continue;
      }
      const kind = receipt.status === 'formatted' ? 'formatted' : receipt.status === 'unchanged' ? 'unchanged' : receipt.status === 'skipped' ? 'skipped' : 'failed';
      counts[kind]++;
      if (flags.json) {
        process.stdout.write(JSON.stringify({ path, status: formatJsonStatus(receipt.status, flags.check), line: receipt.line, ...(receipt.formatter ? { formatter: receipt.formatter } : {}), ...(receipt.reason ? { reason: receipt.reason } : {}) }) + '\n');
      } else if (kind === 'formatted' || kind === 'failed' || saysNoRoot(receipt)) {
        const text = kind === 'formatted' && flags.check ? `would reformat: ${shownPath(path)}` : receipt.line;
        process.stdout.write(`${tty ? '\r\x1b[K' : ''}${text}\n`);
      }
    }
  } finally {
    if (tty) process.stderr.write('\r\x1b[K');
    await handler.close();
  }
  const verb = flags.check ? 'would change' : 'formatted';
  process.stderr.write(`${files.length} files: ${counts.formatted} ${verb}, ${counts.unchanged} already formatted, ${counts.skipped} not formatted (no formatter or ignored), ${counts.failed} failed\n`);
  if (counts.failed > 0) return EXIT_USAGE;
  return flags.check && counts.formatted > 0 ? EXIT_WOULD_CHANGE : EXIT_OK;
}

/**
 * Paths relative to `root` of the files named or found below the directories named, sorted. With
 * `anywhere` (no --root: `root` is the working directory and each file's project root is found per
 * file), a file may lie above it.
 */
function collectFiles(root: string, named: string[], anywhere: boolean): string[] {
  const out = new Set<string>();
  const visit = (abs: string, explicit: boolean): void => {
    let stat;
    try {
      stat = statSync(abs);
    } catch {
      throw new FormatboxError('FILE_NOT_FOUND', `${relative(root, abs) || '.'} does not exist`);
    }
    if (stat.isDirectory()) {
      for (const name of readdirSync(abs).sort()) {
        if (SKIPPED_DIRS.has(name) || (name.startsWith('.') && statSync(join(abs, name), { throwIfNoEntry: false })?.isDirectory())) continue;
        visit(join(abs, name), false);
      }
    } else if (stat.isFile() && (explicit || languageOf(abs) !== undefined)) {
      const rel = relative(root, abs);
      if (rel.startsWith('..') && !anywhere) throw new FormatboxError('PATH_REFUSED', `${shownPath(abs)} is outside the project root ${shownPath(root)}`);
      out.add(rel.split(sep).join('/'));
      if (out.size > MAX_FILES) throw new FormatboxError('INVALID_REQUEST', `more than ${MAX_FILES} files; name fewer paths`);
    }
  };
  for (const path of named) visit(resolve(path), true);
  return [...out].sort();
}
