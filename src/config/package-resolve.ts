/**
 * Pieces shared by the two ways a shared config is found by package name (Biome's `extends`,
 * formatters/biome/resolve.ts; Prettier's string config, Node's `require`, require-resolve.ts): all
 * over a lookup of project files, so the same code runs in discovery (which reads what it asks for)
 * and in the pure core (which reads the files discovery handed over).
 *
 * Everything here is hostile input from the repository: specifiers, `package.json` fields and
 * `exports` maps are bounded (size, depth, nodes) and anything unusual is refused with a reason
 * rather than interpreted.
 */
import { isRecord, parseData } from './data.js';
import { dirOf } from './paths.js';

/**
 * A project file by project-relative path: its text, `null` when it exists and was not read (a
 * symlink out of the root, too large, not a regular file), `undefined` when there is no such file.
 * Directories are never files here.
 */
export type FileLookup = (path: string) => string | null | undefined;

/** A resolution step: the file found, nothing there (the caller may look elsewhere), or a stop with its reason. */
export type Step = { found: string } | { notFound: true } | { error: string };

export const NOT_FOUND: Step = { notFound: true };

/** Longest specifier or `exports` string followed (npm names are at most 214 characters). */
const MAX_SPECIFIER_CHARS = 512;
/** Nesting of condition objects and arrays in `exports`. */
const MAX_EXPORTS_DEPTH = 16;
/** Keys, strings and array items looked at in one `exports` value. */
export const MAX_EXPORTS_NODES = 2000;

export interface PackageSpecifier {
  name: string;
  /** What follows the name, without its leading `/` ('' for the package itself). */
  subpath: string;
}

/** Splits `pkg/sub` and `@scope/pkg/sub`; refuses anything that is not a plain package path. */
export function parsePackageSpecifier(specifier: string): PackageSpecifier | { error: string } {
  if (specifier.length === 0 || specifier.length > MAX_SPECIFIER_CHARS) return { error: `a package name of ${specifier.length} characters` };
  if (/[\0\\%?#:]/.test(specifier) || /\s/.test(specifier)) return { error: 'a package name with a character no package name has (\\, %, ?, #, :, a space or a control character)' };
  const segments = specifier.split('/');
  const nameLength = specifier.startsWith('@') ? 2 : 1;
  if (segments.length < nameLength || segments.some((s) => s === '' || s === '.' || s === '..')) return { error: 'not a package path (an empty, "." or ".." segment)' };
  const name = segments.slice(0, nameLength).join('/');
  if (name.startsWith('.') || (nameLength === 2 && (segments[0] === '@' || segments[1]!.startsWith('.')))) return { error: 'not a package name' };
  return { name, subpath: segments.slice(nameLength).join('/') };
}

/**
 * `dir` joined with the relative path `rel` (inside a package: `./x`, `x`), or undefined when the
 * result would leave `dir` or `rel` is odd (absolute, `..`, `\`, empty segments, a control character).
 */
export function joinInside(dir: string, rel: string): string | undefined {
  if (rel.length > MAX_SPECIFIER_CHARS || /[\0-\x1f\\]/.test(rel) || rel.startsWith('/')) return undefined;
  const segments = rel.split('/');
  if (segments[0] === '.') segments.shift();
  if (segments.length === 0 || segments.some((s) => s === '' || s === '.' || s === '..')) return undefined;
  return dir === '' ? segments.join('/') : `${dir}/${segments.join('/')}`;
}

/** The directories from `dir` up to the project root (''), nearest first. */
export function ancestorsOf(dir: string): string[] {
  const out: string[] = [];
  for (let d = dir; ; d = dirOf(d)) {
    out.push(d);
    if (d === '') return out;
  }
}

export function inDir(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

export type Manifest = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/** A `package.json` read as strict JSON within the data limits. */
export function readManifest(path: string, text: string | null): Manifest {
  if (text === null) return { ok: false, error: `${path} was not read (too large, not a regular file, or a symlink out of the project root)` };
  try {
    JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `${path} is not valid JSON (${error instanceof Error ? error.message.split('\n')[0] : String(error)})` };
  }
  const parsed = parseData(text, 'json');
  if (!parsed.ok) return { ok: false, error: `${path}: ${parsed.reason}` };
  if (!isRecord(parsed.value)) return { ok: false, error: `${path} is not a JSON object` };
  return { ok: true, value: parsed.value };
}

/**
 * Checks an `exports` value before it is interpreted: its size (nodes), nesting and strings. Keys
 * with more than one `*` are refused (Node ignores them, Biome's resolver splits at the first).
 */
export function checkExports(exports: unknown, manifest: string): string | undefined {
  let nodes = 0;
  const visit = (value: unknown, depth: number): string | undefined => {
    if (++nodes > MAX_EXPORTS_NODES) return `its "exports" has more than ${MAX_EXPORTS_NODES} entries`;
    if (depth > MAX_EXPORTS_DEPTH) return `its "exports" is nested deeper than ${MAX_EXPORTS_DEPTH} levels`;
    if (typeof value === 'string') return value.length > MAX_SPECIFIER_CHARS ? `its "exports" has a target of ${value.length} characters` : undefined;
    if (Array.isArray(value)) {
      for (const item of value) {
        const bad = visit(item, depth + 1);
        if (bad) return bad;
      }
      return undefined;
    }
    if (isRecord(value)) {
      for (const [key, item] of Object.entries(value)) {
        if (key.length > MAX_SPECIFIER_CHARS) return `its "exports" has a key of ${key.length} characters`;
        if (key.split('*').length > 2) return `its "exports" has a key with more than one "*" (${JSON.stringify(key.slice(0, 60))})`;
        const bad = visit(item, depth + 1);
        if (bad) return bad;
      }
      return undefined;
    }
    return value === null || typeof value === 'boolean' || typeof value === 'number' ? undefined : 'its "exports" holds a value of an unknown kind';
  };
  const bad = visit(exports, 0);
  return bad ? `${manifest}: ${bad}; not followed` : undefined;
}

/** Node's PATTERN_KEY_COMPARE (also Biome's): longer prefix before `*` first, then the longer key. */
export function patternKeyCompare(a: string, b: string): number {
  const baseA = a.indexOf('*') < 0 ? a.length : a.indexOf('*');
  const baseB = b.indexOf('*') < 0 ? b.length : b.indexOf('*');
  if (baseA !== baseB) return baseB - baseA;
  return b.length - a.length;
}

/** A specifier or path cut short for a message. */
export function quoted(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
