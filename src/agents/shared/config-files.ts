/**
 * How `formatbox init` changes an agent's config files: read the file (JSON with comments, or
 * TOML as text), add only what is missing, never replace a value the user set, write the result
 * atomically and show the change as a diff. Running init twice changes nothing the second time.
 *
 * The files are in a repository (`--project`) or the user's config directories, and a repository
 * is hostile: a file is read only when it is a regular file (no link followed, no FIFO or device
 * opened, at most MAX_CONFIG_BYTES); every directory from the root of the write (the project, or
 * the home directory) down to the file is a real directory or a link that stays inside that root;
 * the new content goes to a fresh temp file created with O_EXCL|O_NOFOLLOW (never through a name
 * already there), renamed over the file, which must not be a link or anything but a regular file.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, lstatSync, mkdirSync, openSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { applyEdits, modify, parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { unifiedDiff } from '../../core/diff.js';
import { FormatboxError } from '../../core/errors.js';
import { bracketDepth, DATA_LIMITS } from '../../config/data.js';
import { readBoundedText } from '../../node/fs/read-bounded.js';
import { isInside } from '../../node/fs/paths.js';

/** An agent's config file is small; one larger than this is not read. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** One file's planned change. `after === before` means nothing to do. */
export interface FileChange {
  path: string;
  before: string | undefined;
  after: string;
  /** Things found set differently and left as the user has them. */
  kept: string[];
  /** Create the file with this mode (a file holding a secret: 0600). */
  mode?: number;
}

/** The file's text, or undefined when it does not exist; PATH_REFUSED for a link, a FIFO, a device, or a file over MAX_CONFIG_BYTES. */
export function readText(path: string): string | undefined {
  const read = readBoundedText(path, MAX_CONFIG_BYTES);
  if (read === null) return undefined;
  if (read.truncated) throw new FormatboxError('PATH_REFUSED', `refused ${path}: larger than ${MAX_CONFIG_BYTES} bytes`, { path });
  return read.text;
}

/** JSONC parsed, or a thrown INVALID_CONFIG for a text nested deeper than config data may be (the parser recurses). */
export function parseJsonc(path: string, text: string, errors: ParseError[] = []): unknown {
  if (bracketDepth(text) > DATA_LIMITS.maxDepth) throw new FormatboxError('INVALID_CONFIG', `${path} is nested deeper than ${DATA_LIMITS.maxDepth} levels; fix it, then run init again`);
  return parse(text, errors, { allowTrailingComma: true });
}

/** A JSON (or JSONC) document being edited in place: comments and layout are kept. */
export class JsonDocument {
  text: string;
  readonly kept: string[] = [];

  constructor(readonly path: string, before: string | undefined) {
    this.text = before === undefined || before.trim() === '' ? '{}\n' : before;
    const errors: ParseError[] = [];
    const value = parseJsonc(path, this.text, errors);
    if (errors.length > 0) throw new FormatboxError('INVALID_CONFIG', `${path} is not valid JSON (${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}); fix it, then run init again`);
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new FormatboxError('INVALID_CONFIG', `${path} does not hold a JSON object`);
  }

  get value(): Record<string, unknown> {
    return parse(this.text, [], { allowTrailingComma: true }) as Record<string, unknown>;
  }

  get(path: Array<string | number>): unknown {
    let at: unknown = this.value;
    for (const key of path) at = at && typeof at === 'object' ? (at as Record<string, unknown>)[key as string] : undefined;
    return at;
  }

  set(path: Array<string | number>, value: unknown): void {
    this.text = applyEdits(this.text, modify(this.text, path, value, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } }));
  }

  /** Sets `path` to `value` unless it is set already; a different value is kept and reported. */
  ensure(path: string[], value: unknown, what = path.join('.')): void {
    const current = this.get(path);
    if (current === undefined) this.set(path, value);
    else if (JSON.stringify(current) !== JSON.stringify(value)) this.kept.push(`${what} is already set (to ${JSON.stringify(current)}); left as it is`);
  }

  /** Appends `item` to the array at `path` (created when missing) unless `isOurs` finds one already. */
  ensureInArray(path: string[], item: unknown, isOurs: (existing: unknown) => boolean): 'added' | 'present' {
    const current = this.get(path);
    if (current !== undefined && !Array.isArray(current)) {
      this.kept.push(`${path.join('.')} is not a list; left as it is`);
      return 'present';
    }
    const list = (current as unknown[] | undefined) ?? [];
    if (list.some(isOurs)) return 'present';
    this.set([...path, list.length], item);
    return 'added';
  }

  change(mode?: number): FileChange {
    return { path: this.path, before: undefined, after: this.text, kept: this.kept, ...(mode !== undefined ? { mode } : {}) };
  }
}

export function jsonChange(path: string, edit: (doc: JsonDocument) => void, mode?: number): FileChange {
  const before = readText(path);
  const doc = new JsonDocument(path, before);
  edit(doc);
  return { ...doc.change(mode), before };
}

/**
 * Writes each change that changes something; returns the diffs shown to the user. `within` is the
 * root of the writes a repository controls (the project, for `--project`): no file is written
 * outside it, through a link or otherwise. Without it (the user's own config directories, which
 * the user may link to a dotfiles checkout) the directories are the user's to arrange.
 */
export function applyChanges(changes: FileChange[], write: boolean, within?: string): string[] {
  const shown: string[] = [];
  for (const change of changes) {
    for (const kept of change.kept) shown.push(`${change.path}: ${kept}`);
    if (change.before === change.after) continue;
    shown.push(unifiedDiff(change.before ?? '', change.after, { path: change.path }).replace(/\n$/, ''));
    if (!write) continue;
    const realDir = within !== undefined ? directoryInside(within, dirname(change.path)) : userDirectory(dirname(change.path));
    writeReplacing(join(realDir, basename(change.path)), change);
  }
  return shown;
}

function refusedWrite(path: string, why: string): FormatboxError {
  return new FormatboxError('PATH_REFUSED', `refused ${path}: ${why}; nothing was written there`, { path });
}

/**
 * The real path of `dir`, creating what is missing, after checking every component from `root`
 * down: a real directory, or a link whose target is a directory inside `root`.
 */
function directoryInside(root: string, dir: string): string {
  if (!isAbsolute(root) || !isAbsolute(dir)) throw refusedWrite(dir, 'not an absolute path');
  const rest = relative(root, dir);
  if (rest.startsWith('..') || isAbsolute(rest)) throw refusedWrite(dir, `it is outside ${root}`);
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch (error) {
    throw refusedWrite(root, (error as Error).message);
  }
  let current = root;
  for (const part of rest === '' ? [] : rest.split(sep)) {
    current = join(current, part);
    const stats = lstatSync(current, { throwIfNoEntry: false });
    if (!stats) {
      try {
        mkdirSync(current);
      } catch (error) {
        throw refusedWrite(current, `cannot create it: ${(error as Error).message}`);
      }
      continue;
    }
    if (stats.isSymbolicLink()) {
      let target: string;
      try {
        target = realpathSync(current);
      } catch {
        throw refusedWrite(current, 'it is a symlink to nothing');
      }
      if (!isInside(target, realRoot)) throw refusedWrite(current, `it is a symlink out of ${root} (to ${target})`);
      if (!statSync(target).isDirectory()) throw refusedWrite(current, 'it is a symlink to something other than a directory');
    } else if (!stats.isDirectory()) throw refusedWrite(current, 'it is not a directory');
  }
  const real = realpathSync(dir);
  if (!isInside(real, realRoot)) throw refusedWrite(dir, `it resolves outside ${root}`);
  return real;
}

/** The real path of the user's own config directory `dir`, created when missing. */
function userDirectory(dir: string): string {
  try {
    mkdirSync(dir, { recursive: true });
    return realpathSync(dir);
  } catch (error) {
    throw refusedWrite(dir, `cannot create it: ${(error as Error).message}`);
  }
}

/** Replaces `path` (in a checked real directory) with `change.after`: a fresh O_EXCL|O_NOFOLLOW temp file renamed over it. */
function writeReplacing(path: string, change: FileChange): void {
  const existing = lstatSync(path, { throwIfNoEntry: false });
  if (existing?.isSymbolicLink()) throw refusedWrite(change.path, 'it is a symlink; formatbox does not replace it');
  if (existing && !existing.isFile()) throw refusedWrite(change.path, 'it is not a regular file');
  const mode = change.mode ?? (existing ? existing.mode & 0o777 : 0o644);
  let temp = '';
  let fd = -1;
  // A name no one can have made beforehand; a name taken (even by a link) is never opened: another is tried.
  for (let attempt = 0; fd < 0; attempt++) {
    temp = join(dirname(path), `.${basename(path)}.formatbox-${process.pid}-${randomBytes(8).toString('hex')}.tmp`);
    try {
      fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 8) throw refusedWrite(change.path, `cannot create a temp file beside it: ${(error as Error).message}`);
    }
  }
  try {
    try {
      fchmodSync(fd, mode); // the umask does not loosen or tighten what the file had
      const bytes = Buffer.from(change.after);
      for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written, bytes.length - written);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error instanceof FormatboxError ? error : refusedWrite(change.path, (error as Error).message);
  }
}
