/**
 * The second layer behind binding only what a formatter needs (binary-deps.ts): well-known
 * credential files and directories are hidden inside every directory the sandbox binds, even when
 * a bound tree (a virtualenv, an npm package, a toolchain passed by the user, the project) contains
 * them. A directory is covered by an empty read-only tmpfs, a file by /dev/null.
 */
import { lstatSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { isInside, safeRealpath } from '../fs/paths.js';

/** Relative to a home directory (or to a directory that plays its part, such as CARGO_HOME). */
const CREDENTIAL_PATHS: readonly string[] = [
  '.ssh', '.aws', '.gnupg', '.kube', '.azure', '.docker/config.json', '.config/gh', '.config/hub', '.config/gcloud',
  '.git-credentials', '.config/git/credentials', '.netrc', '.npmrc', '.yarnrc.yml', '.pypirc', '.pgpass', '.my.cnf',
  '.cargo/credentials', '.cargo/credentials.toml', '.gem/credentials', '.vault-token', '.terraform.d/credentials.tfrc.json',
  '.local/share/keyrings', '.password-store',
  // npm's global config under an install prefix (`<prefix>/etc/npmrc`) may hold a registry token.
  'etc/npmrc',
];

interface Hidden {
  path: string;
  kind: 'dir' | 'file';
}

/**
 * Credential paths that exist inside `dir` (a directory about to be bound): the home directory's
 * ones under it, the list applied to `dir` itself, and, for a directory named like the first part
 * of an entry (a `.cargo` elsewhere), the rest of that entry. Symlinks are left alone (their target
 * is not bound unless it is inside a bound tree, where it is checked under its own name).
 */
export function credentialsInside(dir: string, home: string = homedir()): Hidden[] {
  const realHome = safeRealpath(home) ?? home;
  const candidates = new Set<string>();
  for (const entry of CREDENTIAL_PATHS) {
    const inHome = join(realHome, entry);
    if (isInside(inHome, dir) && inHome !== dir) candidates.add(inHome);
    candidates.add(join(dir, entry));
    const [first, ...rest] = entry.split('/');
    if (rest.length > 0 && first === basename(dir)) candidates.add(join(dir, ...rest));
  }
  const hidden: Hidden[] = [];
  for (const path of candidates) {
    try {
      const stats = lstatSync(path);
      if (stats.isDirectory()) hidden.push({ path, kind: 'dir' });
      else if (stats.isFile()) hidden.push({ path, kind: 'file' });
    } catch {
      // absent
    }
  }
  return hidden.sort((a, b) => a.path.localeCompare(b.path));
}

/** bwrap arguments that hide `hidden` (after the binds that expose them). */
export function hideArgs(hidden: readonly Hidden[]): string[] {
  const args: string[] = [];
  for (const item of hidden) {
    if (item.kind === 'dir') args.push('--perms', '0000', '--tmpfs', item.path, '--remount-ro', item.path);
    else args.push('--ro-bind', '/dev/null', item.path);
  }
  return args;
}
