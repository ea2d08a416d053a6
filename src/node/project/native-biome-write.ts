/**
 * `--write` for the files native Biome formats (native-biome-pass.ts), from native Biome's own
 * output, in one run (no check first): it writes a private scratch copy inside the sandbox, its
 * report says which files it fixed, found formatted or flagged, and formatbox commits each fixed
 * file with its own compare-and-swap write against the bytes it copied.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, statSync, statfsSync, writeFileSync } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isFormatboxError, messageOf } from '../../core/errors.js';
import { sameBytes, stageWrite, type StagedWrite } from '../fs/staged-write.js';
import { syncFileSystem } from '../fs/sync-fs.js';
import { readOpenFile, readSnapshot, type FileSnapshot } from '../fs/read.js';
import { openPinnedDir, type PinnedDir } from '../pinned-dir.js';
import { writeWithNativeBiome } from '../biome-native.js';
import { walkTargets, type NativePassOptions } from './native-biome-pass.js';

/** What `writeNatively` did: the files it wrote, those whose write failed, and why it stopped early (the rest: the per-file path). */
export interface NativeWrites {
  written: Set<string>;
  failed: Map<string, { code: string; message: string }>;
  /** Processed by native Biome and neither fixed nor flagged: formatted as they are. */
  formatted: Set<string>;
  /** Fixed by native Biome (written, failed, or left to the per-file path when its bytes could not be taken). */
  fixed: Set<string>;
  /** Flagged by native Biome (a parse error, a warning): the per-file path decides. */
  flagged: Map<string, string>;
  notUsed?: string;
  seconds: number;
  /** Wall clock (ms) when the first copy was read: native Biome read no file before. */
  startedAtMs: number;
}

/** Most files per native `--write` run: bounds the bytes held (each file's prior, for the compare-and-swap) and the scratch copy. */
const MAX_WRITE_BATCH = 2000;
/** Fewest files per run: below this a sandbox's and Biome's start cost more than the overlap wins. */
const MIN_WRITE_BATCH = 250;
/** Runs a write is split into at least (while each keeps MIN_WRITE_BATCH): copying and committing one overlaps native Biome on another. */
const PIPELINE_RUNS = 2;
/** Files copied per turn of the event loop (the running sandbox's output is read meanwhile). */
const COPIED_PER_TURN = 64;

/** One batch's scratch copy: the bytes copied (the compare-and-swap's expectation), by path. */
interface CopiedBatch {
  scratch: string;
  priors: Map<string, FileSnapshot>;
}

/**
 * The files the per-file path would give Biome, written by native runs without formatting them
 * again in the wasm build. Each batch is copied (with the project's config files, at the same
 * paths) into a private scratch directory, native Biome writes the copy inside the sandbox (the copy
 * is all it may write), and formatbox commits each file it fixed with its own compare-and-swap write
 * against the bytes it copied. The batches are a pipeline: while native Biome formats one, formatbox
 * commits the one before and copies the one after (the copies and the commits wait on the disk,
 * Biome on the cores). A file changed meanwhile fails with MODIFIED_SINCE_READ; a file native Biome
 * did not fix, or flagged, and every file after a run that could not be used, go to the per-file path.
 */
export async function writeNatively(rootReal: string, files: readonly string[], options: NativePassOptions): Promise<NativeWrites> {
  const started = performance.now();
  const out: NativeWrites = { written: new Set(), failed: new Map(), formatted: new Set(), fixed: new Set(), flagged: new Map(), seconds: 0, startedAtMs: Date.now() };
  const biome = options.biome();
  if ('unavailable' in biome) return { ...out, notUsed: biome.unavailable };
  const sandbox = options.sandbox();
  const scratchBase = realpathSync(mkdtempSync(join(scratchParent(), 'formatbox-native-write-')));
  const removals: Array<Promise<unknown>> = [];
  const size = Math.min(MAX_WRITE_BATCH, Math.max(MIN_WRITE_BATCH, Math.ceil(files.length / PIPELINE_RUNS)));
  const batches = Array.from({ length: Math.ceil(files.length / size) }, (_, k) => files.slice(k * size, (k + 1) * size));
  const copy = (batch: readonly string[]): Promise<CopiedBatch> => {
    const copied = copyBatch(rootReal, scratchBase, batch, options);
    copied.catch(() => undefined); // awaited in turn; a failure meanwhile is not an unhandled rejection
    return copied;
  };
  let committing: Promise<void> = Promise.resolve();
  let next: Promise<CopiedBatch> | undefined = batches.length > 0 ? copy(batches[0]!) : undefined;
  try {
    for (let k = 0; next && out.notUsed === undefined; k++) {
      let copied: CopiedBatch;
      try {
        copied = await next;
      } catch (error) {
        out.notUsed = `the scratch copy could not be made: ${messageOf(error)}`;
        break;
      }
      const running = copied.priors.size > 0 ? writeWithNativeBiome(sandbox, biome, copied.scratch, walkTargets([...copied.priors.keys()])) : undefined;
      // While it runs, the next batch is copied (and the previous one committed).
      next = k + 1 < batches.length ? copy(batches[k + 1]!) : undefined;
      const run = await running;
      if (!run) continue;
      if (run.kind === 'not-used') {
        out.notUsed = run.reason;
        break;
      }
      for (const path of copied.priors.keys()) {
        const flaggedAs = run.flagged.get(path);
        if (flaggedAs !== undefined) out.flagged.set(path, flaggedAs);
        else if (run.fixed.has(path)) out.fixed.add(path);
        else if (run.processed.has(path)) out.formatted.add(path);
      }
      committing = committing.then(() => commitBatch(rootReal, copied, out)).then(() => {
        // Removed in the background while the next batch runs (unlinking a thousand files is not free).
        removals.push(rm(copied.scratch, { recursive: true, force: true }).catch(() => undefined));
      });
    }
    await committing;
  } finally {
    // A copy made for a batch that did not run (after a run that could not be used) goes with the base.
    await next?.catch(() => undefined);
    await committing.catch(() => undefined);
    await Promise.all(removals);
    rmSync(scratchBase, { recursive: true, force: true });
  }
  out.seconds = (performance.now() - started) / 1000;
  return out;
}

/** Free bytes a tmpfs must have to hold the scratch copies (a pipeline holds up to three batches). */
const MIN_TMPFS_FREE_BYTES = 1024 * 1024 * 1024;

/**
 * Where the scratch copies go: the host's /dev/shm when it is a tmpfs with room (the copy, native
 * Biome's write of it and the read-back then never reach the disk, which the compare-and-swap writes
 * into the project do), else the temp directory.
 */
function scratchParent(): string {
  if (process.platform === 'linux') {
    try {
      const shm = lstatSync('/dev/shm');
      const fs = statfsSync('/dev/shm');
      const TMPFS_MAGIC = 0x01021994;
      if (shm.isDirectory() && (shm.mode & 0o1777) === 0o1777 && fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= MIN_TMPFS_FREE_BYTES) return '/dev/shm';
    } catch {
      // no /dev/shm: the temp directory
    }
  }
  return tmpdir();
}

/** Copies `batch` (and the project's config files) into a fresh scratch directory, reading each file as the runtime reads it. */
async function copyBatch(rootReal: string, scratchBase: string, batch: readonly string[], options: NativePassOptions): Promise<CopiedBatch> {
  // A fresh copy per batch: nothing the previous run left in its copy (a symlink, say) is written through.
  const scratch = mkdtempSync(join(scratchBase, 'batch-'));
  for (const [name, text] of Object.entries(options.projectFiles)) {
    if (typeof text !== 'string' || !isPlainRelative(name)) continue;
    mkdirSync(join(scratch, dirname(name)), { recursive: true });
    writeFileSync(join(scratch, name), text);
  }
  const priors = new Map<string, FileSnapshot>();
  const made = new Set<string>();
  for (let i = 0; i < batch.length; i++) {
    if (i % COPIED_PER_TURN === COPIED_PER_TURN - 1) await new Promise((resolve) => setImmediate(resolve));
    const path = batch[i]!;
    const prior = await readSnapshot(join(rootReal, path), path, { refuseHardLinks: options.trust === 'untrusted' }).catch(() => null);
    if (!prior || !isPlainRelative(path)) continue; // the per-file path says why
    const dir = dirname(path);
    if (!made.has(dir)) {
      mkdirSync(join(scratch, dir), { recursive: true });
      made.add(dir);
    }
    writeFileSync(join(scratch, path), prior.bytes);
    priors.set(path, prior);
  }
  return { scratch, priors };
}

/**
 * Commits each file of `copied` that native Biome fixed, and makes them durable before any is
 * reported written, in four steps: every temp file written (read back from the copy, written next
 * to its file, not flushed), one flush of them all, every compare-and-swap and rename, one flush of
 * the renames. A flush is a syncfs of each file system written into (sync-fs.ts); where that is not
 * possible, an fdatasync of each temp file, then an fsync of each directory. One flush for the
 * batch replaces an fdatasync, a thread-pool round trip and a wake-up per file.
 */
async function commitBatch(rootReal: string, { scratch, priors }: CopiedBatch, out: NativeWrites): Promise<void> {
  // Each project directory written into is opened once for the batch's writes into it (each
  // rechecked at its rename), and kept open until the batch is durable.
  const directories = new Map<string, PinnedDir | null>();
  const directoryOf = (abs: string, path: string): PinnedDir | undefined => {
    const dir = dirname(abs);
    let held = directories.get(dir);
    if (held === undefined) {
      try {
        // Named as the directory: a refusal at a later file's rename is about the directory, not the first file.
        held = openPinnedDir(dir, `${dirname(path)}/`);
      } catch {
        held = null; // the write opens it itself, and says why it cannot
      }
      directories.set(dir, held);
    }
    return held ?? undefined;
  };
  // The run is over (its processes died with the sandbox's PID namespace) and the scratch is
  // private (0700): a directory of it checked once stays as it was for the rest of the batch.
  const realDirectories = new Map<string, boolean>();
  const staged: Array<{ path: string; prior: FileSnapshot; write: StagedWrite }> = [];
  const fail = (path: string, error: unknown): void => void out.failed.set(path, { code: isFormatboxError(error) ? error.code : 'WRITE_FAILED', message: messageOf(error) });
  try {
    let turn = 0;
    for (const [path, prior] of priors) {
      // The event loop turns meanwhile: the next batch's sandboxed run streams its report.
      if (++turn % COMMITTED_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
      if (!out.fixed.has(path)) continue;
      // Read back as any file is read (no symlink, a regular file), from the directory copied to
      // (the sandboxed run could have put a symlink in its place).
      if (!sameRealDirectory(join(scratch, dirname(path)), realDirectories)) continue;
      const final = readScratchFile(join(scratch, path));
      if (!final || sameBytes(final, prior.bytes)) continue;
      const abs = join(rootReal, path);
      let write: StagedWrite | undefined;
      try {
        const directory = directoryOf(abs, path);
        write = stageWrite(abs, { shown: path, keep: prior, flushedByCaller: true, ...(directory ? { directory } : {}) });
        write.fillNow(final);
        staged.push({ path, prior, write });
      } catch (error) {
        write?.release();
        fail(path, error);
      }
    }
    if (staged.length === 0) return;
    const devices = fileSystemsOf(staged.map(({ path }) => dirname(join(rootReal, path))), directories);
    if (!(await syncFileSystems(devices))) {
      const flushed = await Promise.allSettled(staged.map(({ write }) => write.flushFilled()));
      flushed.forEach((result, k) => result.status === 'rejected' && fail(staged[k]!.path, result.reason));
    }
    const renamed: string[] = [];
    for (let k = 0; k < staged.length; k++) {
      if (k % COMMITTED_PER_TURN === COMMITTED_PER_TURN - 1) await new Promise((resolve) => setImmediate(resolve));
      const { path, prior, write } = staged[k]!;
      if (out.failed.has(path)) continue;
      try {
        // Compare-and-swap: synchronous from the check to the rename.
        write.commit(prior.bytes);
        renamed.push(path);
      } catch (error) {
        fail(path, error);
      }
    }
    if (renamed.length > 0 && !(await syncFileSystems(devices))) {
      // Each directory the batch holds is fsync'ed through its pinned handle (and closed), the others by path.
      const dirs = new Set(renamed.map((path) => dirname(join(rootReal, path))));
      await Promise.all([...dirs].map((dir) => directories.get(dir)?.syncAndClose() ?? flushDirectory(dir)));
    }
    for (const path of renamed) out.written.add(path);
  } finally {
    for (const { write } of staged) write.release(); // removes a temp file that was not renamed
    for (const dir of directories.values()) dir?.close();
  }
}

/** Files staged, or committed, per turn of the event loop. */
const COMMITTED_PER_TURN = 64;

/**
 * One directory per file system that the directories `dirs` are on (by device, read from the
 * directories the batch holds open), or undefined when one is not known (a directory the write had
 * to open itself): then nothing is flushed at once and each file is.
 */
function fileSystemsOf(dirs: readonly string[], directories: ReadonlyMap<string, PinnedDir | null>): string[] | undefined {
  const byDevice = new Map<number, string>();
  for (const abs of new Set(dirs)) {
    const dir = directories.get(abs);
    if (!dir) return undefined;
    try {
      const device = statSync(dir.at('')).dev;
      if (!byDevice.has(device)) byDevice.set(device, dir.dir);
    } catch {
      return undefined;
    }
  }
  return [...byDevice.values()];
}

/** True when every file system in `dirs` was flushed (syncfs); false when one was not, or they are not known. */
async function syncFileSystems(dirs: readonly string[] | undefined): Promise<boolean> {
  if (!dirs) return false;
  return (await Promise.all(dirs.map((dir) => syncFileSystem(dir)))).every(Boolean);
}

/** fdatasync of the directory `abs`, never through a symlink in its last component; errors ignored. */
async function flushDirectory(abs: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    await handle.datasync();
  } catch {
    // the rename stands; nothing better to do
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * A file of the scratch copy as native Biome left it: a regular file (never through a symlink in
 * its last component; the directories above were checked by `sameRealDirectory`), else undefined.
 */
function readScratchFile(abs: string): Uint8Array | undefined {
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return undefined;
    const bytes = readOpenFile(fd, stats.size);
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Whether `dir` is its own real path (no symlink on the way), remembered in `known` (realpath lstats every component). */
function sameRealDirectory(dir: string, known: Map<string, boolean>): boolean {
  let same = known.get(dir);
  if (same === undefined) {
    try {
      same = realpathSync(dir) === dir;
    } catch {
      same = false;
    }
    known.set(dir, same);
  }
  return same;
}

/** A project-relative POSIX path with no `..`, empty or absolute part. */
function isPlainRelative(path: string): boolean {
  return path !== '' && !path.startsWith('/') && path.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}
