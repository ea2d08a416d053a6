/** Small helpers for project-relative POSIX paths ('' is the project root). */

export function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

export function baseOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** True when `path` is inside directory `dir` (or `dir` is the root). */
export function isUnder(dir: string, path: string): boolean {
  return dir === '' || path.startsWith(`${dir}/`);
}

/** `path` relative to `dir` (which must contain it). */
export function relativeTo(dir: string, path: string): string {
  return dir === '' ? path : path.slice(dir.length + 1);
}

/** The entry whose `dir` is the deepest ancestor of `path` (nearest config wins). */
export function nearest<T extends { dir: string }>(entries: readonly T[], path: string): T | undefined {
  let best: T | undefined;
  for (const entry of entries) {
    if (isUnder(entry.dir, path) && (!best || entry.dir.length > best.dir.length)) best = entry;
  }
  return best;
}

/** Normalises a project-relative path: POSIX separators, no leading `./` or `/`. */
export function normalisePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/^\/+/, '');
}
