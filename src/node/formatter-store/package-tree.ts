/**
 * A project's formatting toolchain for a fresh clone (no node_modules): the exact packages its
 * package-lock.json names for Prettier and every package its config loads, with their dependency
 * closure as the lockfile resolves it, fetched once into the verified per-user store (store.ts: the
 * user's registry, the registry's integrity) and laid out as a `node_modules` tree at the lockfile's
 * own paths, for the OS sandbox to mount read-only at `<project>/node_modules`. Install scripts
 * never run.
 *
 * The lockfile is hostile data. Only what is checked is used: keys are `node_modules/<name>` paths
 * (nested), names npm names, versions exact semver; the package always comes from the user's
 * registry, never from the lockfile's `resolved` URL (a `resolved` that is not a registry tarball
 * of that same package and version, such as a git or file URL, refuses the package); a lockfile
 * `integrity` of sha512 must equal the registry's; a link (a workspace or `file:` package) must stay
 * inside the project. Counts and bytes are bounded.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import semverValid from 'semver/functions/valid.js';
import { FormatboxError } from '../../core/errors.js';
import { checkOwnedChain, checkOwnedDir } from '../fs/owned.js';
import { createFormatterStore, isPackageName, type FormatterStore } from './store.js';

export interface TreeLimits {
  maxLockfileBytes: number;
  maxLockEntries: number;
  /** Packages in the toolchain's closure. */
  maxPackages: number;
  /** Bytes of every file in the tree. */
  maxTreeBytes: number;
  maxPathDepth: number;
}

export const TREE_LIMITS: TreeLimits = { maxLockfileBytes: 32 * 1024 * 1024, maxLockEntries: 50_000, maxPackages: 1_500, maxTreeBytes: 1024 * 1024 * 1024, maxPathDepth: 24 };

/** One package of the closure, where the tree puts it. */
export interface LockedPackage {
  /** The lockfile key: `node_modules/a`, `node_modules/a/node_modules/@s/b`. */
  path: string;
  /** The package fetched (an alias's real name). */
  name: string;
  version: string;
  /** The lockfile's sha512 integrity, when it states one. */
  integrity?: string;
  /** A link's target, project-relative (a workspace or `file:` package): not fetched, linked. */
  link?: string;
  /** The package declares an install script: it is not run (none is needed to format). */
  installScript?: boolean;
}

interface LockEntry {
  name?: string;
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  optional?: boolean;
  inBundle?: boolean;
  hasInstallScript?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const isNpmName = isPackageName;

function refuse(message: string): never {
  throw new FormatboxError('FORMATTER_FETCH', `package-lock.json: ${message}`);
}

/** The lockfile's `packages` map (lockfileVersion 2 or 3), every key and entry checked for shape. */
export function readPackageLock(text: string, limits: TreeLimits = TREE_LIMITS): Map<string, LockEntry> {
  if (text.length > limits.maxLockfileBytes) refuse(`over ${limits.maxLockfileBytes} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    refuse(`not JSON (${(error as Error).message.slice(0, 200)})`);
  }
  if (typeof parsed !== 'object' || parsed === null) refuse('not an object');
  const version = (parsed as { lockfileVersion?: unknown }).lockfileVersion;
  if (version !== 2 && version !== 3) refuse(`lockfileVersion ${JSON.stringify(version)}: only versions 2 and 3 (npm 7 and later) list every package`);
  const packages = (parsed as { packages?: unknown }).packages;
  if (typeof packages !== 'object' || packages === null || Array.isArray(packages)) refuse('no "packages" map');
  const keys = Object.keys(packages);
  if (keys.length > limits.maxLockEntries) refuse(`${keys.length} entries, over ${limits.maxLockEntries}`);
  const out = new Map<string, LockEntry>();
  for (const key of keys) {
    const raw = (packages as Record<string, unknown>)[key];
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) refuse(`entry ${JSON.stringify(key.slice(0, 200))} is not an object`);
    // '' is the project; every other key a node_modules path or a linked directory inside the project.
    if (key !== '' && nameAtKey(key, limits.maxPathDepth) === undefined && !isProjectPath(key)) refuse(`${JSON.stringify(key.slice(0, 200))} is not a node_modules path or a directory inside the project`);
    out.set(key, entryOf(key, raw as Record<string, unknown>));
  }
  return out;
}

function entryOf(key: string, raw: Record<string, unknown>): LockEntry {
  const where = JSON.stringify(key.slice(0, 200));
  const string = (field: string): string | undefined => {
    const value = raw[field];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.length > 4096) refuse(`${where}: "${field}" is not a string`);
    return value;
  };
  const flag = (field: string): boolean | undefined => {
    const value = raw[field];
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') refuse(`${where}: "${field}" is not a boolean`);
    return value;
  };
  const strings = (field: string): string[] | undefined => {
    const value = raw[field];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.length > 64 || !value.every((item) => typeof item === 'string' && item.length <= 64)) refuse(`${where}: "${field}" is not a list of strings`);
    return value as string[];
  };
  const map = (field: string): Record<string, string> | undefined => {
    const value = raw[field];
    if (value === undefined) return undefined;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) refuse(`${where}: "${field}" is not an object`);
    const entries = Object.entries(value);
    if (entries.length > 10_000) refuse(`${where}: "${field}" has ${entries.length} entries`);
    for (const [name, spec] of entries) if (!isNpmName(name) || typeof spec !== 'string') refuse(`${where}: "${field}" names ${JSON.stringify(name.slice(0, 100))}, not a package`);
    return value as Record<string, string>;
  };
  const metaRaw = raw.peerDependenciesMeta;
  const peerDependenciesMeta: Record<string, { optional?: boolean }> = {};
  if (typeof metaRaw === 'object' && metaRaw !== null && !Array.isArray(metaRaw)) {
    for (const [name, meta] of Object.entries(metaRaw)) if ((meta as { optional?: unknown } | null)?.optional === true) peerDependenciesMeta[name] = { optional: true };
  }
  const entry: LockEntry = { peerDependenciesMeta };
  const assign = <K extends keyof LockEntry>(field: K, value: LockEntry[K] | undefined): void => {
    if (value !== undefined) entry[field] = value;
  };
  assign('name', string('name'));
  assign('version', string('version'));
  assign('resolved', string('resolved'));
  assign('integrity', string('integrity'));
  assign('link', flag('link'));
  assign('optional', flag('optional'));
  assign('inBundle', flag('inBundle'));
  assign('hasInstallScript', flag('hasInstallScript'));
  assign('os', strings('os'));
  assign('cpu', strings('cpu'));
  assign('libc', strings('libc'));
  assign('dependencies', map('dependencies'));
  assign('optionalDependencies', map('optionalDependencies'));
  assign('peerDependencies', map('peerDependencies'));
  return entry;
}

/** The package name a `node_modules/…` key ends with, or undefined when the key is no such path. */
function nameAtKey(key: string, maxDepth: number): string | undefined {
  const parts = key.split('/');
  if (parts.length > maxDepth * 3) return undefined;
  let at = 0;
  let name: string | undefined;
  while (at < parts.length) {
    if (parts[at] !== 'node_modules') return undefined;
    const scoped = parts[at + 1]?.startsWith('@');
    name = scoped ? `${parts[at + 1]}/${parts[at + 2] ?? ''}` : parts[at + 1];
    if (name === undefined || !isNpmName(name)) return undefined;
    at += scoped ? 3 : 2;
  }
  return name;
}

/** A normal project-relative path: no absolute path, no `.`/`..` or empty segment. */
function isProjectPath(path: string): boolean {
  return path !== '' && !path.includes('\\') && !path.includes('\0') && path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/** A project-relative link target that stays inside the project, or undefined. */
function linkTarget(resolved: string | undefined): string | undefined {
  if (resolved === undefined || resolved === '' || resolved.startsWith('/') || resolved.includes('\\') || resolved.includes('\0')) return undefined;
  const normal = posix.normalize(resolved);
  if (normal === '.' || normal === '..' || normal.startsWith('../') || normal.split('/').includes('node_modules')) return undefined;
  return normal;
}

/** Whether a registry tarball URL names this package and version (`…/<name>/-/<basename>-<version>.tgz`). */
function isRegistryTarball(resolved: string, name: string, version: string): boolean {
  let url: URL;
  try {
    url = new URL(resolved);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  const base = name.includes('/') ? name.slice(name.indexOf('/') + 1) : name;
  const path = decodeURIComponent(url.pathname);
  return path.endsWith(`/${name}/-/${base}-${version}.tgz`);
}

export interface Platform {
  os: string;
  cpu: string;
  /** 'glibc' | 'musl' on Linux. */
  libc?: string;
}

export function currentPlatform(): Platform {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return { os: process.platform, cpu: process.arch, ...(process.platform === 'linux' ? { libc: header?.glibcVersionRuntime ? 'glibc' : 'musl' } : {}) };
}

/** npm's rule for `os`/`cpu`/`libc`: a `!x` entry excludes, any other entry must include. */
function fits(list: string[] | undefined, value: string | undefined): boolean {
  if (!list || list.length === 0) return true;
  if (value === undefined) return true;
  if (list.includes(`!${value}`)) return false;
  const positive = list.filter((item) => !item.startsWith('!'));
  return positive.length === 0 || positive.includes(value);
}

export interface Closure {
  packages: LockedPackage[];
  /** Optional packages left out, and why (another platform's native build, a missing optional dependency). */
  leftOut: Array<{ path: string; reason: string }>;
}

/**
 * The packages `seeds` (root dependency names) need, resolved from the project root as Node would
 * find them in the tree the lockfile describes: dependencies, optional dependencies that fit this
 * platform, and peer dependencies the lockfile placed.
 */
export function lockedClosure(lock: Map<string, LockEntry>, seeds: readonly string[], platform: Platform = currentPlatform(), limits: TreeLimits = TREE_LIMITS): Closure {
  const packages = new Map<string, LockedPackage>();
  const leftOut: Closure['leftOut'] = [];
  const visited = new Set<string>();
  const queue: Array<{ from: string; name: string; required: boolean; why: string }> = seeds.map((name) => ({ from: '', name, required: true, why: 'the project' }));

  /** The key Node would find `name` at from the directory `from` (a key, or a link target). */
  const resolve = (from: string, name: string): string | undefined => {
    let dir = from;
    for (;;) {
      const key = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
      if (lock.has(key)) return key;
      if (dir === '') return undefined;
      dir = dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '';
    }
  };

  while (queue.length > 0) {
    const { from, name, required, why } = queue.shift()!;
    if (!isNpmName(name)) refuse(`${JSON.stringify(name.slice(0, 100))} is not a package name`);
    const key = resolve(from, name);
    if (key === undefined) {
      if (required) refuse(`${name} (needed by ${why}) is not in the lockfile; run npm install to update it`);
      leftOut.push({ path: `${from ? `${from}/` : ''}node_modules/${name}`, reason: `an optional dependency of ${why} the lockfile does not hold` });
      continue;
    }
    if (visited.has(key)) continue;
    visited.add(key);
    const entry = lock.get(key)!;
    const keyName = nameAtKey(key, limits.maxPathDepth);
    // A workspace package's own node_modules (`packages/x/node_modules/y`) would have to be placed inside the read-only project.
    if (keyName === undefined) refuse(`${JSON.stringify(key.slice(0, 200))} is not under the project's node_modules, where formatbox places the toolchain`);
    if (entry.inBundle) continue; // inside its parent's tarball
    if (!fits(entry.os, platform.os) || !fits(entry.cpu, platform.cpu) || !fits(entry.libc, platform.libc)) {
      if (!entry.optional && required) refuse(`${key} is for another platform (${[entry.os, entry.cpu, entry.libc].flat().filter(Boolean).join(', ')}) and not optional`);
      leftOut.push({ path: key, reason: `for another platform (${[entry.os, entry.cpu, entry.libc].flat().filter(Boolean).join(', ')})` });
      continue;
    }
    let depsFrom = key;
    let depsEntry = entry;
    const locked: LockedPackage = { path: key, name: keyName, version: '' };
    if (entry.link) {
      const target = linkTarget(entry.resolved);
      if (target === undefined) refuse(`${key} links to ${JSON.stringify((entry.resolved ?? '').slice(0, 200))}, which is not a directory inside the project`);
      const targetEntry = lock.get(target);
      if (!targetEntry) refuse(`${key} links to ${target}, which the lockfile does not describe`);
      locked.link = target;
      locked.version = targetEntry.version ?? '';
      depsFrom = target;
      depsEntry = targetEntry;
    } else {
      const name = entry.name ?? keyName; // an alias (`"x": "npm:y@1"`) names the real package
      const version = entry.version ?? '';
      if (!isNpmName(name)) refuse(`${key}: ${JSON.stringify(name.slice(0, 100))} is not a package name`);
      if (semverValid(version) !== version) refuse(`${key}: ${JSON.stringify(version.slice(0, 100))} is not an exact version`);
      if (entry.resolved !== undefined && !isRegistryTarball(entry.resolved, name, version)) {
        refuse(`${key} is resolved from ${JSON.stringify(entry.resolved.slice(0, 200))}, not a registry tarball of ${name}@${version}; formatbox fetches only registry packages`);
      }
      if (entry.integrity !== undefined && !/^(sha512-[A-Za-z0-9+/]{86}==|sha1-[A-Za-z0-9+/]{27}=)( \S+)*$/.test(entry.integrity)) refuse(`${key}: "integrity" is not an integrity string`);
      locked.name = name;
      locked.version = version;
      const sha512 = entry.integrity?.split(' ').find((item) => item.startsWith('sha512-'));
      if (sha512) locked.integrity = sha512;
      if (entry.hasInstallScript) locked.installScript = true;
    }
    packages.set(key, locked);
    if (packages.size > limits.maxPackages) refuse(`the toolchain needs over ${limits.maxPackages} packages`);
    const who = `${locked.name}@${locked.version}`;
    for (const dep of Object.keys(depsEntry.dependencies ?? {})) queue.push({ from: depsFrom, name: dep, required: true, why: who });
    for (const dep of Object.keys(depsEntry.optionalDependencies ?? {})) queue.push({ from: depsFrom, name: dep, required: false, why: who });
    // A peer the lockfile placed is part of the tree; one it did not place was optional or unmet there too.
    for (const dep of Object.keys(depsEntry.peerDependencies ?? {})) queue.push({ from: depsFrom, name: dep, required: false, why: who });
  }
  // Laid out under a link, a package would be written through it into the project.
  const links = [...packages.values()].filter((item) => item.link !== undefined);
  for (const item of packages.values()) {
    const above = links.find((link) => item.path.startsWith(`${link.path}/`));
    if (above) refuse(`${item.path} is inside the link ${above.path}`);
  }
  return { packages: [...packages.values()].sort((a, b) => a.path.localeCompare(b.path)), leftOut };
}

/** A package that, named by a config, brings companions the plugin loads from the project without declaring them. */
const COMPANIONS: Record<string, readonly string[]> = {
  'prettier-plugin-tailwindcss': ['tailwindcss'],
};

/**
 * The root dependencies a project's Prettier setup loads: `prettier`; every dependency whose name
 * says it is Prettier's (a plugin, a shared config); every dependency a config file's text names (a
 * `require`, a plugin list, package.json's `"prettier"` string); and what a named plugin loads from
 * the project undeclared (Tailwind's plugin loads `tailwindcss`). A TS config adds the project's
 * `tsx` where it has one (the loader a project uses where Node cannot strip types).
 */
export function toolchainSeeds(packageJson: { dependencies?: Record<string, string>; devDependencies?: Record<string, string>; prettier?: unknown }, configTexts: readonly string[]): string[] {
  const declared = new Set([...Object.keys(packageJson.dependencies ?? {}), ...Object.keys(packageJson.devDependencies ?? {})].filter(isNpmName));
  const seeds = new Set<string>();
  const add = (name: string): void => {
    if (!declared.has(name) || seeds.has(name)) return;
    seeds.add(name);
    for (const companion of COMPANIONS[name] ?? []) add(companion);
  };
  add('prettier');
  for (const name of declared) if (/(^|[/-])prettier([/-]|$)/.test(name)) add(name);
  const texts = [...configTexts, typeof packageJson.prettier === 'string' ? JSON.stringify(packageJson.prettier) : ''];
  for (const text of texts) {
    for (const match of text.matchAll(/["'`](@[\w.~-]+\/[\w.~-]+|[A-Za-z0-9][\w.~-]*)(?:\/[^"'`\s]*)?["'`]/g)) add(match[1]!);
  }
  if (texts.some((text) => /\bimport\s+type\b|\bsatisfies\b|:\s*Config\b/.test(text))) add('tsx');
  return [...seeds].sort();
}

export interface PackageTree {
  /** The directory holding `node_modules` (what the sandbox mounts at `<project>/node_modules`). */
  dir: string;
  packages: LockedPackage[];
  leftOut: Closure['leftOut'];
  /** Whether this call laid the tree out (false: it was already there). */
  created: boolean;
}

export interface TreeOptions {
  /** The project root (link targets are inside it). */
  root: string;
  lockText: string;
  seeds: readonly string[];
  /** Default: a store of locked packages at `$XDG_CACHE_HOME/formatbox/packages`. */
  store?: FormatterStore;
  /** Where trees are laid out. Default `$XDG_CACHE_HOME/formatbox/trees`. */
  treesDir?: string;
  env?: NodeJS.ProcessEnv;
  platform?: Platform;
  limits?: Partial<TreeLimits>;
}

const TREE_DONE = '.formatbox-tree.json';

function cacheDir(env: NodeJS.ProcessEnv): string {
  return env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(env.HOME ?? homedir(), '.cache');
}

/** The store locked packages are fetched into: any npm package, at an exact version, verified as every store entry is. */
export function createLockedStore(env: NodeJS.ProcessEnv = process.env): FormatterStore {
  return createFormatterStore({ dir: join(cacheDir(env), 'formatbox', 'packages'), env, anyPackage: true });
}

/**
 * The toolchain's tree, laid out once per closure (its identity: every package's path, name,
 * version and integrity, and the project root when a package links into it) from verified store entries: each file copied read-only,
 * executables kept executable, links as absolute symlinks into the project. A tree is renamed into
 * place whole, so a reader sees all of it or none.
 */
export async function packageTree(options: TreeOptions): Promise<PackageTree> {
  const env = options.env ?? process.env;
  const limits = { ...TREE_LIMITS, ...options.limits };
  const lock = readPackageLock(options.lockText, limits);
  const closure = lockedClosure(lock, options.seeds, options.platform ?? currentPlatform(), limits);
  // Links point into the project, so only a tree without any is shared by every clone of the same lockfile.
  const linksTo = closure.packages.some((item) => item.link !== undefined) ? options.root : '';
  const identity = createHash('sha256').update(JSON.stringify([linksTo, closure.packages])).digest('hex').slice(0, 32);
  const treesDir = options.treesDir ?? join(cacheDir(env), 'formatbox', 'trees');
  const dir = join(treesDir, identity);
  // Code in a tree runs (sandboxed) as the project's formatter: a tree another user could have
  // planted or changed would write other bytes. Every directory from the cache root down is the
  // user's, as the store's are.
  checkOwnedChain(options.treesDir ? dirname(treesDir) : cacheDir(env), treesDir, { what: "the toolchain trees' directory" }, { create: true, innerRule: { what: "the toolchain trees' directory", private: true } });
  if (existsSync(join(dir, TREE_DONE))) {
    checkOwnedDir(dir, { what: 'the toolchain tree' });
    return { dir, packages: closure.packages, leftOut: closure.leftOut, created: false };
  }

  const store = options.store ?? createLockedStore(env);
  const fetched = await fetchAll(store, closure.packages.filter((item) => item.link === undefined));
  const temp = `${dir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  let bytes = 0;
  try {
    // Outer packages first, so a nested one is copied into its parent's directory.
    for (const item of [...closure.packages].sort((a, b) => a.path.length - b.path.length)) {
      const target = join(temp, ...item.path.split('/'));
      if (item.link !== undefined) {
        mkdirSync(dirname(target), { recursive: true });
        symlinkSync(join(options.root, ...item.link.split('/')), target);
        continue;
      }
      const stored = fetched.get(item.path)!;
      if (item.integrity && stored.integrity !== item.integrity) {
        throw new FormatboxError('FORMATTER_FETCH', `package-lock.json: ${item.name}@${item.version}'s integrity is not the registry's (${store.registryFor(item.name).url})`);
      }
      bytes += copyPackage(stored.dir, target, limits.maxTreeBytes - bytes);
    }
    writeFileSync(join(temp, TREE_DONE), JSON.stringify({ root: options.root, packages: closure.packages }));
    try {
      renameSync(temp, dir);
    } catch (error) {
      // Another process laid out the same tree first.
      if (!['EEXIST', 'ENOTEMPTY'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  return { dir, packages: closure.packages, leftOut: closure.leftOut, created: true };
}

/** Fetches every package, a few at a time. */
async function fetchAll(store: FormatterStore, packages: readonly LockedPackage[]): Promise<Map<string, { dir: string; integrity: string }>> {
  const out = new Map<string, { dir: string; integrity: string }>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < packages.length) {
      const item = packages[next++]!;
      const stored = await store.fetch(item.name, item.version);
      out.set(item.path, { dir: stored.dir, integrity: stored.integrity });
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, packages.length) }, worker));
  return out;
}

/** Copies a stored package's files (regular files and directories only) read-only; returns the bytes copied. */
function copyPackage(from: string, to: string, budget: number): number {
  let bytes = 0;
  const walk = (source: string, target: string): void => {
    mkdirSync(target, { recursive: true });
    for (const entry of readdirSync(source, { withFileTypes: true })) {
      const inner = join(source, entry.name);
      const out = join(target, entry.name);
      if (entry.isDirectory()) walk(inner, out);
      else if (entry.isFile()) {
        const stats = lstatSync(inner);
        bytes += stats.size;
        if (bytes > budget) throw new FormatboxError('FORMATTER_FETCH', `package-lock.json: the toolchain's files are over ${TREE_LIMITS.maxTreeBytes} bytes`);
        copyFileSync(inner, out);
        chmodSync(out, stats.mode & 0o111 ? 0o555 : 0o444);
      }
    }
  };
  walk(from, to);
  return bytes;
}
