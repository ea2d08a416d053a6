/**
 * How Biome 2.4.15 finds an `extends` entry that is not a relative path (`ultracite/biome/core`,
 * `@company/biome-config`): biome_service's `deserialize_extends` calls biome_resolver's `resolve`
 * with `assume_relative` and the conditions `biome` and `default`, from the directory Biome runs in
 * (the root config's, as formatbox runs it). That resolver, followed here step by step:
 * 1. `<base>/<entry>` as a file (assume_relative); found, it is read as a relative path;
 * 2. the nearest `package.json` at or above the base (Biome's "package path"); a `tsconfig.json`
 *    beside it may remap names (`compilerOptions.paths`, `baseUrl`): formatbox refuses then;
 *    an entry that starts with that package's own name and `/` resolves in its own `exports`;
 * 3. `node_modules/<name>` in the package path and each directory above it; in a package whose
 *    `package.json` has `exports`, those decide (exact keys, then `*` patterns by specificity; an
 *    object that matches no key is read as conditions; in a condition object the first key that is
 *    `biome` or `default` is taken, with no fallback to later keys; in a list the first target that
 *    resolves); else `main` (for the package itself); else the subpath as a file. Nothing is tried
 *    with an added extension. Not found in one `node_modules`, the next one up is tried.
 * Refused with a reason, where Biome would read a file formatbox does not: a target that names
 * another package, a `..`, an absolute path; a resolution that would go above the project root
 * (Biome looks there too: in a parent's `node_modules`, a parent's `package.json`); a file that is
 * not `.json`/`.jsonc` (Biome would parse it as JSONC; a `.js` config is code and is never read).
 * Only verified for 2.4.15: another Biome version's adapter refuses a config that needed this.
 */
import { isRecord, parseData } from '../../config/data.js';
import {
  ancestorsOf,
  checkExports,
  inDir,
  joinInside,
  NOT_FOUND,
  parsePackageSpecifier,
  patternKeyCompare,
  quoted,
  readManifest,
  type FileLookup,
  type Step,
} from '../../config/package-resolve.js';

/** The Biome versions whose package resolution of `extends` this module follows. */
export const BIOME_PACKAGE_EXTENDS_VERSIONS: readonly string[] = ['2.4.15'];

const CONDITIONS = new Set(['biome', 'default']);

/** Whether Biome reads an `extends` entry as a relative path (biome_resolver's is_relative_specifier), else it resolves it. */
export function isBiomeRelativeSpecifier(entry: string): boolean {
  return entry === '.' || entry.startsWith('./') || entry.startsWith('../');
}

export type BiomePackageResolution = { file: string; viaPackage: boolean } | { error: string };

/**
 * The project file Biome reads for the `extends` entry `entry` of a config whose resolution base is
 * `baseDir` (project-relative), or why formatbox does not follow it. `viaPackage` is false when the
 * entry named a file beside the base (step 1).
 */
export function resolveBiomePackageExtends(entry: string, baseDir: string, lookup: FileLookup): BiomePackageResolution {
  // Step 1: assume_relative (Biome joins and normalises the path, `..` included).
  const beside = besideBase(entry, baseDir);
  if ('error' in beside) return beside;
  if (beside.path !== undefined) {
    const text = lookup(beside.path);
    if (typeof text === 'string') return { file: beside.path, viaPackage: false };
    if (text === null) return { error: `${beside.path} was not read (too large, not a regular file, or a symlink out of the project root)` };
  }
  const specifier = parsePackageSpecifier(entry);
  if ('error' in specifier) return { error: specifier.error };
  // Step 2: the package path.
  let packageDir: string | undefined;
  let manifest: Record<string, unknown> | undefined;
  for (const dir of ancestorsOf(baseDir)) {
    const path = inDir(dir, 'package.json');
    const text = lookup(path);
    if (text === undefined) continue;
    const read = readManifest(path, text);
    if (!read.ok) return { error: `${read.error} (Biome reads it to resolve packages)` };
    packageDir = dir;
    manifest = read.value;
    break;
  }
  if (packageDir === undefined || manifest === undefined) return { error: `no package.json in ${baseDir === '' ? 'the project root' : baseDir} or above it inside the project root (Biome would look for one above the project)` };
  const tsconfig = tsconfigRemaps(packageDir, lookup);
  if (tsconfig) return { error: tsconfig };
  const own = typeof manifest.name === 'string' ? manifest.name : undefined;
  if (own !== undefined && entry.startsWith(`${own}/`)) {
    const step = manifest.exports === undefined ? NOT_FOUND : resolveExports(entry.slice(own.length + 1), packageDir, manifest.exports, inDir(packageDir, 'package.json'), lookup);
    return finish(step, entry, `the exports of the project package itself (${own})`);
  }
  // Step 3: node_modules from the package path up.
  let installed: string | undefined;
  for (const dir of ancestorsOf(packageDir)) {
    const packagePath = inDir(dir, `node_modules/${specifier.name}`);
    const step = resolvePackagePath(packagePath, specifier.subpath, lookup);
    if (!('notFound' in step)) return finish(step, entry, specifier.name);
    if (installed === undefined && lookup(`${packagePath}/package.json`) !== undefined) installed = packagePath;
  }
  if (installed !== undefined) return { error: `Biome cannot resolve ${quoted(entry)}: no file of ${installed} matches it (its exports, main or files; Biome stops too)` };
  return {
    error: `${specifier.name} is not installed in the node_modules of the project (run the package manager install, such as npm install; Biome stops too: it cannot resolve ${quoted(entry)}); Biome would also look in node_modules above the project root, which formatbox does not read`,
  };
}

/** `<base>/<entry>`, normalised; an error when it leaves the project root (Biome would read it there). */
function besideBase(entry: string, baseDir: string): { path?: string } | { error: string } {
  if (/[\0\\]/.test(entry)) return { error: 'not a plain path or package name' };
  const segments = baseDir === '' ? [] : baseDir.split('/');
  for (const segment of entry.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment !== '..') segments.push(segment);
    else if (segments.length === 0) return { error: 'a path outside the project root' };
    else segments.pop();
  }
  return segments.length === 0 ? {} : { path: segments.join('/') };
}

function finish(step: Step, entry: string, what: string): BiomePackageResolution {
  if ('error' in step) return { error: step.error };
  if ('notFound' in step) return { error: `Biome cannot resolve ${quoted(entry)} in ${what}` };
  if (!/\.jsonc?$/.test(step.found)) return { error: `it resolves to ${step.found}, which is not a JSON or JSONC file; only data is read (a .js or .ts config is code)` };
  return { file: step.found, viaPackage: true };
}

/** A `tsconfig.json` beside the package path whose `paths` or `baseUrl` Biome's resolver would apply first. */
function tsconfigRemaps(packageDir: string, lookup: FileLookup): string | undefined {
  const path = inDir(packageDir, 'tsconfig.json');
  const text = lookup(path);
  if (text === undefined) return undefined;
  if (text === null) return `${path} was not read, and the Biome resolver applies its compilerOptions.paths first`;
  const parsed = parseData(text, 'jsonc');
  if (!parsed.ok || !isRecord(parsed.value)) return `${path} could not be read as JSONC, and the Biome resolver applies its compilerOptions.paths first`;
  const options = parsed.value.compilerOptions;
  if (isRecord(options) && (options.paths !== undefined || options.baseUrl !== undefined)) {
    return `${path} sets compilerOptions.${options.paths !== undefined ? 'paths' : 'baseUrl'}, which the Biome resolver applies to extends too; not followed`;
  }
  return undefined;
}

/** biome_resolver's resolve_package_path. */
function resolvePackagePath(packagePath: string, subpath: string, lookup: FileLookup): Step {
  const manifestPath = `${packagePath}/package.json`;
  const text = lookup(manifestPath);
  if (text !== undefined) {
    const read = readManifest(manifestPath, text);
    if (!read.ok) return { error: read.error };
    const { exports, main } = read.value;
    if (exports !== undefined) return resolveExports(subpath, packagePath, exports, manifestPath, lookup);
    if (subpath === '' && typeof main === 'string') {
      const target = joinInside(packagePath, main);
      if (target === undefined) return { error: `${manifestPath}: "main" ${quoted(main)} is not a path inside the package; not followed` };
      return fileAt(target, lookup);
    }
  }
  if (subpath === '') return text === undefined ? NOT_FOUND : { error: `${manifestPath} has no "exports" and no "main": Biome finds no file for the package itself` };
  return fileAt(`${packagePath}/${subpath}`, lookup);
}

/** Present is enough here: extends.ts reads the file (discovery records a file that is not data as present, unread). */
function fileAt(path: string, lookup: FileLookup): Step {
  return lookup(path) === undefined ? NOT_FOUND : { found: path };
}

/** biome_resolver's resolve_export. */
function resolveExports(subpath: string, packagePath: string, exports: unknown, manifestPath: string, lookup: FileLookup): Step {
  const bad = checkExports(exports, manifestPath);
  if (bad) return { error: bad };
  if (typeof exports === 'string') return resolveTarget(exports, undefined, packagePath, manifestPath, lookup);
  if (!isRecord(exports)) return { error: `${manifestPath}: "exports" is neither an object nor a string (Biome: invalid mapping target)` };
  const mapped = resolveMapping(subpath, exports, packagePath, manifestPath, lookup);
  // An object no key matches is read as a condition object (Biome accepts `{"biome": "./biome.json"}`).
  return 'notFound' in mapped ? resolveValue(exports, undefined, packagePath, manifestPath, lookup) : mapped;
}

function normaliseSubpath(subpath: string): string {
  return subpath === '.' ? '' : subpath.startsWith('./') ? subpath.slice(2) : subpath;
}

function resolveMapping(subpath: string, mapping: Record<string, unknown>, packagePath: string, manifestPath: string, lookup: FileLookup): Step {
  const wanted = normaliseSubpath(subpath);
  for (const [key, target] of Object.entries(mapping)) {
    if (!key.includes('*') && normaliseSubpath(key) === wanted) return resolveValue(target, undefined, packagePath, manifestPath, lookup);
  }
  const patterns = Object.keys(mapping).filter((key) => key.includes('*')).sort((a, b) => patternKeyCompare(normaliseSubpath(a), normaliseSubpath(b)));
  for (const key of patterns) {
    const normal = normaliseSubpath(key);
    const star = normal.indexOf('*');
    const base = normal.slice(0, star);
    const trailer = normal.slice(star + 1);
    if (wanted.startsWith(base) && wanted !== base && (trailer === '' || (wanted.endsWith(trailer) && wanted.length >= normal.length))) {
      return resolveValue(mapping[key], wanted.slice(base.length, wanted.length - trailer.length), packagePath, manifestPath, lookup);
    }
  }
  return NOT_FOUND;
}

/** biome_resolver's resolve_target_value. */
function resolveValue(target: unknown, replacement: string | undefined, packagePath: string, manifestPath: string, lookup: FileLookup): Step {
  if (typeof target === 'string') return resolveTarget(target, replacement, packagePath, manifestPath, lookup);
  if (target === null) return NOT_FOUND;
  if (Array.isArray(target)) {
    for (const item of target) {
      const step = resolveValue(item, replacement, packagePath, manifestPath, lookup);
      if ('found' in step) return step;
      // Biome takes the first item that resolves; one it refuses for formatbox's reasons stops here.
      if ('error' in step && step.error.endsWith('; not followed')) return step;
    }
    return NOT_FOUND;
  }
  if (isRecord(target)) {
    for (const [condition, value] of Object.entries(target)) {
      if (CONDITIONS.has(condition)) return resolveValue(value, replacement, packagePath, manifestPath, lookup);
    }
    return NOT_FOUND;
  }
  return { error: `${manifestPath}: an "exports" target that is ${typeof target} (Biome: invalid mapping target)` };
}

/** biome_resolver's resolve_target_string: `./` is a file of the package; anything else would resolve another package. */
function resolveTarget(target: string, replacement: string | undefined, packagePath: string, manifestPath: string, lookup: FileLookup): Step {
  if (replacement !== undefined && replacement.split('/').some((s) => s === '' || s === '.' || s === '..' || s === 'node_modules')) {
    return { error: `${manifestPath}: the "*" of an exports pattern would stand for ${quoted(replacement)}; not followed` };
  }
  const written = replacement === undefined ? target : target.split('*').join(replacement);
  if (!written.startsWith('./')) return { error: `${manifestPath}: the exports target ${quoted(written)} is not a path inside the package (Biome would resolve it as another package); not followed` };
  const path = joinInside(packagePath, written);
  if (path === undefined) return { error: `${manifestPath}: the exports target ${quoted(written)} leaves the package or is not a plain path; not followed` };
  return fileAt(path, lookup);
}
