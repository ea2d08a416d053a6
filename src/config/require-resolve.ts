/**
 * Node's `require.resolve` (CommonJS, the algorithm in Node's modules documentation "All together")
 * over project files, for a Prettier config that is a string: Prettier 3 `require`s it from the
 * config file (load-external-config.js; Prettier 2 did the same), and only when `require` fails
 * with "not found"/"not exported" does it `import()` instead, which cannot load a JSON file without
 * an import attribute. So a string config is data exactly when `require` resolves it to a `.json`
 * file, which Node parses with JSON.parse.
 * - relative (`./x`, `../x`): LOAD_AS_FILE then LOAD_AS_DIRECTORY from the config's directory;
 * - a package: the nearest package.json's own `exports` when its name matches (LOAD_PACKAGE_SELF),
 *   then `node_modules/<name>` in the config's directory and each one above it (a directory named
 *   node_modules is skipped): `exports` with the conditions `require`, `node`, `node-addons` and
 *   `default` when it has them, else the file, the file with `.js`/`.json`/`.node`, and the
 *   directory (`main`, then `index.*`).
 * Refused with a reason: an absolute path, `#imports`, a condition whose meaning depends on the Node
 * version (`module-sync`), an invalid exports target (Node throws too), a resolution that would
 * leave the project root (Node would search global folders next).
 */
import { isRecord } from './data.js';
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
} from './package-resolve.js';

const CONDITIONS = new Set(['require', 'node', 'node-addons', 'default']);
/** Conditions some Node versions set for `require` and others do not. */
const VERSION_DEPENDENT_CONDITIONS = new Set(['module-sync']);
const EXTENSIONS = ['.js', '.json', '.node'];

/** `notInstalled`: a package name found in no `node_modules` of the project (a fresh clone, before its install). */
export type RequireResolution = { file: string } | { error: string; notInstalled?: true };

/** The file `require(specifier)` loads from a module in `fromDir`, or why formatbox does not follow it. */
export function resolveRequire(specifier: string, fromDir: string, lookup: FileLookup): RequireResolution {
  if (specifier.startsWith('/') || /^[A-Za-z]:[\\/]/.test(specifier)) return { error: 'an absolute path; only files inside the project root are read' };
  if (specifier.startsWith('#')) return { error: 'a package import ("#…"), not followed' };
  if (specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../')) return relative(specifier, fromDir, lookup);
  const parsed = parsePackageSpecifier(specifier);
  if ('error' in parsed) return { error: parsed.error };
  const self = resolveSelf(parsed.name, parsed.subpath, fromDir, lookup);
  if (self) return done(self, specifier);
  for (const dir of ancestorsOf(fromDir)) {
    if (dir.split('/').pop() === 'node_modules') continue;
    const packageDir = inDir(dir, `node_modules/${parsed.name}`);
    const manifestPath = `${packageDir}/package.json`;
    const text = lookup(manifestPath);
    if (text !== undefined) {
      const read = readManifest(manifestPath, text);
      if (!read.ok) return { error: read.error };
      if (read.value.exports !== undefined && read.value.exports !== null) return done(resolveExports(parsed.subpath, packageDir, read.value.exports, manifestPath, lookup), specifier);
    }
    const base = parsed.subpath === '' ? packageDir : `${packageDir}/${parsed.subpath}`;
    const step = loadAsFileOrDirectory(base, lookup);
    if (!('notFound' in step)) return done(step, specifier);
  }
  return { notInstalled: true, error: `Cannot find module ${quoted(specifier)}: it is not installed in the node_modules of the project (run the package manager install, such as npm install; Prettier fails too); Node would also look in node_modules above the project root and in global folders, which formatbox does not read` };
}

function done(step: Step, specifier: string): RequireResolution {
  if ('found' in step) return { file: step.found };
  if ('error' in step) return { error: step.error };
  return { error: `Cannot find module ${quoted(specifier)} (Prettier fails too)` };
}

function relative(specifier: string, fromDir: string, lookup: FileLookup): RequireResolution {
  const segments = fromDir === '' ? [] : fromDir.split('/');
  for (const segment of specifier.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) return { error: 'a path outside the project root' };
      segments.pop();
    } else if (/[\0-\x1f\\]/.test(segment)) return { error: 'not a plain path' };
    else segments.push(segment);
  }
  if (segments.length === 0) return { error: 'the project root itself' };
  return done(loadAsFileOrDirectory(segments.join('/'), lookup), specifier);
}

/** LOAD_PACKAGE_SELF: the nearest package.json (inside the root) names this package and has `exports`. */
function resolveSelf(name: string, subpath: string, fromDir: string, lookup: FileLookup): Step | undefined {
  for (const dir of ancestorsOf(fromDir)) {
    const manifestPath = inDir(dir, 'package.json');
    const text = lookup(manifestPath);
    if (text === undefined) continue;
    const read = readManifest(manifestPath, text);
    // Node reads the scope's package.json for this step: one it cannot parse stops it.
    if (!read.ok) return { error: read.error };
    if (read.value.name !== name || read.value.exports === undefined || read.value.exports === null) return undefined;
    return resolveExports(subpath, dir, read.value.exports, manifestPath, lookup);
  }
  return undefined;
}

function loadAsFileOrDirectory(base: string, lookup: FileLookup): Step {
  const file = loadAsFile(base, lookup);
  return 'notFound' in file ? loadAsDirectory(base, lookup) : file;
}

function loadAsFile(base: string, lookup: FileLookup): Step {
  for (const path of [base, ...EXTENSIONS.map((extension) => base + extension)]) {
    // Present is enough: the caller reads only a `.json` file (discovery records code as present, unread).
    if (lookup(path) !== undefined) return { found: path };
  }
  return NOT_FOUND;
}

function loadAsDirectory(dir: string, lookup: FileLookup): Step {
  const manifestPath = `${dir}/package.json`;
  const text = lookup(manifestPath);
  if (text !== undefined) {
    const read = readManifest(manifestPath, text);
    if (!read.ok) return { error: read.error };
    const main = read.value.main;
    if (typeof main === 'string' && main !== '') {
      const target = joinInside(dir, main);
      if (target === undefined) return { error: `${manifestPath}: "main" ${quoted(main)} is not a path inside the package; not followed` };
      const step = loadAsFile(target, lookup);
      if (!('notFound' in step)) return step;
      const index = indexOnly(target, lookup);
      if (!('notFound' in index)) return index;
      const legacy = indexOnly(dir, lookup);
      // Node throws here rather than look further ("Please verify that the package.json has a valid main entry").
      return 'notFound' in legacy ? { error: `Cannot find module ${target}: ${manifestPath} has no valid "main" entry (Prettier fails too)` } : legacy;
    }
  }
  return indexOnly(dir, lookup);
}

function indexOnly(dir: string, lookup: FileLookup): Step {
  for (const extension of EXTENSIONS) {
    const path = `${dir}/index${extension}`;
    if (lookup(path) !== undefined) return { found: path };
  }
  return NOT_FOUND;
}

/** PACKAGE_EXPORTS_RESOLVE with the `require` conditions. */
function resolveExports(subpath: string, packageDir: string, exports: unknown, manifestPath: string, lookup: FileLookup): Step {
  const bad = checkExports(exports, manifestPath);
  if (bad) return { error: bad };
  const wanted = subpath === '' ? '.' : `./${subpath}`;
  let mapping: Record<string, unknown>;
  if (isRecord(exports)) {
    const keys = Object.keys(exports);
    const dotted = keys.filter((key) => key.startsWith('.')).length;
    if (dotted !== 0 && dotted !== keys.length) return { error: `${manifestPath}: "exports" mixes paths and conditions (Node: invalid package config)` };
    mapping = dotted === 0 ? { '.': exports } : exports;
  } else mapping = { '.': exports };
  let step: Step | undefined;
  if (!wanted.includes('*') && !wanted.endsWith('/') && Object.hasOwn(mapping, wanted)) step = resolveValue(mapping[wanted], undefined, packageDir, manifestPath);
  else {
    let best: string | undefined;
    for (const key of Object.keys(mapping)) {
      const star = key.indexOf('*');
      if (star < 0) continue;
      const base = key.slice(0, star);
      const trailer = key.slice(star + 1);
      if (wanted.startsWith(base) && wanted !== base && (trailer === '' || (wanted.endsWith(trailer) && wanted.length >= key.length)) && (best === undefined || patternKeyCompare(key, best) < 0)) best = key;
    }
    if (best !== undefined) {
      const star = best.indexOf('*');
      step = resolveValue(mapping[best], wanted.slice(star, wanted.length - (best.length - star - 1)), packageDir, manifestPath);
    }
  }
  if (step === undefined || 'notFound' in step) return { error: `${manifestPath}: ${quoted(wanted)} is not exported for require (Node: ERR_PACKAGE_PATH_NOT_EXPORTED; Prettier fails too)` };
  if ('error' in step) return step;
  if (lookup(step.found) === undefined) return { error: `Cannot find module ${step.found} (exported by ${manifestPath}; Prettier fails too)` };
  return step;
}

/** RESOLVE_PACKAGE_TARGET: a path (not yet checked to exist), nothing, or an error. */
function resolveValue(target: unknown, replacement: string | undefined, packageDir: string, manifestPath: string): Step {
  if (typeof target === 'string') {
    if (!target.startsWith('./')) return { error: `${manifestPath}: the exports target ${quoted(target)} is not a path inside the package (Node: invalid package target)` };
    const invalid = (part: string) => part.split(/[\\/]/).some((s) => s === '' || s === '.' || s === '..' || s.toLowerCase() === 'node_modules' || /%2e|%2f|%5c/i.test(s));
    if (invalid(target.slice(2).replace(/\*/g, 'x')) || (replacement !== undefined && invalid(replacement))) return { error: `${manifestPath}: the exports target ${quoted(target)} is not a plain path inside the package (Node: invalid package target)` };
    const written = replacement === undefined ? target : target.split('*').join(replacement);
    const path = joinInside(packageDir, written);
    return path === undefined ? { error: `${manifestPath}: the exports target ${quoted(written)} is not a plain path inside the package` } : { found: path };
  }
  if (target === null) return NOT_FOUND;
  if (Array.isArray(target)) {
    let last: Step = NOT_FOUND;
    for (const item of target) {
      const step = resolveValue(item, replacement, packageDir, manifestPath);
      if ('found' in step) return step;
      last = step;
    }
    return last;
  }
  if (isRecord(target)) {
    for (const [condition, value] of Object.entries(target)) {
      if (/^\d+$/.test(condition)) return { error: `${manifestPath}: "exports" has a numeric condition key (Node: invalid package config)` };
      if (VERSION_DEPENDENT_CONDITIONS.has(condition)) return { error: `${manifestPath}: its exports has the condition "${condition}" before any other that applies, and whether require matches it depends on the Node version; not followed` };
      if (!CONDITIONS.has(condition)) continue;
      const step = resolveValue(value, replacement, packageDir, manifestPath);
      if ('notFound' in step) continue;
      return step;
    }
    return NOT_FOUND;
  }
  return { error: `${manifestPath}: an "exports" target that is ${typeof target} (Node: invalid package target)` };
}
