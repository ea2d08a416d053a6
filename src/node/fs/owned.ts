/**
 * Directories that only this user can change: the daemon's socket directory, the formatter store and
 * the directories above it, the per-user secrets' directory. A directory passes when it is a real
 * directory (not a symlink), owned by this user, and not writable by group or others (a private one:
 * no group or other access at all). Another user who could write one could plant or replace what
 * formatbox later runs or trusts there.
 */
import { lstatSync, mkdirSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, relative, sep } from 'node:path';
import { FormatboxError } from '../../core/errors.js';

export interface OwnedDirRule {
  /** What the directory is, for the message: "the daemon directory", "the formatter store". */
  what: string;
  /** No access at all for group or others (0700), rather than only no write. */
  private?: boolean;
  uid?: number;
}

export function currentUid(): number {
  return process.getuid?.() ?? -1;
}

/** Why `stats` (of `dir`) fails `rule`, or undefined when it passes. */
export function ownedDirProblem(dir: string, stats: Stats | undefined, rule: OwnedDirRule): string | undefined {
  const uid = rule.uid ?? currentUid();
  if (!stats) return `${rule.what} ${dir} does not exist`;
  if (stats.isSymbolicLink()) return `${rule.what} ${dir} is a symlink; refusing it`;
  if (!stats.isDirectory()) return `${rule.what} ${dir} is not a directory`;
  if (uid >= 0 && stats.uid !== uid) return `${rule.what} ${dir} belongs to uid ${stats.uid}, not to you (uid ${uid}); refusing it`;
  const mode = stats.mode & 0o777;
  if (rule.private && (mode & 0o077) !== 0) return `${rule.what} ${dir} has mode ${mode.toString(8)}; it must be 0700 (chmod 700 ${dir})`;
  if (!rule.private && (mode & 0o022) !== 0) return `${rule.what} ${dir} has mode ${mode.toString(8)}, writable by ${(mode & 0o002) !== 0 ? 'others' : 'its group'}; refusing it (chmod go-w ${dir})`;
  return undefined;
}

/** Throws PATH_REFUSED unless `dir` passes `rule` (see the module comment). */
export function checkOwnedDir(dir: string, rule: OwnedDirRule): void {
  const problem = ownedDirProblem(dir, lstatSync(dir, { throwIfNoEntry: false }), rule);
  if (problem) throw new FormatboxError('PATH_REFUSED', problem, { path: dir });
}

/**
 * Checks every directory from `top` down to `dir` (both included; `dir` must be `top` or under it):
 * each must pass `rule`, `dir` itself `innerRule` when given. Missing ones are created first (0700)
 * when `create`, each checked before the next is made inside it. Throws PATH_REFUSED.
 */
export function checkOwnedChain(top: string, dir: string, rule: OwnedDirRule, options: { create?: boolean; innerRule?: OwnedDirRule } = {}): void {
  if (!isAbsolute(top) || !isAbsolute(dir)) throw new FormatboxError('PATH_REFUSED', `${rule.what}: not an absolute path (${dir})`);
  const rest = relative(top, dir);
  if (rest.startsWith('..') || isAbsolute(rest)) throw new FormatboxError('PATH_REFUSED', `${rule.what} ${dir} is not under ${top}`);
  const chain = [top];
  for (const part of rest === '' ? [] : rest.split(sep)) chain.push(`${chain.at(-1)}${sep}${part}`);
  if (options.create) {
    // The top's own parent may be missing (a fresh $HOME/.cache): made like the rest, 0700.
    const parent = dirname(top);
    if (lstatSync(parent, { throwIfNoEntry: false }) === undefined) mkdirSync(parent, { recursive: true, mode: 0o700 });
  }
  for (const [index, each] of chain.entries()) {
    if (options.create) {
      try {
        mkdirSync(each, { mode: 0o700 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new FormatboxError('PATH_REFUSED', `cannot create ${rule.what} ${each}: ${(error as Error).message}`, { path: each });
      }
    }
    checkOwnedDir(each, index === chain.length - 1 && options.innerRule ? options.innerRule : rule);
  }
}
