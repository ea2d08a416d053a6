/**
 * Finds the project root for a file the way the formatters' own tools do, so a hook or CLI call made
 * from a subdirectory, or through a symlinked path, still finds the project's config:
 * 1. the directory the harness names (Claude Code's `CLAUDE_PROJECT_DIR`); a file outside it has no root;
 * 2. else the nearest directory above the file holding a VCS marker (`.git` file or directory, `.hg`,
 *    `.svn`, `.jj`), as Prettier's and Biome's searches stop there;
 * 3. else the nearest directory above the file holding a formatter's config file.
 * Every path is compared after resolving symlinks (realpath), so a symlinked project directory and
 * the real one agree. Returns undefined when none is found: the caller says so in the receipt.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, parse, relative, resolve, sep } from 'node:path';

export interface ProjectRoot {
  /** The real (symlink-free) root directory. */
  root: string;
  /** The file's path relative to `root`, POSIX separators. */
  path: string;
  how: 'project dir' | 'vcs root' | 'formatter config';
}

const VCS_MARKERS = ['.git', '.hg', '.svn', '.jj'];

/** Files whose presence makes a directory a formatter's project (data config files, never read here). */
const FORMATTER_CONFIG_MARKERS = [
  'biome.json', 'biome.jsonc', '.biome.json', '.biome.jsonc',
  '.prettierrc', '.prettierrc.json', '.prettierrc.yaml', '.prettierrc.yml', '.prettierrc.json5', '.prettierrc.toml',
  '.prettierrc.js', '.prettierrc.cjs', '.prettierrc.mjs', '.prettierrc.ts', 'prettier.config.js', 'prettier.config.cjs', 'prettier.config.mjs', 'prettier.config.ts',
  'ruff.toml', '.ruff.toml', 'pyproject.toml', 'go.mod', 'Cargo.toml', 'rustfmt.toml', '.rustfmt.toml', '.clang-format', '_clang-format',
  'dprint.json', 'dprint.jsonc', '.dprint.json', '.dprint.jsonc', 'taplo.toml', '.taplo.toml',
];

/**
 * Directories that are never a project: a root there would let a request reach the whole system.
 * Exact matches only for the ones under which projects do live (`/usr/src/app`, `/var/www`, `/home/x`).
 */
const SYSTEM_DIRS = new Set([
  '/', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/usr', '/usr/bin', '/usr/sbin', '/usr/lib', '/usr/local', '/usr/share',
  '/var', '/var/lib', '/var/tmp', '/tmp', '/opt', '/srv', '/mnt', '/media', '/home', '/run', '/snap', '/nix', '/nix/store',
  '/Users', '/System', '/Library', '/Applications', '/Volumes', '/private', '/private/var', '/private/tmp',
]);
/** Directories no project lives under, at any depth. */
const SYSTEM_TREES = ['/etc', '/private/etc', '/boot', '/dev', '/proc', '/sys', '/System'];

function hasVcsMarker(dir: string): boolean {
  return VCS_MARKERS.some((marker) => existsSync(join(dir, marker)));
}

/**
 * Why `dir` can never be a project root, or undefined when it can: `/`, a system directory, or the
 * user's home directory without a VCS marker of its own (a `~/.prettierrc` or `~/.clang-format` holds
 * settings, not a project: taking home as the root would let `../.ssh/authorized_keys` in).
 */
export function refusedRootReason(dir: string, home: string = homedir()): string | undefined {
  const real = realPathOf(dir);
  if (real === parse(real).root) return 'it is the file system root';
  for (const candidate of new Set([resolve(dir), real])) {
    if (SYSTEM_DIRS.has(candidate)) return 'it is a system directory';
    if (SYSTEM_TREES.some((tree) => candidate === tree || candidate.startsWith(`${tree}/`))) return 'it is inside a system directory';
  }
  if (home !== '' && real === realPathOf(home) && !hasVcsMarker(real)) {
    return 'it is your home directory, which has no VCS marker of its own (.git, .hg, .svn, .jj); a config file there holds settings, not a project';
  }
  return undefined;
}

/** The real path of `path`, or of its nearest existing ancestor joined with the rest (a file not written yet). */
export function realPathOf(path: string): string {
  const missing: string[] = [];
  let current = resolve(path);
  for (;;) {
    try {
      return join(realpathSync(current), ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return resolve(path);
      missing.push(current.slice(parent.length).replace(/^[/\\]/, ''));
      current = parent;
    }
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function inside(root: string, file: string): string | undefined {
  const rel = relative(root, file);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

/** The nearest directory from `start` upwards (inclusive) for which `test` holds and that may be a root. */
function nearestUp(start: string, test: (dir: string) => boolean): string | undefined {
  const top = parse(start).root;
  const home = homedir();
  for (let dir = start; ; dir = dirname(dir)) {
    if (test(dir) && refusedRootReason(dir, home) === undefined) return dir;
    if (dir === top || dirname(dir) === dir) return undefined;
  }
}

/**
 * The project the caller works in: the root found for a file directly inside `cwd` (nearest VCS
 * root, else nearest formatter config, at or above it; never a directory `refusedRootReason` names).
 */
export function callerProjectRoot(cwd: string): ProjectRoot | undefined {
  return findProjectRoot(join(cwd, '.formatbox-caller'), { cwd });
}

/**
 * The project root for `file` (absolute, or relative to `cwd`). `projectDir` is the harness's project
 * directory (e.g. `CLAUDE_PROJECT_DIR`), used when the file lies inside it.
 */
export function findProjectRoot(file: string, options: { cwd?: string; projectDir?: string } = {}): ProjectRoot | undefined {
  const realFile = realPathOf(resolve(options.cwd ?? process.cwd(), file));
  if (options.projectDir) {
    // The harness names its project: a file outside it is not this project's business.
    const realProject = realPathOf(options.projectDir);
    const path = inside(realProject, realFile);
    return path !== undefined && isDirectory(realProject) ? { root: realProject, path, how: 'project dir' } : undefined;
  }
  const start = dirname(realFile);
  const vcs = nearestUp(start, hasVcsMarker);
  if (vcs) {
    const path = inside(vcs, realFile);
    if (path !== undefined) return { root: vcs, path, how: 'vcs root' };
  }
  const configured = nearestUp(start, (dir) => FORMATTER_CONFIG_MARKERS.some((name) => existsSync(join(dir, name))));
  if (configured) {
    const path = inside(configured, realFile);
    if (path !== undefined) return { root: configured, path, how: 'formatter config' };
  }
  return undefined;
}
