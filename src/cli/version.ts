/**
 * formatbox's own version, read from the package.json next to the running code (dist/ or src/cli/),
 * so a daemon and its client can tell whether they come from the same install.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** The `version` of the nearest formatbox package.json above this module. */
export function formatboxVersion(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 5; up++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'formatbox' && typeof pkg.version === 'string') return (cached = pkg.version);
    } catch {
      // not here; go up
    }
    dir = dirname(dir);
  }
  return (cached = '0.0.0-unknown');
}
