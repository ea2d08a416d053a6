/**
 * The one containment test on absolute paths. Its own module, with nothing but `node:path`, so the
 * thin hook entry can use it without loading the rest of the file layer.
 */
import { sep } from 'node:path';

/** True when `path` is `root` or below it (both absolute and normalised; no symlinks are followed here). */
export function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}
