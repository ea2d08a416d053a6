/**
 * The Rust corpus of the sandbox tests and bench: real crates nobody at formatbox wrote, as Debian
 * installs their sources (`librust-anyhow-dev`, `librust-memchr-dev`; `.ci/run` installs them).
 * Read at test time, never copied into the repository.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const REGISTRY = '/usr/share/cargo/registry';

/** The newest installed version of a crate, or undefined. */
function crateDir(name: string): string | undefined {
  if (!existsSync(REGISTRY)) return undefined;
  const versions = readdirSync(REGISTRY)
    .filter((entry) => entry.startsWith(`${name}-`) && /^\d/.test(entry.slice(name.length + 1)))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const last = versions[versions.length - 1];
  return last === undefined ? undefined : join(REGISTRY, last);
}

export interface Crate {
  name: string;
  root: string;
  /** The `.rs` files used, relative to `root`. */
  files: string[];
}

function rsUnder(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { encoding: 'utf8' }).filter((f) => f.endsWith('.rs')).map((f) => `${dir}/${f}`).sort();
}

/** anyhow's src/*.rs and memchr's src/memchr/*.rs and src/memmem/*.rs (memchr has a rustfmt.toml: max_width = 79). */
export function rustCrates(): Crate[] | { missing: string } {
  const anyhow = crateDir('anyhow');
  const memchr = crateDir('memchr');
  if (!anyhow || !memchr) return { missing: `Debian's librust-anyhow-dev and librust-memchr-dev are not installed (${REGISTRY})` };
  return [
    { name: 'anyhow', root: anyhow, files: rsUnder(anyhow, 'src') },
    { name: 'memchr', root: memchr, files: [...rsUnder(memchr, 'src/memchr'), ...rsUnder(memchr, 'src/memmem')] },
  ];
}
