/**
 * formatbox's own version, read from the package.json next to the running code (dist/ or src/cli/),
 * so a daemon and its client can tell whether they come from the same install.
 */
import { readFileSync, statSync } from 'node:fs';
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

/**
 * What a daemon and its client compare: the version, plus the size and mtime of the built full CLI
 * (`cli-main.js` beside the running bundle), so a rebuilt install replaces a daemon of the same
 * version too. From source (tsx) there is no bundle: the version alone.
 */
export function formatboxBuildId(): string {
  const bundle = statSync(join(dirname(fileURLToPath(import.meta.url)), 'cli-main.js'), { throwIfNoEntry: false });
  return bundle ? `${formatboxVersion()}+${bundle.size}.${Math.trunc(bundle.mtimeMs)}` : formatboxVersion();
}
