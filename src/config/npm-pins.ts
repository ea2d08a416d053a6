/**
 * Reading an npm-installed formatter's pinned version (Prettier, Biome) from the project's own
 * files, as data: the installed package.json, a lockfile (package-lock.json / npm-shrinkwrap.json,
 * pnpm-lock.yaml, yarn.lock, bun.lock; scanned line by line, bounded and linear, since only one
 * entry is wanted), package.json. Each formatter's folder adds its own sources (pin.ts).
 */
import semverSatisfies from 'semver/functions/satisfies.js';
import semverValid from 'semver/functions/valid.js';
import semverValidRange from 'semver/ranges/valid.js';
import semverCompare from 'semver/functions/compare.js';
import { isRecord } from './data.js';
import { dirOf } from './paths.js';
import type { PinFiles, PinReader, VersionPin } from './pins.js';

interface Manifest {
  ranges: Record<string, string>;
}

export function rootManifest(files: PinFiles): Manifest | undefined {
  return manifestAt(files, 'package.json');
}

function manifestAt(files: PinFiles, file: string): Manifest | undefined {
  const json = parseJson(files[file]);
  if (!isRecord(json)) return undefined;
  const ranges: Record<string, string> = {};
  // npm's order of precedence when a name appears twice: dependencies win over devDependencies.
  for (const field of ['optionalDependencies', 'peerDependencies', 'devDependencies', 'dependencies']) {
    const deps = json[field];
    if (!isRecord(deps)) continue;
    for (const [name, range] of Object.entries(deps)) if (typeof range === 'string') ranges[name] = range.trim();
  }
  return { ranges };
}

/** How one npm-installed formatter is pinned: its package name, and what its own files add. */
export interface NpmPinned {
  formatter: string;
  packageName: string;
  /** An exact version the formatter's own files give when no install, lockfile or exact package.json entry does (Biome's `$schema`). */
  ownExact?(files: PinFiles): { version: string; source: string } | undefined;
  /** What a config file alone implies when nothing else pins it (Prettier: any Prettier 3). */
  implied?(files: PinFiles): VersionPin | undefined;
}

/**
 * The installed `node_modules/<package>/package.json`, else a lockfile, else an exact version in
 * package.json, else the formatter's own exact source, else the package.json range, else what its
 * config implies.
 */
export function npmPin(files: PinFiles, pinned: NpmPinned): VersionPin | undefined {
  const { formatter, packageName: name } = pinned;
  const exact = (spec: string, source: string): VersionPin => ({ formatter, spec, exact: true, source });
  const installedPath = `node_modules/${name}/package.json`;
  const installed = parseJson(files[installedPath]);
  if (isRecord(installed) && installed.name === name && typeof installed.version === 'string' && semverValid(installed.version)) {
    return exact(semverValid(installed.version)!, installedPath);
  }
  const range = rootManifest(files)?.ranges[name];
  const locked = lockedVersion(files, name, range);
  if (locked) return exact(locked.version, locked.source);
  if (range !== undefined && semverValid(range)) return exact(semverValid(range)!, 'package.json');
  const own = pinned.ownExact?.(files);
  if (own) return exact(own.version, own.source);
  if (range !== undefined && isShowableSpec(range) && semverValidRange(range)) return { formatter, spec: range, exact: false, source: 'package.json' };
  return pinned.implied?.(files);
}

/** The version of `name` installed at `file` (a `node_modules/<name>/package.json`), when it is that package. */
function installedVersion(files: PinFiles, file: string, name: string): string | undefined {
  const installed = parseJson(files[file]);
  return isRecord(installed) && installed.name === name && typeof installed.version === 'string' ? (semverValid(installed.version) ?? undefined) : undefined;
}

/**
 * The pin a package directory below the root gives its files, as the formatter's own resolution
 * finds it (prettier-vscode's, and a package script's `node_modules/.bin`): the directory counts
 * when its package.json lists the package or it has its own install. Then, in order: its own
 * install; the nearest install above it (Node's resolution) that its range allows; the lockfile's
 * entry for that workspace (package-lock.json `packages["<dir>/node_modules/<name>"]`, then the
 * hoisted one its range allows; pnpm-lock.yaml `importers["<dir>"]`; a yarn.lock entry whose header
 * names its range); an exact version in its package.json; its range.
 */
export function npmNestedPin(files: PinFiles, dir: string, pinned: Pick<NpmPinned, 'formatter' | 'packageName'>): VersionPin | undefined {
  const { formatter, packageName: name } = pinned;
  const exact = (spec: string, source: string): VersionPin => ({ formatter, spec, exact: true, source });
  const ownInstall = `${dir}/node_modules/${name}/package.json`;
  const range = manifestAt(files, `${dir}/package.json`)?.ranges[name];
  const installed = installedVersion(files, ownInstall, name);
  if (installed) return exact(installed, ownInstall);
  if (range === undefined) return undefined;
  const allowed = (version: string): boolean => !semverValidRange(range) || semverSatisfies(version, range);
  for (let up = dirOf(dir); ; up = dirOf(up)) {
    const file = `${up === '' ? '' : `${up}/`}node_modules/${name}/package.json`;
    const version = installedVersion(files, file, name);
    if (version && allowed(version)) return exact(version, file);
    if (up === '') break;
  }
  const locked = workspaceLockedVersion(files, dir, name, range, allowed);
  if (locked) return exact(locked.version, locked.source);
  if (semverValid(range)) return exact(semverValid(range)!, `${dir}/package.json`);
  if (isShowableSpec(range) && semverValidRange(range)) return { formatter, spec: range, exact: false, source: `${dir}/package.json` };
  return undefined;
}

/** A lockfile's version of `name` for the workspace at `dir` (see npmNestedPin). bun.lock is not read per workspace. */
function workspaceLockedVersion(files: PinFiles, dir: string, name: string, range: string, allowed: (version: string) => boolean): { version: string; source: string } | undefined {
  for (const file of ['package-lock.json', 'npm-shrinkwrap.json']) {
    const lock = parsedLock(files[file]);
    const packages = isRecord(lock) && isRecord(lock.packages) ? lock.packages : undefined;
    if (!packages) continue;
    for (let up = dir; ; up = dirOf(up)) {
      const entry = packages[`${up === '' ? '' : `${up}/`}node_modules/${name}`];
      const version = isRecord(entry) && typeof entry.version === 'string' ? semverValid(entry.version) : null;
      if (version && (up === dir || allowed(version))) return { version, source: `${file} ${up === '' ? '' : `${up}/`}node_modules/${name}` };
      if (up === '') break;
    }
  }
  const pnpm = files['pnpm-lock.yaml'];
  if (typeof pnpm === 'string') {
    const block = pnpmImporters(pnpm).get(dir);
    const version = block === undefined ? null : semverValid(pnpmLockVersion(block, name) ?? '');
    if (version) return { version, source: `pnpm-lock.yaml importers["${dir}"]` };
  }
  const yarn = files['yarn.lock'];
  if (typeof yarn === 'string') {
    const version = semverValid(yarnEntries(yarn, name).find((entry) => entry.ranges.includes(range))?.version ?? '');
    if (version) return { version, source: 'yarn.lock' };
  }
  return undefined;
}

const parsedLockText = lastOf(parseJson);
function parsedLock(text: string | null | undefined): unknown {
  return typeof text === 'string' ? parsedLockText(text) : undefined;
}

/** The last lockfile text indexed, and its index: every workspace asks the same lockfile. */
function lastOf<T>(build: (text: string) => T): (text: string) => T {
  let last: { text: string; value: T } | undefined;
  return (text) => {
    if (last?.text !== text) last = { text, value: build(text) };
    return last.value;
  };
}

/** pnpm-lock.yaml's `importers:` section: each importer's directory → its block of lines (v5–v9). One linear pass. */
const pnpmImporters = lastOf((text: string): Map<string, string> => {
  const blocks = new Map<string, string>();
  const lines = text.split('\n');
  let i = lines.findIndex((line) => /^importers:\s*$/.test(line));
  if (i < 0) return blocks;
  let dir: string | undefined;
  let body: string[] = [];
  const close = (): void => {
    if (dir !== undefined && !blocks.has(dir)) blocks.set(dir, body.join('\n'));
  };
  for (i++; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    if (!line.startsWith(' ')) break; // the next top-level key
    const header = /^ {2}(?:'([^']*)'|"([^"]*)"|([^\s'"][^:]*)):\s*$/.exec(line);
    if (header) {
      close();
      dir = header[1] ?? header[2] ?? header[3]!;
      body = [];
    } else body.push(line);
  }
  close();
  return blocks;
});

/** npm semver: equal to an exact pin/** npm semver: equal to an exact pin, inside a range. A version that is not semver satisfies nothing. */
export function semverAllows(pin: VersionPin, version: string): boolean {
  if (!semverValid(version)) return false;
  if (pin.exact) return semverValid(pin.spec) !== null && semverCompare(pin.spec, version) === 0;
  return semverSatisfies(version, pin.spec);
}

/** What an npm-installed formatter's PinReader gives for per-package pins (npmNestedPin). */
export function npmNestedReader(pinned: Pick<NpmPinned, 'formatter' | 'packageName'>): Pick<PinReader, 'nestedSourceFiles' | 'nestedMarkers' | 'readNested'> {
  const installed = `node_modules/${pinned.packageName}/package.json`;
  return { nestedSourceFiles: [installed], nestedMarkers: ['package.json'], readNested: (files, dir) => npmNestedPin(files, dir, pinned) };
}

/** The files an npm-installed formatter's pin is read from: its installed package.json and every lockfile. */
export function npmPinSourceFiles(packageName: string): string[] {
  return [`node_modules/${packageName}/package.json`, ...NPM_LOCKFILES];
}

const NPM_LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lock'];

/** The version a lockfile records for `name` (the root's own dependency where the lockfile says which). */
function lockedVersion(files: PinFiles, name: string, range?: string): { version: string; source: string } | undefined {
  for (const file of ['package-lock.json', 'npm-shrinkwrap.json']) {
    const version = npmLockVersion(files[file], name);
    if (version) return { version, source: file };
  }
  const scanners: Array<[string, (text: string, name: string, range?: string) => string | undefined]> = [
    ['pnpm-lock.yaml', pnpmLockVersion],
    ['yarn.lock', yarnLockVersion],
    ['bun.lock', bunLockVersion],
  ];
  for (const [file, scan] of scanners) {
    const text = files[file];
    if (typeof text !== 'string') continue;
    const version = semverValid(scan(text, name, range) ?? '');
    if (version) return { version, source: file };
  }
  return undefined;
}

function npmLockVersion(text: string | null | undefined, name: string): string | undefined {
  const lock = parseJson(text);
  if (!isRecord(lock)) return undefined;
  const fromPackages = isRecord(lock.packages) ? lock.packages[`node_modules/${name}`] : undefined;
  const fromDependencies = isRecord(lock.dependencies) ? lock.dependencies[name] : undefined;
  for (const entry of [fromPackages, fromDependencies]) {
    if (isRecord(entry) && typeof entry.version === 'string' && semverValid(entry.version)) return semverValid(entry.version)!;
  }
  return undefined;
}

/**
 * pnpm-lock.yaml (v5–v9): the root importer's entry `name:` with `version: 3.3.3` (or `3.3.3(peer@x)`)
 * in the lines indented below it, or the v5 shorthand `name: 3.3.3`.
 */
function pnpmLockVersion(text: string, name: string): string | undefined {
  const lines = text.split('\n');
  const key = new RegExp(`^(\\s+)['"]?${escapeRegExp(name)}['"]?:\\s*(.*)$`);
  for (let i = 0; i < lines.length; i++) {
    const match = key.exec(lines[i]!);
    if (!match) continue;
    const indent = match[1]!.length;
    const inline = match[2]!.trim();
    if (inline !== '') {
      const version = leadingVersion(inline);
      if (version) return version;
      continue;
    }
    for (let j = i + 1; j < lines.length; j++) {
      const line = lines[j]!;
      if (line.trim() === '') continue;
      if (line.length - line.trimStart().length <= indent) break;
      const field = /^\s+version:\s*['"]?([^'"\s(]+)/.exec(line);
      if (field) return field[1];
    }
  }
  return undefined;
}

/**
 * yarn.lock, classic (`prettier@^3.3.3:` then `  version "3.3.3"`) and berry (`"prettier@npm:^3.3.3":`
 * then `  version: 3.3.3`). With several entries for the name, the one whose header names the
 * package.json range wins.
 */
function yarnLockVersion(text: string, name: string, range?: string): string | undefined {
  const entries = yarnEntries(text, name);
  return (range !== undefined ? entries.find((entry) => entry.ranges.includes(range)) : undefined)?.version ?? entries[0]?.version;
}

/** yarn.lock's entries for `name`: the ranges each header names, and its version. One linear pass per lockfile and name. */
const yarnEntriesOf = new Map<string, (text: string) => Array<{ ranges: string[]; version: string }>>();
function yarnEntries(text: string, name: string): Array<{ ranges: string[]; version: string }> {
  let scan = yarnEntriesOf.get(name);
  if (!scan) {
    scan = lastOf((lock: string) => scanYarnEntries(lock, name));
    yarnEntriesOf.set(name, scan);
  }
  return scan(text);
}

function scanYarnEntries(text: string, name: string): Array<{ ranges: string[]; version: string }> {
  const lines = text.split('\n');
  const entries: Array<{ ranges: string[]; version: string }> = [];
  for (let i = 0; i < lines.length; i++) {
    const header = lines[i]!;
    if (header.startsWith(' ') || header.startsWith('#') || !header.trimEnd().endsWith(':')) continue;
    const specs = header.trimEnd().slice(0, -1).split(',').map((s) => s.trim().replace(/^"|"$/g, ''));
    const mine = specs.filter((spec) => spec.startsWith(`${name}@`));
    if (mine.length === 0) continue;
    let version: string | undefined;
    for (let j = i + 1; j < lines.length && lines[j]!.startsWith(' '); j++) {
      const field = /^\s+version:?\s+"?([^"\s]+)"?/.exec(lines[j]!);
      if (field) {
        version = field[1];
        break;
      }
    }
    if (version) entries.push({ ranges: mine.map((spec) => spec.slice(name.length + 1).replace(/^npm:/, '')), version });
  }
  return entries;
}

/** bun.lock (JSONC): `"packages": { "prettier": ["prettier@3.3.3", …] }`. */
function bunLockVersion(text: string, name: string): string | undefined {
  const match = new RegExp(`"${escapeRegExp(name)}"\\s*:\\s*\\[\\s*"${escapeRegExp(name)}@([^"]+)"`).exec(text);
  return match?.[1];
}

export function parseJson(text: string | null | undefined): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return undefined;
  }
}

/** `3.3.3` from `3.3.3(typescript@5.0.0)` or `'3.3.3'`. */
function leadingVersion(text: string): string | undefined {
  const match = /^['"]?([0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.+-]*)/.exec(text);
  return match?.[1];
}

/**
 * A range from the repository is shown in receipts as written: printable ASCII on one line, short.
 * (semver accepts line breaks between `||` alternatives; a receipt line must not carry them.)
 */
export function isShowableSpec(spec: string): boolean {
  return spec.length <= 64 && /^[\x20-\x7e]*$/.test(spec);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
