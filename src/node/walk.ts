/**
 * The one file walker of the Node runtime: config discovery (discover.ts) and `formatbox format`
 * (src/cli/format.ts) both list a project through it.
 *
 * - Never follows a symlinked directory, so it cannot leave the root or loop; a directory reached
 *   twice (same device and inode, e.g. a bind mount) is entered once.
 * - A symlink to a file is reported with its target only when the target is a regular file inside
 *   the root; a link out of root or a dangling link is named by its own path, never by the target's.
 * - One bad entry (unreadable directory, vanished file, FIFO, device) is recorded in `skipped` and
 *   the walk goes on; it never throws for an entry.
 * - Bounded: directories, entries and depth. Past a bound the walk stops and says so.
 * - Optional ignore files, as git reads them: `.git/info/exclude`, `.gitignore` at every level
 *   (deeper files after shallower ones, last match wins, an excluded directory is not entered),
 *   and extra ignore files (`--ignore-path`) whose patterns are relative to the root and win over all.
 * - Entries are visited in sorted order (by UTF-16 code unit), so output is stable.
 * - Optionally, a regular file whose name is not wanted but may be by its content (a script without
 *   an extension) has its first bytes read (a few dozen, without following a symlink or blocking on
 *   a FIFO) and is reported when they say so; nothing else is read.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { join, sep } from 'node:path';
import type { IgnoredItem } from '../core/types.js';
import { parseIgnoreFile, type IgnoreFile } from '../config/ignore-file.js';
import { relativeTo } from '../config/paths.js';
import { isInside } from './fs/paths.js';
import { boundedReadRefusal, readBoundedNoFollow } from './fs/read-bounded.js';

interface WalkOptions {
  /** Directories entered. */
  maxDirs: number;
  /** Directory entries looked at, in total. */
  maxEntries: number;
  /** Directory depth below the start. */
  maxDepth: number;
  /** Directory names never entered (e.g. node_modules, .git). */
  skipDirNames?: ReadonlySet<string>;
  /** Do not enter directories whose name starts with a dot. */
  skipHiddenDirs?: boolean;
  /** Which files to report (by name and project-relative path). Default: all. */
  wantFile?: (name: string, rel: string) => boolean;
  /** Read `.gitignore` files and `.git/info/exclude`. Default false. */
  gitignore?: boolean;
  /** Texts of extra ignore files (`--ignore-path`), patterns relative to the root; they win over the others. */
  extraIgnores?: Array<{ file: string; text: string }>;
  /** Bytes read per ignore file. Default 1 MiB. */
  maxIgnoreBytes?: number;
  /** Files `wantFile` passes over that may be wanted by their first bytes (read only for regular files whose name `reads` accepts). */
  byFirstBytes?: {
    reads: (name: string) => boolean;
    maxBytes: number;
    /** `head` is the bytes read (at most maxBytes), one character per byte (latin1). */
    wants: (head: string) => boolean;
  };
}

/** A file the walk found. */
interface WalkedFile {
  /** Project-relative POSIX path of the entry (the link's own path for a symlink). */
  rel: string;
  /** Absolute path of the entry. */
  abs: string;
  /** For a symlink: the real path of its target (a regular file inside the root). */
  linkTarget?: string;
  /** For a file wanted by its first bytes: those bytes, one character per byte (latin1). */
  firstBytes?: string;
}

export interface WalkResult {
  files: WalkedFile[];
  /** Entries not followed or not readable, with the reason (project-relative paths only). */
  skipped: Array<{ rel: string; kind: 'file' | 'dir'; reason: string }>;
  /** Entries left out by ignore files. */
  ignoredCount: number;
  /** Set when a bound stopped the walk: which one. */
  truncated?: string;
  /** Ignore-file patterns that could not be read (bounded parser). */
  ignoreProblems: IgnoredItem[];
}

interface Frame {
  abs: string;
  rel: string;
  depth: number;
  /** Ignore files that apply in this directory, shallowest first. */
  ignores: IgnoreFile[];
}

/**
 * Walks `startRel` (a directory, project-relative; '' for the root) of the real root `rootReal`,
 * breadth-first. Yields to the event loop every few hundred directories.
 */
export async function walkTree(rootReal: string, startRel: string, options: WalkOptions): Promise<WalkResult> {
  const result: WalkResult = { files: [], skipped: [], ignoredCount: 0, ignoreProblems: [] };
  const seenDirs = new Set<string>();
  const baseIgnores = options.gitignore ? rootIgnores(rootReal, options, result) : [];
  const extra = (options.extraIgnores ?? []).map((e) => parseIgnoreFile(e.text, e.file, '', result.ignoreProblems));
  const start: Frame = { abs: startRel === '' ? rootReal : join(rootReal, startRel), rel: startRel, depth: 0, ignores: baseIgnores };
  if (options.gitignore && startRel !== '') start.ignores = [...baseIgnores, ...ancestorIgnores(rootReal, startRel, options, result)];
  const queue: Frame[] = [start];
  let dirs = 0;
  let entries = 0;
  for (let head = 0; head < queue.length; head++) {
    const frame = queue[head]!;
    queue[head] = undefined as unknown as Frame; // let the frame go
    if (++dirs > options.maxDirs) {
      result.truncated = `stopped after ${options.maxDirs} directories`;
      break;
    }
    if (dirs % 256 === 0) await new Promise((resolve) => setImmediate(resolve));
    if (!enterOnce(frame.abs, seenDirs)) continue;
    let listing: Dirent[];
    try {
      listing = readdirSync(frame.abs, { withFileTypes: true });
    } catch (error) {
      result.skipped.push({ rel: frame.rel || '.', kind: 'dir', reason: `directory not readable (${codeOf(error)})` });
      continue;
    }
    listing.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const ignores = options.gitignore ? withOwnGitignore(frame, listing, options, result) : frame.ignores;
    const active = [...ignores, ...extra];
    for (const entry of listing) {
      if (++entries > options.maxEntries) {
        result.truncated = `stopped after ${options.maxEntries} directory entries`;
        return result;
      }
      const rel = frame.rel === '' ? entry.name : `${frame.rel}/${entry.name}`;
      const abs = (frame.abs.endsWith(sep) ? frame.abs : frame.abs + sep) + entry.name; // names from readdir need no normalising
      if (entry.isDirectory()) {
        if (options.skipDirNames?.has(entry.name) || (options.skipHiddenDirs && entry.name.startsWith('.'))) continue;
        if (active.length > 0 && excluded(active, rel, entry.name, true)) {
          result.ignoredCount++;
          continue;
        }
        if (frame.depth + 1 > options.maxDepth) {
          result.truncated = `not entered below depth ${options.maxDepth}`;
          result.skipped.push({ rel, kind: 'dir', reason: `deeper than ${options.maxDepth} directories; not entered` });
          continue;
        }
        queue.push({ abs, rel, depth: frame.depth + 1, ignores });
        continue;
      }
      if (options.wantFile && !options.wantFile(entry.name, rel)) {
        const byFirstBytes = options.byFirstBytes;
        if (!byFirstBytes || !entry.isFile() || !byFirstBytes.reads(entry.name)) continue;
        if (active.length > 0 && excluded(active, rel, entry.name, false)) {
          result.ignoredCount++;
          continue;
        }
        const head = readFirstBytes(abs, byFirstBytes.maxBytes);
        if (typeof head !== 'string') result.skipped.push({ rel, kind: 'file', reason: head.refused });
        else if (byFirstBytes.wants(head)) result.files.push({ rel, abs, firstBytes: head });
        continue;
      }
      if (active.length > 0 && excluded(active, rel, entry.name, false)) {
        result.ignoredCount++;
        continue;
      }
      if (entry.isFile()) result.files.push({ rel, abs });
      else if (entry.isSymbolicLink()) classifyLink(rootReal, rel, abs, result);
      else result.skipped.push({ rel, kind: 'file', reason: 'not a regular file (FIFO, socket or device)' });
    }
  }
  return result;
}

/** A symlink is kept only when it resolves to a regular file inside the root. */
function classifyLink(rootReal: string, rel: string, abs: string, result: WalkResult): void {
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    result.skipped.push({ rel, kind: 'file', reason: 'a symlink whose target does not exist (or loops)' });
    return;
  }
  if (!isInside(real, rootReal)) {
    result.skipped.push({ rel, kind: 'file', reason: 'a symlink that leaves the project root; not followed' });
    return;
  }
  try {
    if (!statSync(real).isFile()) {
      result.skipped.push({ rel, kind: 'file', reason: 'a symlink to a directory or special file; not followed' });
      return;
    }
  } catch (error) {
    result.skipped.push({ rel, kind: 'file', reason: `a symlink whose target cannot be read (${codeOf(error)})` });
    return;
  }
  result.files.push({ rel, abs, linkTarget: real });
}

/** False when this directory (device + inode) was entered already. */
function enterOnce(abs: string, seen: Set<string>): boolean {
  try {
    const st = lstatSync(abs);
    if (!st.isDirectory()) return false; // swapped for something else since it was listed
    const id = `${st.dev}:${st.ino}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  } catch {
    return false;
  }
}

/** Whether the last matching rule of `files` (shallowest first) excludes the entry `rel`. */
function excluded(files: readonly IgnoreFile[], rel: string, name: string, isDirectory: boolean): boolean {
  let out = false;
  for (const file of files) {
    if (file.dir !== '' && !rel.startsWith(`${file.dir}/`)) continue;
    const relative = relativeTo(file.dir, rel);
    for (const rule of file.rules) {
      if (rule.directoryOnly && !isDirectory) continue;
      if (rule.test(rule.anchored ? relative : name)) out = !rule.negated;
    }
  }
  return out;
}

function withOwnGitignore(frame: Frame, listing: Dirent[], options: WalkOptions, result: WalkResult): IgnoreFile[] {
  const entry = listing.find((e) => e.name === '.gitignore');
  if (!entry || !entry.isFile()) return frame.ignores;
  const file = frame.rel === '' ? '.gitignore' : `${frame.rel}/.gitignore`;
  const text = readSmallFile(join(frame.abs, '.gitignore'), options.maxIgnoreBytes ?? 1024 * 1024);
  if (typeof text !== 'string') {
    result.ignoreProblems.push({ file, item: '.gitignore', reason: text.refused });
    return frame.ignores;
  }
  return [...frame.ignores, parseIgnoreFile(text, file, frame.rel, result.ignoreProblems)];
}

/** `.git/info/exclude` (below every .gitignore in precedence). */
function rootIgnores(rootReal: string, options: WalkOptions, result: WalkResult): IgnoreFile[] {
  const text = readSmallFile(join(rootReal, '.git', 'info', 'exclude'), options.maxIgnoreBytes ?? 1024 * 1024);
  if (typeof text !== 'string') return [];
  return [parseIgnoreFile(text, '.git/info/exclude', '', result.ignoreProblems)];
}

/** The .gitignore files of the directories above `startRel` (a walk that starts below the root). */
function ancestorIgnores(rootReal: string, startRel: string, options: WalkOptions, result: WalkResult): IgnoreFile[] {
  const out: IgnoreFile[] = [];
  const parts = startRel.split('/');
  for (let i = 0; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    const text = readSmallFile(join(rootReal, dir, '.gitignore'), options.maxIgnoreBytes ?? 1024 * 1024);
    if (typeof text === 'string') out.push(parseIgnoreFile(text, dir === '' ? '.gitignore' : `${dir}/.gitignore`, dir, result.ignoreProblems));
  }
  return out;
}

/**
 * Reads a regular file of at most `maxBytes` without following a final symlink and without
 * blocking on a FIFO; a leading BOM is dropped. Returns the reason when it is not read.
 */
export function readSmallFile(path: string, maxBytes: number): string | { refused: string } {
  let read;
  try {
    read = readBoundedNoFollow(path, maxBytes);
  } catch (error) {
    return { refused: refusalText(error, 'could not be opened') };
  }
  if (!read) return { refused: 'could not be opened (ENOENT)' };
  if (read.truncated) return { refused: read.size > maxBytes ? `larger than ${maxBytes} bytes (${read.size})` : `larger than ${maxBytes} bytes` };
  const text = new TextDecoder('utf-8', { fatal: false }).decode(read.bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The first `maxBytes` bytes of a regular file, one character per byte, opened as readSmallFile does
 * (no final symlink followed, no blocking on a FIFO); the reason when not read.
 */
function readFirstBytes(path: string, maxBytes: number): string | { refused: string } {
  let read;
  try {
    read = readBoundedNoFollow(path, maxBytes);
  } catch (error) {
    return { refused: refusalText(error, 'first bytes could not be read') };
  }
  if (!read) return { refused: 'first bytes could not be read (ENOENT)' };
  return Buffer.from(read.bytes.buffer, read.bytes.byteOffset, read.bytes.byteLength).toString('latin1');
}

/** readBoundedNoFollow's refusal in the words the walk's callers have always shown. */
function refusalText(error: unknown, cannot: string): string {
  const refusal = boundedReadRefusal(error);
  if (refusal?.reason === 'not-regular' && refusal.errno === undefined) return 'not a regular file';
  return `${cannot} (${refusal?.errno ?? codeOf(error)})`;
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? 'error';
}
