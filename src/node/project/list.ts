/**
 * What a project-wide run formats: the files named and those found below the directories named, by
 * the shared walker (src/node/walk.ts): version control directories and `node_modules` are not
 * entered (no formatter's own walk enters them); `.gitignore` at every level, `.git/info/exclude` and
 * the ignore files given are honoured; no symlink is followed out of the root or into a loop; a bad
 * entry is reported and the run goes on. Files below a dot-directory or a conventional dependency,
 * build or cache directory (`vendor`, `target`, `.venv`, …) are listed apart: Prettier's and Biome's
 * own walks format them, the others' are not modelled, so the caller keeps them only for a formatter
 * whose walk enters them (`walksEveryDirectory` in its declaration). A file whose name gives no
 * language is listed when its formatter's CLI would take it by its first bytes, read as that CLI's
 * walk reads them (`byFirstLine`: shfmt reads the first 32 bytes of a name without a `.` that does not
 * start with one, and keeps it when they hold a shell shebang); a hidden file of such a formatter's
 * language (`.x.sh`) is left out of the walk, as shfmt's walk leaves it (named, it is formatted).
 */
import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { FormatboxError } from '../../core/errors.js';
import { languageOfPath } from '../../config/select.js';
import { FIRST_LINE_RULES } from '../../formatters/derived.js';
import { shownPath } from '../../core/shown.js';
import { SKIPPED_DIRS } from '../discover.js';
import { isInside } from '../fs/paths.js';
import { readSmallFile, walkTree, type WalkResult } from '../walk.js';

/** Most files one run looks at; a larger tree is named in parts. */
const MAX_FILES = 100_000;
/** Walk bounds for a project-wide run. */
const WALK_LIMITS = { maxDirs: 50_000, maxEntries: 1_000_000, maxDepth: 64 };
/** Per ignore file given with --ignore-path. */
const MAX_IGNORE_PATH_BYTES = 1024 * 1024;

/** A named path that cannot be formatted (missing, outside the root). */
export interface ListingError {
  kind: 'error';
  path: string;
  code: string;
  message: string;
}

export interface Listing {
  files: string[];
  /** Found below a dot-directory or a directory in SKIPPED_DIRS (not named): for the caller to keep or drop by formatter. */
  belowSkippedDirs: string[];
  /** Files listed by their first bytes (no language by name): those bytes, for selecting their formatter. */
  firstBytes: Map<string, string>;
  errors: ListingError[];
  walk: WalkResult;
}

/**
 * Project-relative paths of the files named, and of the files found below the directories named,
 * sorted and without duplicates. A named path that is missing or outside the root is an error line;
 * the other paths are still formatted.
 */
export async function listFiles(rootReal: string, named: string[], ignorePaths: string[]): Promise<Listing> {
  const extraIgnores = ignorePaths.map((file) => {
    const text = readSmallFile(resolve(file), MAX_IGNORE_PATH_BYTES);
    if (typeof text !== 'string') throw new FormatboxError('INVALID_REQUEST', `--ignore-path ${file}: ${text.refused}`);
    return { file, text };
  });
  const out = new Set<string>();
  const below = new Set<string>();
  const errors: ListingError[] = [];
  const firstBytes = new Map<string, string>();
  const walk: WalkResult = { files: [], skipped: [], ignoredCount: 0, ignoreProblems: [] };
  for (const path of named) {
    // The parent resolved (a project reached through a symlinked path), the last name as given (a
    // named symlink is the runtime's to check).
    const lexical = realParent(resolve(path));
    const rel = toPosix(relative(rootReal, lexical));
    if (!isInside(lexical, rootReal)) {
      errors.push({ kind: 'error', path, code: 'PATH_REFUSED', message: `${shownPath(path)} is outside the project root ${shownPath(rootReal)}` });
      continue;
    }
    let isDirectory: boolean;
    try {
      isDirectory = lstatSync(lexical).isDirectory();
    } catch {
      errors.push({ kind: 'error', path: rel || '.', code: 'FILE_NOT_FOUND', message: `${rel || '.'} does not exist` });
      continue;
    }
    if (!isDirectory) {
      out.add(rel); // Named explicitly: the runtime checks it (symlinks out of root are refused there).
      continue;
    }
    const found = await walkTree(rootReal, rel, {
      ...WALK_LIMITS,
      skipDirNames: VCS_AND_DEPENDENCY_DIRS,
      gitignore: true,
      extraIgnores,
      wantFile: wantedByName,
      byFirstBytes: BY_FIRST_BYTES,
    });
    // Symlinked files are not formatted in a walk: the target is formatted under its own name.
    for (const file of found.files) {
      if (file.linkTarget) walk.skipped.push({ rel: file.rel, kind: 'file', reason: 'a symlink; its target is formatted under its own path' });
      else if (belowSkippedDir(file.rel, rel)) below.add(file.rel);
      else out.add(file.rel);
      if (file.firstBytes !== undefined && !file.linkTarget) firstBytes.set(file.rel, file.firstBytes);
    }
    walk.skipped.push(...found.skipped);
    walk.ignoredCount += found.ignoredCount;
    walk.truncated ??= found.truncated;
    if (out.size + below.size > MAX_FILES) throw new FormatboxError('INVALID_REQUEST', `more than ${MAX_FILES} files; name fewer paths`);
  }
  for (const rel of out) below.delete(rel);
  return { files: [...out].sort(), belowSkippedDirs: [...below].sort(), firstBytes, errors, walk };
}

/** Languages whose formatter's walk leaves hidden files alone (shfmt's `fileutil.CouldBeScript2`). */
const HIDDEN_FILES_LEFT: ReadonlySet<string> = new Set(FIRST_LINE_RULES.filter((rule) => rule.walkLeavesHiddenFiles).map((rule) => rule.language));

function wantedByName(name: string): boolean {
  const language = languageOfPath(name);
  return language !== undefined && !(name.startsWith('.') && HIDDEN_FILES_LEFT.has(language));
}

/** A name that gives no language is read when a formatter's walk would read it, and kept when its first bytes say so. */
const BY_FIRST_BYTES = {
  reads: (name: string) => FIRST_LINE_RULES.some((rule) => rule.walkReads(name)),
  maxBytes: Math.max(0, ...FIRST_LINE_RULES.map((rule) => rule.headBytes)),
  wants: (head: string) => FIRST_LINE_RULES.some((rule) => head.length >= rule.minBytes && rule.recognise(head.slice(0, rule.headBytes)) !== undefined),
};

/** What every formatter's own walk leaves alone: version control and installed npm dependencies. */
export const VCS_AND_DEPENDENCY_DIRS: ReadonlySet<string> = new Set(['.git', '.hg', '.svn', '.sl', '.jj', 'node_modules']);

/** Whether a file found below the named directory `from` sits in a dot-directory or a SKIPPED_DIRS directory under it. */
function belowSkippedDir(rel: string, from: string): boolean {
  const inside = from === '' ? rel : rel.slice(from.length + 1);
  const directories = inside.split('/').slice(0, -1);
  return directories.some((name) => name.startsWith('.') || SKIPPED_DIRS.has(name));
}

export function realParent(abs: string): string {
  try {
    return join(realpathSync(dirname(abs)), basename(abs));
  } catch {
    return abs; // a missing parent: reported as missing below
  }
}

export function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}
