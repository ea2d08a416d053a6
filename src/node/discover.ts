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
import { prettierStringConfig } from '../formatters/prettier/config.js';
import { resolveRequire } from '../config/require-resolve.js';
import type { FileLookup } from '../config/package-resolve.js';
import { dirOf } from '../config/paths.js';
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
  /** Files the resolution of shared configs looked for and did not find (an install may add them: the config watch looks). */
  absent?: string[];
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
  await collectSharedConfigs(realRoot, allowance, out);
  return out;
}

/** Files looked at, in all, to resolve the shared configs of one project (each costs a realpath and maybe a read). */
const MAX_SHARED_CONFIG_LOOKUPS = 512;
/** Rounds of resolution: each round reads what the last one asked for (a package.json, then its target). */
const MAX_SHARED_CONFIG_ROUNDS = 16;
/** Files a shared-config resolution only checks to exist: code (never read, so never quoted in a message either). */
const CODE_EXTENSIONS = /\.([cm]?[jt]sx?|node|wasm)$/i;

/**
 * Reads the files that config files name: what Biome configs `extends` (one level: Biome does not
 * follow `extends` in an extended file) and the shared configs of Prettier string configs, with the
 * package resolution of each tool (biome/resolve.ts, config/require-resolve.ts) run over a lookup
 * that records what it asked for; each round reads those files (inside the root only, under the same
 * rules as config files) until nothing new is asked. A missing file stays absent: the config module
 * refuses the config that needs it. A file that is not JSON is recorded as present, never read.
 */
async function collectSharedConfigs(realRoot: string, allowance: ReadAllowance, out: Discovered): Promise<void> {
  // The configs that name other files, found once (a cheap text test first: most name none).
  const jobs: Array<(lookup: FileLookup) => void> = [];
  for (const [key, text] of Object.entries(out.files)) {
    if (typeof text !== 'string' || key.split('/').includes('node_modules')) continue;
    const name = key.slice(key.lastIndexOf('/') + 1);
    // A relative target is not looked up by the resolver: it is read here like any asked-for file.
    if (BIOME_CONFIG_NAMES.includes(name) && text.includes('extends')) jobs.push((lookup) => biomeExtendsTargets(key, text, lookup).forEach((target) => lookup(target)));
    const specifier = (name !== 'package.json' && name !== 'package.yaml') || text.includes('prettier') ? prettierStringConfig(key, text) : undefined;
    if (specifier !== undefined) jobs.push((lookup) => resolveRequire(specifier, dirOf(key), lookup));
  }
  const absent = new Set<string>();
  let lookups = 0;
  for (let round = 0; round < MAX_SHARED_CONFIG_ROUNDS && jobs.length > 0; round++) {
    const asked = new Set<string>();
    const lookup: FileLookup = (path) => {
      if (Object.hasOwn(out.files, path)) return out.files[path];
      if (!absent.has(path)) asked.add(path);
      return undefined;
    };
    jobs.forEach((job) => job(lookup));
    if (asked.size === 0) break;
    for (const path of asked) {
      if (++lookups > MAX_SHARED_CONFIG_LOOKUPS) {
        out.files[path] = null;
        out.truncated = true;
        out.ignored.push({ file: path, item: path.slice(path.lastIndexOf('/') + 1), reason: `not read: resolving shared configs looked at more than ${MAX_SHARED_CONFIG_LOOKUPS} files` });
        continue;
      }
      if (!(await collectInRoot(realRoot, path, allowance, out))) absent.add(path);
    }
  }
  if (absent.size > 0) out.absent = [...absent].sort();
}

/**
 * Reads the project-relative `path` if it is a file inside the root (through symlinks that stay
 * inside it, such as pnpm's `node_modules/.pnpm` links); false when there is no such file (a
 * directory is none). A path that resolves out of the root is recorded as present, never read.
 */
async function collectInRoot(realRoot: string, path: string, allowance: ReadAllowance, out: Discovered): Promise<boolean> {
  const name = path.slice(path.lastIndexOf('/') + 1);
  let real: string;
  try {
    real = await fs.realpath(join(realRoot, ...path.split('/')));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    out.files[path] = null;
    out.ignored.push({ file: path, item: name, reason: `could not be resolved (${code ?? 'error'}); not read` });
    return true;
  }
  if (!isInside(real, realRoot)) {
    out.files[path] = null;
    out.ignored.push({ file: path, item: name, reason: 'a symlink that leaves the project root (it, or a directory on its way); not read' });
    return true;
  }
  let stat: import('node:fs').Stats;
  try {
    stat = await fs.lstat(real);
  } catch {
    return false;
  }
  if (stat.isDirectory()) return false;
  if (CODE_EXTENSIONS.test(name)) {
    out.files[path] = null; // Present: the resolvers need no more, and the config module refuses it as code.
    out.ignored.push({ file: path, item: name, reason: 'code; a shared config that is code is never read' });
    return true;
  }
  // pnpm hard-links every file of node_modules/.pnpm to its store: there a second name is the package manager's copy.
  await collect(real, path, allowance, out, path.split('/').includes('node_modules'));
  return true;
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
  await collectSharedConfigs(realRoot, allowance, out);
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
async function collect(target: string, key: string, allowance: ReadAllowance, out: Discovered, hardLinksAllowed = false): Promise<void> {
  const name = key.slice(key.lastIndexOf('/') + 1);
  if (CODE_NAMES.has(name)) {
    out.files[key] = null; // Present, never read: the config module reports it.
    return;
  }
  const read = await readBounded(target, Math.min(allowance.perFile, allowance.remaining), allowance.refuseHardLinks && !hardLinksAllowed);
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
