/**
 * A request's paths, resolved inside the root (symlinks followed) and locked: calls on the same real
 * path are serialised, across runtimes too (one lock table per process).
 */
import { dirname } from 'node:path';
import { FormatboxError } from '../../core/errors.js';
import { resolveInside, type ResolvedPath } from '../fs/paths.js';
import { sweepTemps } from '../fs/sweep.js';
import { PathLocks } from '../lock.js';
import { swapped } from '../pinned-dir.js';
import type { RuntimeState } from './state.js';

const locks = new PathLocks();

/** Resolves `path` inside the root; the first time a directory is seen, temp files a killed process left there are removed. */
function resolveAndSweep(state: RuntimeState, path: string): ResolvedPath {
  const target = resolveInside(state.rootReal, path);
  const dir = dirname(target.abs);
  if (!state.swept.has(dir)) {
    state.swept.add(dir);
    sweepTemps(dir);
  }
  return target;
}

/**
 * Takes the locks of `paths` and, when the call had to wait for them, resolves them again under
 * the locks: a directory swapped for a symlink while the call waited is caught here (and, after
 * this, by the pinned-directory file operations of fs/, which never follow a symlink). A call
 * that found its locks free goes on at once, with the paths it resolved microseconds before.
 */
export async function withResolved<T>(state: RuntimeState, paths: readonly string[], run: (targets: ResolvedPath[]) => Promise<T>): Promise<T> {
  const before = paths.map((path) => resolveAndSweep(state, path));
  return locks.with(before.map((t) => t.abs), async (waited) => {
    if (!waited) return run(before);
    const now = paths.map((path) => resolveInside(state.rootReal, path));
    now.forEach((target, index) => {
      if (target.abs !== before[index]!.abs) throw swapped(target.shown, 'it resolved to another file while the call waited for its lock');
    });
    return run(now);
  });
}

/** The one target of a one-path call. */
export function onlyTarget(targets: ResolvedPath[]): ResolvedPath {
  const [target] = targets;
  if (!target) throw new FormatboxError('INVALID_REQUEST', 'no path');
  return target;
}
