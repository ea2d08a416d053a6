/**
 * Finds and reads project config files on disk, as data, within the project root.
 * - Never reads above the root; never follows a symlink whose target leaves the root
 *   (nor a symlinked directory at all); reads regular files only (a FIFO or device is refused).
 * - Code config files (prettier.config.js, …) are recorded as `null`: present, never read.
 * - Bounded: directories and entries visited, depth, and bytes per file.
 * Everything not read is reported in `ignored`, with the reason.
 */
import { constants, promises as fs } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import type { IgnoredItem, ProjectFiles } from '../core/types.js';
import { CODE_CONFIG_FILE_NAMES, CONFIG_FILE_NAMES } from '../config/index.js';
import { isInside } from './fs/paths.js';
import { biomeExtendsTargets } from '../formatters/biome/extends.js';
import { BIOME_CONFIG_NAMES } from '../formatters/biome/config.js';
import { walkTree } from './walk.js';

interface DiscoverOptions {
  /** Bytes per config file. Default 1 MiB. */
  maxBytes?: number;
  /** Directories visited. Default 5000. */
  maxDirs?: number;
  /** Directory entries looked at, in total. Default 200 000. */
  maxEntries?: number;
  /** Directory depth below the root. Default 24. */
  maxDepth?: number;
  /**
   * Characters over all config files (each file is refused when its size in bytes is above what is
   * left). Default 16 Mi, twice the project config budget's text: a project that reaches it is over
   * that budget and refused, never formatted with part of its config.
   */
  maxTotalChars?: number;
  /**
   * Refuse a config file with more than one hard link (untrusted mode), as source files are: another
   * of its names may be a file outside the project (a key, `.npmrc`), whose text a config error would quote.
   */
  refuseHardLinks?: boolean;
}

export interface Discovered {
  files: ProjectFiles;
  ignored: IgnoredItem[];
  /** True when a bound stopped the walk early. */
  truncated: boolean;
}

const DEFAULTS = { maxBytes: 1024 * 1024, maxDirs: 5000, maxEntries: 200_000, maxDepth: 24, maxTotalChars: 16 * 1024 * 1024 };

/** What may still be read in one discovery (characters, see `maxTotalChars`). */
interface ReadAllowance {
  refuseHardLinks: boolean;
  perFile: number;
  total: number;
  remaining: number;
}

/** Directories never searched for config (dependencies, VCS data, caches, build output of big toolchains). */
export const SKIPPED_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', '.venv', 'venv', '__pycache__', '.tox', '.mypy_cache', '.ruff_cache', '.pytest_cache', '.next', '.turbo', '.cache', 'target', 'bower_components', 'vendor']);

const NAMES = new Set(CONFIG_FILE_NAMES);
const CODE_NAMES = new Set(CODE_CONFIG_FILE_NAMES);

/** Walks `root` breadth-first (the shared walker, walk.ts) and reads every config file it knows, as data. */
export async function discoverProjectFiles(root: string, options: DiscoverOptions = {}): Promise<Discovered> {
  const limits = { ...DEFAULTS, ...options };
  const realRoot = await fs.realpath(resolve(root));
  const out: Discovered = { files: {}, ignored: [], truncated: false };
  const allowance: ReadAllowance = { refuseHardLinks: limits.refuseHardLinks === true, perFile: limits.maxBytes, total: limits.maxTotalChars, remaining: limits.maxTotalChars };
  const walked = await walkTree(realRoot, '', {
    maxDirs: limits.maxDirs,
    maxEntries: limits.maxEntries,
    maxDepth: limits.maxDepth,
    skipDirNames: SKIPPED_DIRS,
    wantFile: (name) => NAMES.has(name),
  });
  for (const file of walked.files) await collect(file.linkTarget ?? file.abs, file.rel, allowance, out);
  for (const item of walked.skipped) {
    if (item.kind !== 'file') continue;
    out.files[item.rel] = null; // Present, not read.
    out.ignored.push({ file: item.rel, item: item.rel.slice(item.rel.lastIndexOf('/') + 1), reason: item.reason });
  }
  if (walked.truncated) {
    out.truncated = true;
    out.ignored.push({ file: '.', item: 'config search', reason: walked.truncated });
  }
  await collectBiomeExtends(realRoot, allowance, out);
  return out;
}

/**
 * Reads the files inside the root that Biome configs `extends` (one level: Biome does not follow
 * `extends` in an extended file), under the same rules. A missing file stays absent: the config
 * module refuses the config that names it.
 */
async function collectBiomeExtends(realRoot: string, allowance: ReadAllowance, out: Discovered): Promise<void> {
  const configs = Object.entries(out.files).filter(([key]) => BIOME_CONFIG_NAMES.includes(key.slice(key.lastIndexOf('/') + 1)));
  for (const [key, text] of configs) {
    if (typeof text !== 'string') continue;
    for (const target of biomeExtendsTargets(key, text)) {
      if (target in out.files) continue;
      const full = join(realRoot, ...target.split('/'));
      let isLink: boolean;
      try {
        isLink = (await fs.lstat(full)).isSymbolicLink();
      } catch {
        continue;
      }
      await collectNamed(realRoot, full, isLink, allowance, out);
    }
  }
}

/**
 * Reads only the config files on the way from the root to `path` (project-relative or absolute),
 * for big trees where a full walk is not wanted. Same rules as `discoverProjectFiles`.
 */
export async function discoverConfigForPath(root: string, path: string, options: Pick<DiscoverOptions, 'maxBytes' | 'maxTotalChars' | 'refuseHardLinks'> = {}): Promise<Discovered> {
  const total = options.maxTotalChars ?? DEFAULTS.maxTotalChars;
  const allowance: ReadAllowance = { refuseHardLinks: options.refuseHardLinks === true, perFile: options.maxBytes ?? DEFAULTS.maxBytes, total, remaining: total };
  const realRoot = await fs.realpath(resolve(root));
  const out: Discovered = { files: {}, ignored: [], truncated: false };
  const target = resolve(realRoot, path);
  const inside = relative(realRoot, target);
  if (inside.startsWith('..') || resolve(realRoot, inside) !== target) return out;
  const segments = inside.split(sep).slice(0, -1);
  let dir = realRoot;
  for (let i = 0; i <= segments.length; i++) {
    let listing: import('node:fs').Dirent[];
    try {
      const stat = await fs.lstat(dir);
      if (!stat.isDirectory()) break; // A symlinked directory is not followed.
      listing = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      break;
    }
    for (const entry of listing) {
      if (NAMES.has(entry.name) && !entry.isDirectory()) await collectNamed(realRoot, join(dir, entry.name), entry.isSymbolicLink(), allowance, out);
    }
    const next = segments[i];
    if (next === undefined || SKIPPED_DIRS.has(next)) break;
    dir = join(dir, next);
  }
  await collectBiomeExtends(realRoot, allowance, out);
  return out;
}

/** A config file found by name in `discoverConfigForPath`: a symlink is read only when it stays inside the root. */
async function collectNamed(realRoot: string, full: string, isLink: boolean, allowance: ReadAllowance, out: Discovered): Promise<void> {
  const key = rel(realRoot, full);
  const name = key.slice(key.lastIndexOf('/') + 1);
  if (!isLink) return collect(full, key, allowance, out);
  let real: string;
  try {
    real = await fs.realpath(full);
  } catch {
    out.ignored.push({ file: key, item: name, reason: 'a symlink whose target does not exist' });
    return;
  }
  if (!isInside(real, realRoot)) {
    out.files[key] = null;
    out.ignored.push({ file: key, item: name, reason: 'a symlink that leaves the project root; not read' });
    return;
  }
  return collect(real, key, allowance, out);
}

/** Reads one config file (`target`: a regular file inside the root) under its project-relative `key`. */
async function collect(target: string, key: string, allowance: ReadAllowance, out: Discovered): Promise<void> {
  const name = key.slice(key.lastIndexOf('/') + 1);
  if (CODE_NAMES.has(name)) {
    out.files[key] = null; // Present, never read: the config module reports it.
    return;
  }
  const read = await readBounded(target, Math.min(allowance.perFile, allowance.remaining), allowance.refuseHardLinks);
  if ('refused' in read) {
    out.files[key] = null;
    const overTotal = read.size !== undefined && read.size <= allowance.perFile;
    if (overTotal) out.truncated = true;
    out.ignored.push({ file: key, item: name, reason: overTotal ? `not read: config files add up to more than ${allowance.total} characters` : read.refused });
    return;
  }
  // Counted in characters, as the config budget counts text: reaching this total means being over it.
  allowance.remaining -= read.text.length;
  out.files[key] = read.text;
}

/** Reads a regular file without following a final symlink, up to `maxBytes`. */
async function readBounded(path: string, maxBytes: number, refuseHardLinks: boolean): Promise<{ text: string } | { refused: string; size?: number }> {
  let handle: import('node:fs/promises').FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO must not hang; O_NOFOLLOW: the path was checked, a swapped-in link is refused.
    handle = await fs.open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return { refused: `could not be opened (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { refused: 'not a regular file' };
    if (refuseHardLinks && stat.nlink > 1) return { refused: `not read: it has ${stat.nlink} hard links, and another of its names may be a file outside the project (trust the project to allow hard-linked config files)` };
    if (stat.size > maxBytes) return { refused: `larger than ${maxBytes} bytes (${stat.size})`, size: stat.size };
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
    let total = 0;
    while (total < buffer.length) {
      const { bytesRead } = await handle.read(buffer, total, buffer.length - total, total);
      if (bytesRead === 0) break;
      total += bytesRead;
    }
    if (total > maxBytes) return { refused: `larger than ${maxBytes} bytes`, size: total };
    const text = new TextDecoder('utf-8', { fatal: false }).decode(buffer.subarray(0, total));
    return { text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
  } finally {
    await handle.close();
  }
}

function rel(root: string, path: string): string {
  return relative(root, path).split(sep).join('/');
}
