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
 *
 * Each file is compiled once for both readings (a glob they read alike is one matcher), and a text
 * compiled before is taken from a cache keyed by its content; every glob is charged to the
 * project's config budget either way (budget.ts).
 */
import type { IgnoredItem } from '../core/types.js';
import { compileGlob, type Glob, type GlobBudget, type GlobCost } from './glob.js';
import { isUnder, relativeTo } from './paths.js';
import { CONFIG_BUDGET } from './budget.js';

/** Rules read from one ignore file; `dir` is the file's directory ('' is the project root). */
export interface IgnoreFile {
  file: string;
  dir: string;
  flavour: IgnoreFlavour;
  rules: IgnoreRule[];
}

/** `'git'`: git's and Prettier's reading. `'biome'`: Biome's (see above). */
type IgnoreFlavour = 'git' | 'biome';

interface IgnoreRule {
  negated: boolean;
  directoryOnly: boolean;
  /** Matched against the path relative to the ignore file's directory; otherwise against the name. */
  anchored: boolean;
  test: (path: string) => boolean;
}

/** Lines past this many are not read (reported). */
const MAX_IGNORE_LINES = 5000;
/**
 * Glob tokens per ignore file (over all brace alternatives). Every rule is tried on every directory
 * of a path, so this bounds the work a hostile file can cause; real .gitignores use a few thousand.
 */
const MAX_IGNORE_GLOB_SIZE = 20_000;

/** Parses one ignore file. Patterns the glob compiler refuses are reported in `ignored`. */
export function parseIgnoreFile(text: string, file: string, dir: string, ignored: IgnoredItem[], flavour: IgnoreFlavour = 'git', budget?: GlobBudget): IgnoreFile {
  const read = readIgnoreFile(text, file, dir, [flavour], budget)[flavour];
  ignored.push(...read.ignored);
  return read.file;
}

/** One ignore file as one flavour reads it, with the items that flavour refused. */
interface IgnoreFileReading {
  file: IgnoreFile;
  ignored: IgnoredItem[];
}

/**
 * Reads one ignore file in each of `flavours`. A glob both flavours read alike is compiled once, and
 * a text read before (the same file again after a config change, or identical files in a monorepo)
 * is not compiled again; its cost is still charged to `budget`.
 */
export function readIgnoreFile<F extends IgnoreFlavour>(text: string, file: string, dir: string, flavours: readonly F[], budget?: GlobBudget): Record<F, IgnoreFileReading> {
  const key = `${flavours.join(',')}\0${text}`;
  let compiled = compiledIgnoreFiles.get(key);
  let refusal: string | undefined;
  if (compiled) {
    compiledIgnoreFiles.delete(key); // Most recently used last.
    compiledIgnoreFiles.set(key, compiled);
    for (const cost of compiled.costs) {
      refusal = budget?.spend(cost);
      if (refusal) break;
    }
  } else {
    compiled = compileIgnoreText(text, flavours, budget);
    if (compiled.complete) cacheCompiled(key, compiled);
  }
  const out = {} as Record<F, IgnoreFileReading>;
  for (const flavour of flavours) {
    const one = compiled.byFlavour.get(flavour) as CompiledRules;
    const refused = refusal ? [{ item: `${one.rules.length} rules`, reason: refusal }] : one.refused;
    out[flavour] = {
      file: { file, dir, flavour, rules: refusal ? [] : one.rules },
      ignored: refused.map((r) => ({ file, ...r })),
    };
  }
  return out;
}

interface CompiledRules {
  rules: IgnoreRule[];
  refused: Array<{ item: string; reason: string }>;
}

interface CompiledText {
  byFlavour: Map<IgnoreFlavour, CompiledRules>;
  /** Every glob compiled, to charge a budget again when the text is met again. */
  costs: GlobCost[];
  /** False when a budget stopped the compile (such a result is not cached). */
  complete: boolean;
}

/**
 * Compiled ignore files by text. A Map keyed by the string looks it up by the content's hash (and
 * then compares it), so identical files share one compile. Bounded by the characters it holds.
 */
const compiledIgnoreFiles = new Map<string, CompiledText>();
const MAX_CACHED_IGNORE_CHARS = 2 * CONFIG_BUDGET.maxGlobChars;
let cachedIgnoreChars = 0;

function cacheCompiled(key: string, compiled: CompiledText): void {
  if (key.length > MAX_CACHED_IGNORE_CHARS / 4) return;
  compiledIgnoreFiles.set(key, compiled);
  cachedIgnoreChars += key.length;
  for (const [oldest] of compiledIgnoreFiles) {
    if (cachedIgnoreChars <= MAX_CACHED_IGNORE_CHARS) break;
    compiledIgnoreFiles.delete(oldest);
    cachedIgnoreChars -= oldest.length;
  }
}

interface IgnoreLine {
  raw: string;
  /** The pattern without `!`, escapes of the first character and trailing slashes. */
  pattern: string;
  negated: boolean;
  directoryOnly: boolean;
  anchored: boolean;
}

function ignoreLines(lines: readonly string[]): IgnoreLine[] {
  const out: IgnoreLine[] = [];
  for (const raw of lines) {
    let line = raw.replace(/(?<!\\)\s+$/, '');
    if (line === '' || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    if (negated) line = line.slice(1);
    else if (line.startsWith('\\!') || line.startsWith('\\#')) line = line.slice(1);
    const directoryOnly = line.endsWith('/');
    line = line.replace(/\/+$/, '');
    if (line === '') continue;
    out.push({ raw, pattern: line, negated, directoryOnly, anchored: line.includes('/') });
  }
  return out;
}

function compileIgnoreText(text: string, flavours: readonly IgnoreFlavour[], budget: GlobBudget | undefined): CompiledText {
  const lines = text.split(/\r?\n/);
  const entries = ignoreLines(lines.slice(0, MAX_IGNORE_LINES));
  const costs: GlobCost[] = [];
  let budgetRefused = false;
  const recording: GlobBudget = {
    spend(cost) {
      const refusal = budget?.spend(cost);
      if (refusal) budgetRefused = true;
      else costs.push(cost);
      return refusal;
    },
  };
  const globs = new Map<string, Glob>();
  const byFlavour = new Map<IgnoreFlavour, CompiledRules>();
  for (const flavour of flavours) {
    const rules: IgnoreRule[] = [];
    const refused: CompiledRules['refused'] = [];
    if (lines.length > MAX_IGNORE_LINES) refused.push({ item: `lines after ${MAX_IGNORE_LINES}`, reason: `only the first ${MAX_IGNORE_LINES} lines are read` });
    let size = 0;
    for (const entry of entries) {
      const item = entry.raw.length > 80 ? `${entry.raw.slice(0, 80)}…` : entry.raw;
      const body = entry.pattern.replace(/^\//, '').replace(flavour === 'git' ? /[{}()]/g : /[()]/g, (c) => `\\${c}`);
      // Without a slash the pattern matches a name at any depth: tested against the last segment only.
      let compiled = globs.get(body);
      if (!compiled) {
        compiled = compileGlob(body, recording);
        if (budgetRefused) {
          refused.push({ item, reason: compiled.ok ? 'not read' : `this and later patterns are not read: ${compiled.reason}` });
          break;
        }
        globs.set(body, compiled);
      }
      if (!compiled.ok) {
        refused.push({ item, reason: compiled.reason });
        continue;
      }
      size += compiled.size;
      if (size > MAX_IGNORE_GLOB_SIZE) {
        refused.push({ item, reason: `this and later patterns are not read: more than ${MAX_IGNORE_GLOB_SIZE} glob tokens in the file` });
        break;
      }
      rules.push({ negated: entry.negated, directoryOnly: entry.directoryOnly, anchored: entry.anchored, test: compiled.test });
    }
    byFlavour.set(flavour, { rules, refused });
    if (budgetRefused) {
      const reason = refused.at(-1)?.reason ?? 'not read';
      for (const rest of flavours) if (!byFlavour.has(rest)) byFlavour.set(rest, { rules: [], refused: [{ item: 'every rule', reason }] });
      break;
    }
  }
  return { byFlavour, costs, complete: !budgetRefused };
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
