/**
 * The cache of `formatbox format`, like `prettier --cache` and treefmt's: every verdict reached, per
 * key: formatted, would change (with the output's sha256 when known), or failed (with the receipt's
 * line). A file whose key has a verdict is answered by it; the key covers everything that decides
 * the output:
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
import { checkOwnedChain } from './fs/owned.js';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { FormatterInfo } from '../core/types.js';
import type { Selection } from '../config/select.js';
import { nodeSha256 } from './hash.js';
import { readSmallFile } from './walk.js';

/** Keys kept at most; the oldest go first. */
const MAX_KEYS = 200_000;
const KEY_LENGTH = 64;
/** Bumped when formatbox's own handling of text around the formatter (BOM, EOL, restore) changes. */
const CACHE_FORMAT = 'formatbox-format-cache-3';
/** Characters of a failed verdict's line kept. */
const MAX_LINE_CHARS = 500;

/** What is known of a file's bytes under one key. */
export type CachedVerdict =
  | { kind: 'formatted' }
  | { kind: 'would-change'; outputSha256?: string }
  | { kind: 'failed'; line: string };

/** What decides a file's formatted output, besides its bytes. */
export interface CacheIdentity {
  /** Project-relative POSIX path (overrides and includes in config depend on it). */
  path: string;
  formatter: FormatterInfo;
  /** The effective config for this file: JSON-able (selection settings, language, config dir). */
  config: unknown;
}

/**
 * What a key is computed over, besides the bytes and the path. Two bases, one key function:
 * - `selection`: the formatter and effective config the engine gives the file now (the runtime's
 *   key): formatter, language, settings (line endings included), the settings directory and the
 *   config files as written (an adapter may pass their text to the tool);
 * - `tree`: a fingerprint of everything that decides those before any engine starts (every
 *   project config file as discovered, the user config, formatbox's and its formatters' build:
 *   project/precheck.ts), so a tree of unchanged files is answered with a read and an HMAC each.
 */
export type CacheBasis =
  | { formatter: FormatterInfo; selection: Extract<Selection, { kind: 'format' }> }
  | { tree: string };

/** The one cache key of a file: its bytes and path under `basis`, HMAC'ed under the user's secret. */
export function formatCacheKey(cache: Pick<FormatCache, 'key'>, bytes: Uint8Array, path: string, basis: CacheBasis): string {
  if ('tree' in basis) return cache.key(bytes, { path, formatter: { name: 'formatbox tree key', version: basis.tree, via: 'js' }, config: null });
  const { selection } = basis;
  const sources = selection.configSources?.map((source) => [source.file, digestOfText(source.text)]) ?? null;
  const config = { formatter: selection.formatter, language: selection.language, settings: selection.settings, settingsDir: selection.settingsDir ?? null, sources };
  return cache.key(bytes, { path, formatter: basis.formatter, config });
}

/** sha256 of config texts, once per text (every file under one config shares it). */
const textDigests = new Map<string, string>();
function digestOfText(text: string): string {
  let digest = textDigests.get(text);
  if (digest === undefined) {
    digest = nodeSha256(text);
    if (textDigests.size >= 64) textDigests.clear(); // bounded: config texts may be large
    textDigests.set(text, digest);
  }
  return digest;
}

export interface FormatCache {
  /** Where it is kept. */
  readonly file: string;
  /** The HMAC of `identity` and `bytes`; callers use `formatCacheKey`, which says what the identity holds. */
  key(bytes: Uint8Array, identity: CacheIdentity): string;
  /** The key's verdict is "formatted". */
  has(key: string): boolean;
  /** Records "formatted". */
  add(key: string): void;
  /** The key's verdict, whatever it is. */
  verdict(key: string): CachedVerdict | undefined;
  record(key: string, verdict: CachedVerdict): void;
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
  const cacheRoot = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  const userCacheDir = join(cacheRoot, 'formatbox');
  // The user's cache, like the formatter store, is the user's own or not used (owned.ts): a secret or
  // verdicts another user could plant would make files pass as formatted. Then this run's own
  // secret (no hits) and nothing read or written there.
  let refusal: string | undefined;
  try {
    checkOwnedChain(cacheRoot, join(userCacheDir, 'projects'), { what: "the format cache's directory" }, { create: true });
  } catch (error) {
    refusal = (error as Error).message;
  }
  const secret = refusal === undefined ? userSecret(userCacheDir) : randomBytes(32);
  const file = cacheFileFor(rootReal, userCacheDir);
  const unusable = refusal !== undefined && !file.startsWith(join(rootReal, 'node_modules'));
  const keys = unusable ? new Map<string, string>() : readEntries(file);
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
      return this.verdict(key)?.kind === 'formatted';
    },
    verdict(key) {
      const encoded = keys.get(key);
      if (encoded === undefined) stats.misses++;
      else stats.hits++;
      return encoded === undefined ? undefined : decodeVerdict(encoded);
    },
    get size() {
      return keys.size;
    },
    add(key) {
      this.record(key, { kind: 'formatted' });
    },
    record(key, verdict) {
      const encoded = encodeVerdict(verdict);
      if (keys.get(key) === encoded) return;
      keys.delete(key); // re-inserted last: the newest are kept
      keys.set(key, encoded);
      stats.added++;
      dirty = true;
    },
    save() {
      if (!dirty) return undefined;
      if (unusable) return `the cache was not written: ${refusal}`;
      try {
        // Another run may have saved meanwhile: keep its entries too (older first, ours win).
        const merged = readEntries(file);
        for (const [key, encoded] of keys) {
          merged.delete(key);
          merged.set(key, encoded);
        }
        const list = [...merged].slice(-MAX_KEYS);
        // Formatted keys as a plain list (most of a cache); other verdicts beside them.
        const formatted = list.filter(([, v]) => v === FORMATTED).map(([k]) => k);
        const others = Object.fromEntries(list.filter(([, v]) => v !== FORMATTED));
        writeReplacing(file, JSON.stringify({ format: CACHE_FORMAT, keys: formatted, verdicts: others }));
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

/** A verdict as kept: `f`, `c` or `c:<sha256>`, `x:<line>`. */
const FORMATTED = 'f';

function encodeVerdict(verdict: CachedVerdict): string {
  if (verdict.kind === 'formatted') return FORMATTED;
  if (verdict.kind === 'would-change') return verdict.outputSha256 ? `c:${verdict.outputSha256}` : 'c';
  return `x:${verdict.line.slice(0, MAX_LINE_CHARS)}`;
}

function decodeVerdict(encoded: string): CachedVerdict | undefined {
  if (encoded === FORMATTED) return { kind: 'formatted' };
  if (encoded === 'c') return { kind: 'would-change' };
  if (/^c:[0-9a-f]{64}$/.test(encoded)) return { kind: 'would-change', outputSha256: encoded.slice(2) };
  if (encoded.startsWith('x:')) return { kind: 'failed', line: encoded.slice(2, 2 + MAX_LINE_CHARS) };
  return undefined;
}

/** The entries of a cache file, in its order; anything malformed is left out (it can only miss). */
function readEntries(file: string): Map<string, string> {
  const entries = new Map<string, string>();
  const text = readSmallFile(file, 64 * 1024 * 1024);
  if (typeof text !== 'string') return entries;
  try {
    const parsed = JSON.parse(text) as { format?: unknown; keys?: unknown; verdicts?: unknown };
    if (parsed.format !== CACHE_FORMAT || !Array.isArray(parsed.keys)) return entries;
    // The length check keeps junk out cheaply.
    for (const key of parsed.keys) if (typeof key === 'string' && key.length === KEY_LENGTH) entries.set(key, FORMATTED);
    if (parsed.verdicts && typeof parsed.verdicts === 'object' && !Array.isArray(parsed.verdicts)) {
      for (const [key, encoded] of Object.entries(parsed.verdicts as Record<string, unknown>)) {
        if (key.length === KEY_LENGTH && typeof encoded === 'string' && decodeVerdict(encoded)) entries.set(key, encoded);
      }
    }
  } catch {
    return new Map();
  }
  return entries;
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
