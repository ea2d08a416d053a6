/**
 * Ruff's file exclusion, applied as `ruff format --force-exclude` applies it to a file named on the
 * command line (what editors run on save), whether or not the config sets `force-exclude`:
 * - `exclude` replaces Ruff's default list (below), `extend-exclude` adds to it, `format.exclude`
 *   adds patterns for the formatter only;
 * - each pattern is matched both as written against a base name, and joined onto the config file's
 *   directory against the whole path (Ruff's FilePattern::User adds both globs);
 * - `exclude`/`extend-exclude` are tried on the file and on every directory above it up to the
 *   config's directory (Ruff's is_file_excluded walks the ancestors); `format.exclude` on the file;
 * - globs follow Rust's globset defaults: `*` and `?` also match `/`, `**` any depth, `[...]`, `{a,b}`.
 */
import type { RuffConfigFile } from './config.js';

/** Ruff's documented default `exclude`. */
const RUFF_DEFAULT_EXCLUDE: readonly string[] = [
  '.bzr', '.direnv', '.eggs', '.git', '.git-rewrite', '.hg', '.ipynb_checkpoints', '.mypy_cache', '.nox', '.pants.d',
  '.pyenv', '.pytest_cache', '.pytype', '.ruff_cache', '.svn', '.tox', '.venv', '.vscode', '__pypackages__', '_build',
  'buck-out', 'build', 'dist', 'node_modules', 'site-packages', 'venv',
];

/** Patterns longer than this are not compiled (a config is hostile input). */
const MAX_PATTERN_CHARS = 1024;

const cache = new Map<string, RegExp | null>();

/** A globset-style glob as a regular expression over the whole string; null when it is not a valid glob. */
export function globsetRegExp(glob: string): RegExp | null {
  const known = cache.get(glob);
  if (known !== undefined) return known;
  let compiled: RegExp | null = null;
  if (glob.length <= MAX_PATTERN_CHARS) {
    let out = '';
    let depth = 0;
    let valid = true;
    for (let i = 0; i < glob.length && valid; i++) {
      const c = glob[i] as string;
      if (c === '*') {
        if (glob[i + 1] === '*') {
          // `**/` any number of directories (including none), `/**` everything below, `**` anything.
          if (glob[i + 2] === '/') {
            out += '(?:.*/)?';
            i += 2;
          } else {
            out += '.*';
            i += 1;
          }
        } else out += '.*';
      } else if (c === '?') out += '.';
      else if (c === '[') {
        const close = glob.indexOf(']', i + 2);
        if (close === -1) valid = false;
        else {
          let body = glob.slice(i + 1, close);
          if (body.startsWith('!')) body = `^${body.slice(1)}`;
          out += `[${body.replace(/\\/g, '\\\\')}]`;
          i = close;
        }
      } else if (c === '{') {
        depth++;
        out += '(?:';
      } else if (c === '}' && depth > 0) {
        depth--;
        out += ')';
      } else if (c === ',' && depth > 0) out += '|';
      else if (c === '\\' && i + 1 < glob.length) out += escape(glob[++i] as string);
      else out += escape(c);
    }
    if (valid && depth === 0) {
      try {
        compiled = new RegExp(`^${out}$`, 's');
      } catch {
        compiled = null;
      }
    }
  }
  if (cache.size > 2000) cache.clear();
  cache.set(glob, compiled);
  return compiled;
}

function escape(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

/** Whether one pattern (from a config in `configDir`) matches `path` (project-relative) by whole path or base name. */
function matches(pattern: string, configDir: string, path: string): boolean {
  const clean = pattern.replace(/^\.\//, '');
  const absolute = globsetRegExp(`/${configDir === '' ? '' : `${configDir}/`}${clean}`);
  const raw = globsetRegExp(pattern);
  const base = path.slice(path.lastIndexOf('/') + 1);
  return (absolute?.test(`/${path}`) ?? false) || (raw?.test(base) ?? false);
}

/**
 * Why Ruff would leave `path` alone under `config`, or undefined when it formats it.
 * `path` and `config.dir` are project-relative POSIX paths.
 */
export function ruffExcludes(config: RuffConfigFile, path: string): string | undefined {
  const exclude = config.exclude ?? RUFF_DEFAULT_EXCLUDE;
  const lists: Array<[string, readonly string[]]> = [[config.exclude ? `exclude in ${config.file}` : "Ruff's default exclude", exclude], [`extend-exclude in ${config.file}`, config.extendExclude]];
  // The file, then each directory above it, down to (not past) the config's directory.
  const candidates: string[] = [];
  for (let current = path; current !== '' && (config.dir === '' || current.startsWith(`${config.dir}/`)); current = current.includes('/') ? current.slice(0, current.lastIndexOf('/')) : '') {
    candidates.push(current);
  }
  for (const candidate of candidates) {
    for (const [where, list] of lists) {
      const hit = list.find((pattern) => matches(pattern, config.dir, candidate));
      if (hit !== undefined) return `matched by ${JSON.stringify(hit)} (${where})${candidate !== path ? ` on ${candidate}` : ''}`;
    }
  }
  const formatHit = config.formatExclude.find((pattern) => matches(pattern, config.dir, path));
  if (formatHit !== undefined) return `matched by ${JSON.stringify(formatHit)} (format.exclude in ${config.file})`;
  return undefined;
}
