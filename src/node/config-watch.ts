/**
 * Notices project config files that changed, appeared or disappeared on disk (git, an editor, `sed`)
 * along one file's path, and the files formatter versions are pinned in (pin-files.ts: lockfiles, the
 * installed formatters' package.json; an install, a lockfile update), so a warm runtime never formats
 * with stale config or with the version the project no longer pins.
 *
 * Cheap per call: one `stat` per directory from the root to the file and one per config file in
 * them, and one per per-package pin file (a package's installed formatter) in those directories. A directory whose stat changed is listed again (a config file appeared or went); a file
 * whose stat changed is read and hashed (the content decides, not the time). Anything modified in the
 * last `RACY_MS` is re-verified on every call, because file times are coarse (a write within the same
 * tick as the last look keeps the same mtime): the same rule git applies to its index. The pin files
 * and the files a Biome config `extends` are checked on every call, whatever the path.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, realpathSync, statSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import type { ProjectFiles } from '../core/types.js';
import { CONFIG_FILE_NAMES } from '../config/index.js';
import { PIN_SOURCE_FILES } from '../config/pins.js';
import { biomeExtendsTargets } from '../formatters/biome/extends.js';
import { BIOME_CONFIG_NAMES } from '../formatters/biome/config.js';
import { SKIPPED_DIRS } from './discover.js';
import { isInside } from './fs/paths.js';
import type { PinFiles } from './pin-files.js';

/** Config files larger than this are compared by stat only (discovery does not read them either). */
const MAX_READ_BYTES = 1024 * 1024;

/** Entries modified this recently (ms) are verified by content on every check. */
const RACY_MS = 2000;

export interface ConfigWatch {
  /**
   * True when, since the last `reset`, a config file in a directory from the root down to `path`'s
   * changed, or a pin file (or a file a Biome config extends) changed, appeared or went.
   */
  changed(path: string): boolean;
  /**
   * Takes the config files just discovered, the pin files just read (readPinFiles) and the files the
   * resolution of shared configs looked for and did not find (Discovered.absent) as the known state.
   */
  reset(files: ProjectFiles, pins: PinFiles, absent?: readonly string[]): void;
}

interface DirState {
  signature: string;
  mtimeMs: number;
  /** Config file names present in the directory. */
  names: string[];
}

interface FileState {
  /** Undefined until first checked after a reset: the first check compares the content. */
  signature?: string;
  mtimeMs: number;
  /** sha1 of the bytes last seen, or the discovered text to compare on the first check (null: present, not read). */
  hash?: string;
  discovered: string | null;
}

const NAMES = new Set(CONFIG_FILE_NAMES);

export function createConfigWatch(rootReal: string): ConfigWatch {
  let dirs = new Map<string, DirState>();
  let files = new Map<string, FileState>();
  /**
   * Files config files name (anywhere in the root, not only on a file's path): what Biome configs
   * `extends` and the shared configs resolved from node_modules, with the package.json files their
   * resolution read; read ones, and missing ones (an install may add them).
   */
  let extendedFiles: string[] = [];
  let missingExtended: string[] = [];
  /** PIN_SOURCE_FILES present at the last reset (read, or present and not read), and those absent. */
  let pins = new Map<string, FileState>();
  let presentPins: string[] = [];
  let missingPins: string[] = [];
  /** Per package directory, the per-package pin files looked for there (readPinFiles' `nestedCandidates`). */
  let nestedPins = new Map<string, string[]>();

  function statOf(abs: string): BigIntStats | undefined {
    try {
      return statSync(abs, { bigint: true, throwIfNoEntry: false }) ?? undefined;
    } catch {
      return undefined;
    }
  }

  function signatureOf(stat: BigIntStats): string {
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
  }

  function racy(mtimeMs: number): boolean {
    return Date.now() - mtimeMs < RACY_MS;
  }

  function configNamesIn(abs: string): string[] {
    try {
      return readdirSync(abs).filter((name) => NAMES.has(name)).sort();
    } catch {
      return [];
    }
  }

  /** Whether the directory's set of config files differs from what is known. */
  function directoryChanged(dir: string): boolean {
    const abs = join(rootReal, dir);
    const stat = statOf(abs);
    const known = dirs.get(dir);
    if (!stat || !stat.isDirectory()) {
      // The directory went away: changed if it held known config files.
      dirs.delete(dir);
      return [...files.keys()].some((file) => parentOf(file) === dir);
    }
    const signature = signatureOf(stat);
    const mtimeMs = Number(stat.mtimeMs);
    if (known && known.signature === signature && !racy(known.mtimeMs)) return false;
    const names = configNamesIn(abs);
    dirs.set(dir, { signature, mtimeMs, names });
    const expected = [...files.keys()].filter((file) => parentOf(file) === dir && NAMES.has(baseOf(file))).map(baseOf).sort();
    return names.join('\0') !== expected.join('\0');
  }

  function appeared(file: string): boolean {
    return statOf(join(rootReal, file)) !== undefined;
  }

  function pinChanged(file: string): boolean {
    return fileChanged(file, pins);
  }

  function fileChanged(file: string, states: Map<string, FileState> = files): boolean {
    const known = states.get(file);
    const stat = statOf(join(rootReal, file));
    if (!known || !stat) return true;
    const signature = signatureOf(stat);
    const mtimeMs = Number(stat.mtimeMs);
    if (known.signature === signature && !racy(known.mtimeMs)) return false;
    const bytes = readSafely(rootReal, join(rootReal, file));
    if (bytes === undefined) {
      // Not a regular file inside the root (a FIFO, a link out, too large): its stat is what is compared.
      const differs = known.signature !== undefined;
      states.set(file, { ...known, signature, mtimeMs });
      return differs;
    }
    const hash = createHash('sha1').update(bytes).digest('hex');
    let differs: boolean;
    if (known.hash !== undefined) differs = hash !== known.hash;
    else if (known.discovered === null) differs = false; // present, never read (code config, too large): existence is what counts
    else {
      const text = bytes.toString('utf8');
      differs = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) !== known.discovered;
    }
    states.set(file, { ...known, signature, mtimeMs, hash });
    return differs;
  }

  return {
    changed(path: string): boolean {
      if (extendedFiles.some((file) => fileChanged(file)) || missingExtended.some(appeared)) return true;
      if (presentPins.some(pinChanged) || missingPins.some(appeared)) return true;
      const segments = path.split('/').slice(0, -1);
      let dir = '';
      for (let i = 0; i <= segments.length; i++) {
        if (directoryChanged(dir)) return true;
        for (const name of dirs.get(dir)?.names ?? []) {
          if (fileChanged(dir === '' ? name : `${dir}/${name}`)) return true;
        }
        // A package's own install of a formatter along the path: installed, upgraded or removed.
        for (const file of nestedPins.get(dir) ?? []) if (pins.has(file) ? pinChanged(file) : appeared(file)) return true;
        const next = segments[i];
        if (next === undefined || SKIPPED_DIRS.has(next)) break;
        dir = dir === '' ? next : `${dir}/${next}`;
      }
      return false;
    },
    reset(discovered: ProjectFiles, pinFiles: PinFiles, absent: readonly string[] = []): void {
      dirs = new Map();
      files = new Map(Object.entries(discovered).map(([file, text]) => [file, { mtimeMs: 0, discovered: text }]));
      const targets = new Set<string>(absent);
      for (const [file, text] of Object.entries(discovered)) {
        // Not found on a walk along a path: a file inside node_modules, or one that is no config file by name.
        if (file.split('/').includes('node_modules') || !NAMES.has(baseOf(file))) targets.add(file);
        if (typeof text === 'string' && BIOME_CONFIG_NAMES.includes(baseOf(file))) biomeExtendsTargets(file, text).forEach((target) => targets.add(target));
      }
      extendedFiles = [...targets].filter((file) => files.has(file));
      missingExtended = [...targets].filter((file) => !files.has(file));
      const unread = new Set(pinFiles.ignored.map((item) => item.file));
      pins = new Map();
      for (const file of PIN_SOURCE_FILES) {
        const text = pinFiles.files[file];
        if (typeof text === 'string') pins.set(file, { mtimeMs: 0, discovered: text });
        else if (unread.has(file)) pins.set(file, { mtimeMs: 0, discovered: null });
      }
      presentPins = [...pins.keys()];
      missingPins = PIN_SOURCE_FILES.filter((file) => !pins.has(file));
      nestedPins = new Map();
      for (const file of pinFiles.nestedCandidates) {
        const text = pinFiles.files[file];
        if (typeof text === 'string') pins.set(file, { mtimeMs: 0, discovered: text });
        else if (unread.has(file)) pins.set(file, { mtimeMs: 0, discovered: null });
        const dir = nestedDirOf(file);
        nestedPins.set(dir, [...(nestedPins.get(dir) ?? []), file]);
      }
    },
  };
}

/**
 * The bytes of a regular file inside the root, up to MAX_READ_BYTES; undefined for anything else. Never
 * blocks on a FIFO (O_NONBLOCK) and never reads through a symlink that leaves the root.
 */
function readSafely(rootReal: string, abs: string): Buffer | undefined {
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    return undefined;
  }
  if (!isInside(real, rootReal)) return undefined;
  let fd: number | undefined;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_READ_BYTES) return undefined;
    const buffer = Buffer.alloc(stat.size);
    let total = 0;
    while (total < buffer.length) {
      const read = readSync(fd, buffer, total, buffer.length - total, total);
      if (read === 0) break;
      total += read;
    }
    return buffer.subarray(0, total);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** `packages/a` for `packages/a/node_modules/prettier/package.json`. */
function nestedDirOf(file: string): string {
  return file.slice(0, file.lastIndexOf('/node_modules/'));
}

function parentOf(file: string): string {
  const slash = file.lastIndexOf('/');
  return slash < 0 ? '' : file.slice(0, slash);
}

function baseOf(file: string): string {
  return file.slice(file.lastIndexOf('/') + 1);
}
