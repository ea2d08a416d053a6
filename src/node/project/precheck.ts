/**
 * The format cache checked before any engine or worker starts, so re-checking an unchanged tree
 * of any kind (formatted, would change, failing) costs a walk, a read and an HMAC per file.
 *
 * The runtime's key (format-cache.ts, `selection` basis) needs the engine: the formatter's version comes from its module,
 * the effective config from the loaded project config. The `tree` basis stands in for both with what
 * decides them and can be read without the engine: every project config file as discovery reads it
 * (and what it refused), the files formatter versions are pinned in (the root's and each package's), the user config, and the build of formatbox and of its formatters (the
 * formatters are pinned by formatbox's build). It is added only next to a full-key confirmation,
 * only for built-in formatters (`js`, `wasm`: a host's rustfmt or a command may change under the
 * same build), and only when the runtime saw the very bytes this run hashed.
 *
 * A hit is as safe as a full-key hit for these: same bytes, same path, same config files, same
 * formatter build. Reads here follow no symlink at the file (the walker entered no symlinked
 * directory) and a file with several hard links is never a hit: the runtime decides those.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, type BigIntStats } from 'node:fs';
import type { ProjectFiles, UserConfig } from '../../core/types.js';
import type { Discovered } from '../discover.js';
import { readUpTo } from '../fs/read.js';
import { nodeSha256 } from '../hash.js';
import { formatCacheKey, type CachedVerdict, type FormatCache } from '../format-cache.js';

/** hrtime (monotonic, cheap) minus the wall clock, in ns, taken once: a read's wall time without a Date per file. */
const HRTIME_TO_WALL_NS = process.hrtime.bigint() - BigInt(Date.now()) * 1_000_000n;

/** Files above this are left to the runtime (its own size limit decides). */
const MAX_PRECHECK_BYTES = 4 * 1024 * 1024;

export interface PrecheckEntry {
  /** The tree key of the bytes read now. */
  key: string;
  /** The cache holds `key`: the file is known formatted. */
  hit: boolean;
  /** Another verdict the cache holds for `key` (would change, failed): the answer where it suffices. */
  verdict?: Exclude<CachedVerdict, { kind: 'formatted' }>;
  /** For a miss: sha256 of the bytes read, to match the runtime's record before the key is added. */
  sha256?: string;
  /** For a miss: the file's identity and times when read (`confirmUnchangedSince`). */
  stat?: FileStamp;
}

/** What says a file was not written to: any write changes its ctime (and rename its inode). */
interface FileStamp {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  /** Wall clock (ns) just before the read. */
  readAtNs: bigint;
}

export interface Precheck {
  /** The entry for a project-relative path, or undefined when it cannot be read here. Keeps no bytes. */
  entryOf(path: string): PrecheckEntry | undefined;
  /** Records an entry after the runtime found exactly these bytes formatted by a built-in formatter. */
  confirm(entry: PrecheckEntry, record: { sha256: string } | undefined, via: string | undefined): void;
  /**
   * Records another verdict of a built-in formatter (would change, failed) for an entry, when the
   * runtime formatted exactly the bytes hashed here (`readSha256`: the sha256 of the bytes it read).
   */
  confirmVerdict(entry: PrecheckEntry, readSha256: string | undefined, via: string | undefined, verdict: Exclude<CachedVerdict, { kind: 'formatted' }>): void;
  /**
   * Records an entry after another judge (native Biome, which reads the file itself) found the file
   * formatted, when the judge provably read the bytes hashed here: same inode, size and times now as
   * when hashed, and the last change well before both the hash and `judgeStartedAtMs` (wall clock:
   * when the judge could first have read the file, which may be before this hash). A change in the
   * same clock tick as a read leaves the times equal: git's "racily clean" rule.
   */
  confirmUnchangedSince(entry: PrecheckEntry, path: string, judgeStartedAtMs: number, verdict?: CachedVerdict): boolean;
}

export interface PrecheckOptions {
  /** formatbox's and its formatters' build (see `formatterBuild` in src/node/version.ts). */
  build: string;
  config?: UserConfig;
  /** The pin files as read (pin-files.ts): a lockfile or a package's install decides the version that formats. */
  pinFiles?: ProjectFiles;
}

/** Margin between a file's last change and the first read of it, beyond the file system clock's tick. */
const RACY_NS = 100_000_000n;

/** Fingerprints the project's config files (`discovered`, as the runtime reads them) with the build and user config. */
export function openPrecheck(rootReal: string, cache: FormatCache, discovered: Discovered, options: PrecheckOptions): Precheck {
  const hash = createHash('sha256').update(options.build).update('\0').update(JSON.stringify(options.config ?? null)).update('\0');
  for (const name of Object.keys(discovered.files).sort()) {
    const text = discovered.files[name];
    hash.update(JSON.stringify([name, typeof text === 'string' ? nodeSha256(text) : null]));
  }
  hash.update(JSON.stringify([discovered.ignored, discovered.truncated])).update('\0');
  for (const name of Object.keys(options.pinFiles ?? {}).sort()) {
    const text = options.pinFiles![name];
    hash.update(JSON.stringify([name, typeof text === 'string' ? nodeSha256(text) : null]));
  }
  const fingerprint = hash.digest('hex');
  const root = rootReal.endsWith('/') ? rootReal : `${rootReal}/`;
  return {
    entryOf(path) {
      const read = readPlainFile(root + path);
      if (!read) return undefined;
      const key = formatCacheKey(cache, read.bytes, path, { tree: fingerprint });
      const verdict = cache.verdict(key);
      if (verdict?.kind === 'formatted') return { key, hit: true };
      return { key, hit: false, ...(verdict ? { verdict } : {}), sha256: nodeSha256(read.bytes), stat: read.stamp };
    },
    confirm(entry, record, via) {
      if ((via === 'js' || via === 'wasm') && record !== undefined && entry.sha256 !== undefined && record.sha256 === entry.sha256) cache.add(entry.key);
    },
    confirmVerdict(entry, readSha256, via, verdict) {
      if ((via === 'js' || via === 'wasm') && readSha256 !== undefined && entry.sha256 === readSha256) cache.record(entry.key, verdict);
    },
    confirmUnchangedSince(entry, path, judgeStartedAtMs, verdict = { kind: 'formatted' }) {
      const before = entry.stat;
      if (!before) return false;
      const judgeNs = BigInt(Math.floor(judgeStartedAtMs)) * 1_000_000n;
      const firstReadNs = judgeNs < before.readAtNs ? judgeNs : before.readAtNs;
      if (before.ctimeNs > firstReadNs - RACY_NS || before.mtimeNs > firstReadNs - RACY_NS) return false;
      let now: BigIntStats | undefined;
      try {
        now = lstatSync(root + path, { bigint: true });
      } catch {
        return false;
      }
      if (!now.isFile() || now.ino !== before.ino || now.size !== before.size || now.mtimeNs !== before.mtimeNs || now.ctimeNs !== before.ctimeNs) return false;
      cache.record(entry.key, verdict);
      return true;
    },
  };
}

/** A regular file's bytes and stamp, not through a final symlink, with one link; undefined otherwise. */
function readPlainFile(abs: string): { bytes: Uint8Array; stamp: FileStamp } | undefined {
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const readAtNs = process.hrtime.bigint() - HRTIME_TO_WALL_NS;
    const stat = fstatSync(fd, { bigint: true });
    if (!stat.isFile() || stat.nlink !== 1n || stat.size > BigInt(MAX_PRECHECK_BYTES)) return undefined;
    const size = Number(stat.size);
    const buffer = Buffer.allocUnsafe(size + 1); // only the bytes read are used
    const total = readUpTo(fd, buffer, buffer.length);
    if (total > size) return undefined; // grew while read: the runtime decides
    return { bytes: buffer.subarray(0, total), stamp: { ino: stat.ino, size: stat.size, mtimeNs: stat.mtimeNs, ctimeNs: stat.ctimeNs, readAtNs } };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
