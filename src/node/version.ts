/**
 * formatbox's own version, read from the package.json next to the running code (dist/ or src/cli/),
 * so a daemon and its client can tell whether they come from the same install.
 */
import { createHash } from 'node:crypto';
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

/**
 * What pins the built-in formatters' code, for `format`'s cache checked before the engine starts
 * (src/node/project/precheck.ts): the build id, the wasm manifest (versions and sha256 of every
 * module), and the size and mtime of npm's install record (a reinstall from source changes it).
 */
export function formatterBuild(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const parts = [formatboxBuildId()];
  for (const up of ['..', '../..']) {
    const manifest = join(here, up, 'wasm', 'manifest.json');
    const installed = statSync(join(here, up, 'node_modules', '.package-lock.json'), { throwIfNoEntry: false });
    try {
      parts.push(createHash('sha256').update(readFileSync(manifest)).digest('hex'));
    } catch {
      // not at this level
    }
    if (installed) parts.push(`${installed.size}.${Math.trunc(installed.mtimeMs)}`);
  }
  return parts.join('+');
}
