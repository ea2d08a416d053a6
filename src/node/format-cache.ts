/**
 * The cache of `formatbox format`, like `prettier --cache` and treefmt's: the set of files known to
 * be formatted. A file is skipped when its key is in the set; the key covers everything that
 * decides the output:
 *   the file's bytes (hashed: a hit is verified by content, never by mtime), its path, the
 *   formatter's name, version and build, the effective config for that file (settings, language,
 *   config directory), and formatbox's own version.
 * Keys are HMAC-SHA256 under a per-user secret (`$XDG_CACHE_HOME/formatbox/secret`, mode 0600), so
 * a repository cannot ship a cache file that makes `--check` pass on files that are not formatted.
 *
 * Where: `<root>/node_modules/.cache/formatbox/format-cache.json` when `node_modules` is a real
 * directory (as Prettier does), else `$XDG_CACHE_HOME/formatbox/projects/<hash of root>.json`
 * (`~/.cache` when unset). Nothing is followed through a symlink; a cache that cannot be read is
 * treated as empty, one that cannot be written is reported and the run goes on.
 */
import { createHmac, createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, lstatSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { FormatterInfo } from '../core/types.js';
import { readSmallFile } from './walk.js';

/** Keys kept at most; the oldest go first. */
const MAX_KEYS = 200_000;
const KEY_LENGTH = 64;
/** Bumped when formatbox's own handling of text around the formatter (BOM, EOL, restore) changes. */
const CACHE_FORMAT = 'formatbox-format-cache-2';

/** What decides a file's formatted output, besides its bytes. */
export interface CacheIdentity {
  /** Project-relative POSIX path (overrides and includes in config depend on it). */
  path: string;
  formatter: FormatterInfo;
  /** The effective config for this file: JSON-able (selection settings, language, config dir). */
  config: unknown;
}

export interface FormatCache {
  /** Where it is kept. */
  readonly file: string;
  key(bytes: Uint8Array, identity: CacheIdentity): string;
  has(key: string): boolean;
  add(key: string): void;
  /** Keys held (read at open, plus those added since). */
  readonly size: number;
  /** Writes the cache (merged with what another run may have saved meanwhile). Returns a problem, if any. */
  save(): string | undefined;
  readonly stats: { hits: number; misses: number; added: number };
}

export interface OpenCacheOptions {
  env?: NodeJS.ProcessEnv;
  /** formatbox's version, part of every key. */
  version: string;
}

/** Opens (or starts) the cache of the project at `rootReal`. */
export function openFormatCache(rootReal: string, options: OpenCacheOptions): FormatCache {
  const env = options.env ?? process.env;
  const userCacheDir = join(env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache'), 'formatbox');
  const secret = userSecret(userCacheDir);
  const file = cacheFileFor(rootReal, userCacheDir);
  const keys = new Set<string>(readKeys(file));
  const stats = { hits: 0, misses: 0, added: 0 };
  let dirty = false;
  const prefix = `${CACHE_FORMAT}\0${options.version}\0`;
  return {
    file,
    stats,
    key(bytes, identity) {
      const { path, formatter, config } = identity;
      const header = JSON.stringify([path, formatter.name, formatter.version, formatter.via, config]);
      return createHmac('sha256', secret).update(prefix).update(header).update('\0').update(bytes).digest('hex');
    },
    has(key) {
      const hit = keys.has(key);
      if (hit) stats.hits++;
      else stats.misses++;
      return hit;
    },
    get size() {
      return keys.size;
    },
    add(key) {
      if (keys.has(key)) return;
      keys.add(key);
      stats.added++;
      dirty = true;
    },
    save() {
      if (!dirty) return undefined;
      try {
        // Another run may have saved meanwhile: keep its keys too (older first).
        const merged = new Set([...readKeys(file), ...keys]);
        const list = [...merged].slice(-MAX_KEYS);
        writeReplacing(file, JSON.stringify({ format: CACHE_FORMAT, keys: list }));
        dirty = false;
        return undefined;
      } catch (error) {
        return `the cache could not be written to ${file}: ${(error as Error).message}`;
      }
    },
  };
}

/** `node_modules/.cache/formatbox` when node_modules is a real directory (no link anywhere), else the user's cache. */
function cacheFileFor(rootReal: string, userCacheDir: string): string {
  const nodeModules = join(rootReal, 'node_modules');
  if (isRealDirectory(nodeModules)) {
    const dir = join(nodeModules, '.cache', 'formatbox');
    if (ensureRealDirectory(join(nodeModules, '.cache')) && ensureRealDirectory(dir)) return join(dir, 'format-cache.json');
  }
  const dir = join(userCacheDir, 'projects');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return join(dir, `${createHash('sha256').update(rootReal).digest('hex').slice(0, 24)}.json`);
}

function isRealDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function ensureRealDirectory(path: string): boolean {
  try {
    mkdirSync(path);
  } catch {
    // exists (or cannot be made): checked below
  }
  return isRealDirectory(path);
}

/** The per-user HMAC secret, created once (0600). Without a writable home, a per-run one: no hits across runs. */
function userSecret(dir: string): Buffer {
  const file = join(dir, 'secret');
  for (let attempt = 0; attempt < 2; attempt++) {
    const read = readSmallFile(file, 1024);
    if (typeof read === 'string' && /^[0-9a-f]{64}\n?$/.test(read)) return Buffer.from(read.trim(), 'hex');
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        writeSync(fd, `${randomBytes(32).toString('hex')}\n`);
      } finally {
        closeSync(fd);
      }
    } catch {
      // Another run created it first (read again), or the directory is not writable.
    }
  }
  return randomBytes(32);
}

function readKeys(file: string): string[] {
  const text = readSmallFile(file, 64 * 1024 * 1024);
  if (typeof text !== 'string') return [];
  try {
    const parsed = JSON.parse(text) as { format?: unknown; keys?: unknown };
    if (parsed.format !== CACHE_FORMAT || !Array.isArray(parsed.keys)) return [];
    // A malformed key can only miss; the length check keeps junk out cheaply.
    return parsed.keys.filter((k): k is string => typeof k === 'string' && k.length === KEY_LENGTH);
  } catch {
    return [];
  }
}

/** Temp file beside it (O_EXCL, no symlink follow), then rename: a reader sees the old or the new file. */
function writeReplacing(file: string, text: string): void {
  const temp = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, file);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // gone
    }
    throw error;
  }
}
