/**
 * `--write` for the files native Biome found would change (native-biome-pass.ts), from native Biome's
 * own output: it writes a private scratch copy inside the sandbox, and formatbox commits each file
 * with its own compare-and-swap write against the bytes it copied.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isFormatboxError, messageOf } from '../../core/errors.js';
import { flushDirectorySyncs, sameBytes, writeAtomic } from '../fs/staged-write.js';
import { readSnapshot, type FileSnapshot } from '../fs/read.js';
import { writeWithNativeBiome } from '../biome-native.js';
import type { NativePassOptions } from './native-biome-pass.js';

/** What `writeNatively` did: the files it wrote, those whose write failed, and why it stopped early (the rest: the per-file path). */
export interface NativeWrites {
  written: Set<string>;
  failed: Map<string, { code: string; message: string }>;
  notUsed?: string;
  seconds: number;
}

/** Files per native `--write` run: bounds the bytes held (each file's prior, for the compare-and-swap) and the scratch copy. */
const WRITE_BATCH = 2000;
/** Compare-and-swap writes in flight at once. */
const COMMITS_IN_FLIGHT = 8;

/**
 * `--write` for the files native Biome found would change, without formatting them again in the
 * wasm build: each batch is copied (with the project's config files, at the same paths) into a
 * private scratch directory, native Biome writes the copy inside the sandbox (the copy is all it may
 * write), and formatbox commits each file it fixed with its own compare-and-swap write against the
 * bytes it copied. A file changed meanwhile fails with MODIFIED_SINCE_READ; a file native Biome did
 * not fix, or flagged, and every file after a run that could not be used, go to the per-file path.
 */
export async function writeNatively(rootReal: string, files: readonly string[], options: NativePassOptions): Promise<NativeWrites> {
  const started = performance.now();
  const out: NativeWrites = { written: new Set(), failed: new Map(), seconds: 0 };
  const biome = options.biome();
  if ('unavailable' in biome) return { ...out, notUsed: biome.unavailable };
  const sandbox = options.sandbox();
  const scratchBase = realpathSync(mkdtempSync(join(tmpdir(), 'formatbox-native-write-')));
  const removals: Array<Promise<unknown>> = [];
  try {
    for (let i = 0; i < files.length && out.notUsed === undefined; i += WRITE_BATCH) {
      // A fresh copy per batch: nothing the previous run left in its copy (a symlink, say) is written through.
      const scratch = mkdtempSync(join(scratchBase, 'batch-'));
      for (const [name, text] of Object.entries(options.projectFiles)) {
        if (typeof text !== 'string' || !isPlainRelative(name)) continue;
        mkdirSync(join(scratch, dirname(name)), { recursive: true });
        writeFileSync(join(scratch, name), text);
      }
      const priors = new Map<string, FileSnapshot>();
      for (const path of files.slice(i, i + WRITE_BATCH)) {
        const prior = await readSnapshot(join(rootReal, path), path, { refuseHardLinks: options.trust === 'untrusted' }).catch(() => null);
        if (!prior || !isPlainRelative(path)) continue; // the per-file path says why
        mkdirSync(join(scratch, dirname(path)), { recursive: true });
        writeFileSync(join(scratch, path), prior.bytes);
        priors.set(path, prior);
      }
      if (priors.size === 0) continue;
      const run = await writeWithNativeBiome(sandbox, biome, scratch, [...priors.keys()]);
      if (run.kind === 'not-used') {
        out.notUsed = run.reason;
        break;
      }
      const flushes: Array<Promise<unknown>> = [];
      const commit = async (path: string, prior: FileSnapshot): Promise<void> => {
        if (!run.fixed.has(path) || run.flagged.has(path)) return;
        // Read back as any file is read (no symlink, a regular file), from the directory copied to
        // (the sandboxed run could have put a symlink in its place).
        if (!sameRealDirectory(join(scratch, dirname(path)))) return;
        const final = await readSnapshot(join(scratch, path), path).catch(() => null);
        if (!final || sameBytes(final.bytes, prior.bytes)) return;
        try {
          // Renamed at once, flushed in the background: every flush is awaited below, before any file is reported written.
          const done = await writeAtomic(join(rootReal, path), final.bytes, { expect: prior.bytes, keep: prior, shown: path, syncLater: true });
          flushes.push(done.flushed.then(() => out.written.add(path), (error: unknown) => out.failed.set(path, { code: 'WRITE_FAILED', message: messageOf(error) })));
        } catch (error) {
          out.failed.set(path, { code: isFormatboxError(error) ? error.code : 'WRITE_FAILED', message: messageOf(error) });
        }
      };
      // Several commits in flight: each waits on the thread pool (temp file, write, rename).
      const queue = [...priors];
      await Promise.all(Array.from({ length: COMMITS_IN_FLIGHT }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) await commit(...next);
      }));
      await Promise.all(flushes);
      // Removed in the background while the next batch runs (unlinking a thousand files is not free).
      removals.push(rm(scratch, { recursive: true, force: true }).catch(() => undefined));
    }
    await Promise.all([flushDirectorySyncs(), ...removals]);
  } finally {
    await Promise.all(removals);
    rmSync(scratchBase, { recursive: true, force: true });
  }
  out.seconds = (performance.now() - started) / 1000;
  return out;
}

function sameRealDirectory(dir: string): boolean {
  try {
    return realpathSync(dir) === dir;
  } catch {
    return false;
  }
}

/** A project-relative POSIX path with no `..`, empty or absolute part. */
function isPlainRelative(path: string): boolean {
  return path !== '' && !path.startsWith('/') && path.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}
