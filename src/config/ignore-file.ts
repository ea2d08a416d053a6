/**
 * Ignore files in gitignore syntax (`.gitignore`, `.prettierignore`), read as data.
 *
 * Git's rules, as Prettier's (node-ignore) and Biome's readers apply them:
 * - blank lines and `#` comments are skipped; `\#` and `\!` escape the first character;
 * - `!` re-includes; the last matching rule wins, and rules of a deeper file come after those of
 *   a shallower one;
 * - a pattern with a `/` at the start or in the middle is relative to the ignore file's directory;
 *   otherwise it matches a name at any depth below it;
 * - a trailing `/` matches directories only;
 * - a file inside an ignored directory stays ignored, whatever a later `!` says.
 * Globs are gitignore's (`*`, `?`, `[...]`, `**`): braces and parentheses are literal.
 *
 * Biome's reader (the `ignore` crate's globs, one file at a time) differs in two ways, and the
 * `'biome'` flavour follows it: `{a,b}` is an alternation, and each .gitignore is evaluated alone
 * (a path is ignored when any file ignores it, so a nested `!name` does not re-include what a
 * parent .gitignore excludes). Both are checked against the real CLIs in
 * test/config/ignore-files-agreement.test.ts.
 */
import type { IgnoredItem } from '../core/types.js';
import { compileGlob } from './glob.js';
import { isUnder, relativeTo } from './paths.js';

/** Rules read from one ignore file; `dir` is the file's directory ('' is the project root). */
export interface IgnoreFile {
  file: string;
  dir: string;
  flavour: IgnoreFlavour;
  rules: IgnoreRule[];
}

/** `'git'`: git's and Prettier's reading. `'biome'`: Biome's (see above). */
export type IgnoreFlavour = 'git' | 'biome';

interface IgnoreRule {
  negated: boolean;
  directoryOnly: boolean;
  /** Matched against the path relative to the ignore file's directory; otherwise against the name. */
  anchored: boolean;
  test: (path: string) => boolean;
}

/** Lines past this many are not read (reported). */
export const MAX_IGNORE_LINES = 5000;
/**
 * Glob tokens per ignore file (over all brace alternatives). Every rule is tried on every directory
 * of a path, so this bounds the work a hostile file can cause; real .gitignores use a few thousand.
 */
export const MAX_IGNORE_GLOB_SIZE = 20_000;

/** Parses one ignore file. Patterns the glob compiler refuses are reported in `ignored`. */
export function parseIgnoreFile(text: string, file: string, dir: string, ignored: IgnoredItem[], flavour: IgnoreFlavour = 'git'): IgnoreFile {
  const rules: IgnoreRule[] = [];
  const lines = text.split(/\r?\n/);
  if (lines.length > MAX_IGNORE_LINES) {
    ignored.push({ file, item: `lines after ${MAX_IGNORE_LINES}`, reason: `only the first ${MAX_IGNORE_LINES} lines are read` });
  }
  let size = 0;
  for (const raw of lines.slice(0, MAX_IGNORE_LINES)) {
    let line = raw.replace(/(?<!\\)\s+$/, '');
    if (line === '' || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    if (negated) line = line.slice(1);
    else if (line.startsWith('\\!') || line.startsWith('\\#')) line = line.slice(1);
    const directoryOnly = line.endsWith('/');
    line = line.replace(/\/+$/, '');
    if (line === '') continue;
    const anchored = line.includes('/');
    const body = line.replace(/^\//, '').replace(flavour === 'git' ? /[{}()]/g : /[()]/g, (c) => `\\${c}`);
    // Without a slash the pattern matches a name at any depth: tested against the last segment only.
    const compiled = compileGlob(body);
    if (!compiled.ok) {
      ignored.push({ file, item: raw.length > 80 ? `${raw.slice(0, 80)}…` : raw, reason: compiled.reason });
      continue;
    }
    size += compiled.size;
    if (size > MAX_IGNORE_GLOB_SIZE) {
      ignored.push({ file, item: raw.length > 80 ? `${raw.slice(0, 80)}…` : raw, reason: `this and later patterns are not read: more than ${MAX_IGNORE_GLOB_SIZE} glob tokens in the file` });
      break;
    }
    rules.push({ negated, directoryOnly, anchored, test: compiled.test });
  }
  return { file, dir, flavour, rules };
}

/**
 * Whether `path` (project-relative, a file) is ignored by `files`: git-flavoured files evaluated
 * together as git does (a deeper file's rules take precedence), Biome-flavoured ones each alone.
 * Files whose directory does not contain `path` are skipped.
 */
export function isIgnoredBy(files: readonly IgnoreFile[], path: string): boolean {
  const biome = files.filter((f) => f.flavour === 'biome');
  if (biome.length > 0) return biome.some((f) => ignoredTogether([f], path)) || ignoredTogether(files.filter((f) => f.flavour === 'git'), path);
  return ignoredTogether(files, path);
}

function ignoredTogether(files: readonly IgnoreFile[], path: string): boolean {
  const applicable = files.filter((f) => isUnder(f.dir, path)).sort((a, b) => a.dir.length - b.dir.length);
  if (applicable.length === 0) return false;
  const segments = path.split('/');
  for (let depth = 1; depth <= segments.length; depth++) {
    const prefix = segments.slice(0, depth).join('/');
    const isDirectory = depth < segments.length;
    let excluded: boolean | undefined;
    for (const file of applicable) {
      if (!isUnder(file.dir, prefix)) continue; // The ignore file sits below this directory.
      const relative = relativeTo(file.dir, prefix);
      const name = segments[depth - 1] as string;
      for (const rule of file.rules) {
        if (rule.directoryOnly && !isDirectory) continue;
        if (rule.test(rule.anchored ? relative : name)) excluded = !rule.negated;
      }
    }
    if (excluded) return true;
  }
  return false;
}

/** True when `path` lies inside a `node_modules` directory (Prettier and Biome skip those). */
export function insideNodeModules(path: string): boolean {
  return path.split('/').slice(0, -1).includes('node_modules');
}
