/**
 * The formatter version each project pins, read from the project's own files as data (never run).
 * Each formatter's folder says where its pins are (`pin` in its declaration: prettier/pin.ts,
 * biome/pin.ts, ruff/pin.ts, gofmt/pin.ts; npm packages share config/npm-pins.ts). Read at the
 * project root, and in each package below it that declares its own (a workspace's package.json and
 * its install, a nested Ruff config's `required-version`): a file gets the nearest one on the way
 * from its directory up to the root, as the formatter's own resolution finds it (`pinsForPath`).
 */
import { MODULES } from '../formatters/derived.js';
import { dirOf } from './paths.js';

export interface VersionPin {
  /** The pinned formatter's id (its folder's name). */
  formatter: string;
  /** An exact version (`3.3.3`), or a range: npm semver for Prettier and Biome, PEP 440 for Ruff. */
  spec: string;
  exact: boolean;
  /** Where it was read, as a reader would look for it (`package-lock.json`, `biome.json $schema`). */
  source: string;
  /** Only a config file's presence says which major version is meant (`.prettierrc`: any Prettier 3). */
  implied?: boolean;
  /** gofmt: the `go` line is a language version, not a formatter pin; shown by doctor, never in receipts. */
  informational?: boolean;
  /** The sha256 the project gives for the build's file (dprint's `<url>@<sha256>`): a fetched build must match it. */
  sha256?: string;
  /**
   * The formatter's own CLI refuses the files this pin applies to (a nested Ruff config requires
   * another version than the one the project locks), in words: they are refused, saying so.
   */
  refusal?: string;
}

/** Project-relative path → text (null: present, not read). */
export type PinFiles = Readonly<Record<string, string | null | undefined>>;

/** A formatter's part of its declaration that says where a project pins its version. */
export interface PinReader {
  /** Project-relative files its pin is read from, besides the config files discovery already reads. */
  readonly sourceFiles: readonly string[];
  /** The formatters its pins are for (the name their adapters report) and the adapter of each, when not just its folder's id. */
  readonly adapters?: Readonly<Record<string, string>>;
  /** Its pin, or one per formatter it covers (dprint: one per plugin). */
  read(files: PinFiles): VersionPin | readonly VersionPin[] | undefined;
  /** Whether `version` is one the pin allows. A version formatbox cannot read (`unknown`) satisfies nothing. */
  allows(pin: VersionPin, version: string): boolean;
  /** The build of a pinned version a host gives the engine (see docs/versions.md); absent: none is needed. */
  buildNeeded?(version: string): string;
  /**
   * Files named relative to a package directory below the root that its pin is read from, besides
   * the config files discovery reads there (`node_modules/prettier/package.json`).
   */
  readonly nestedSourceFiles?: readonly string[];
  /** File names whose presence in a directory below the root makes it one that may pin its own version. */
  readonly nestedMarkers?: readonly string[];
  /**
   * The pin directory `dir` (project-relative, not the root) gives the files under it, or undefined
   * when it gives none of its own and the pin above it applies. Absent: the formatter is pinned at
   * the root only.
   */
  readNested?(files: PinFiles, dir: string): VersionPin | undefined;
  /**
   * A nested pin is a requirement the version pinned above must meet, not a version of its own
   * (Ruff's `required-version`: Ruff checks the nearest config's, and exits when it is not met). It
   * gives the version only where nothing above locks one (`locks`: whether a pin decides what runs).
   */
  readonly nestedRequires?: { locks(pin: VersionPin): boolean };
}

const PINNED = MODULES.flatMap((module) => (module.pin ? [{ id: module.id, pin: module.pin }] : []));

/** Project-relative files the pins are read from, besides the config files discovery already reads. */
export const PIN_SOURCE_FILES: readonly string[] = [...new Set(PINNED.flatMap(({ pin }) => pin.sourceFiles))];

/** Lockfiles may be large; each is read up to this many bytes (a bigger one is not read, and doctor says so). */
export const MAX_PIN_SOURCE_BYTES = 32 * 1024 * 1024;

/** Every pin found at the project root, one per formatter. */
export function detectPins(files: PinFiles): VersionPin[] {
  return PINNED.flatMap(({ pin }) => pin.read(files) ?? []);
}

/** Files, relative to a package directory, that per-package pins are read from (pin-files.ts reads them in each package). */
export const NESTED_PIN_SOURCE_FILES: readonly string[] = [...new Set(PINNED.flatMap(({ pin }) => pin.nestedSourceFiles ?? []))];

/** Package directories below the root whose own pins are read, at most; the rest get the pins above them, and doctor says so. */
export const MAX_PIN_PACKAGE_DIRS = 1000;

/** A pin that applies to the files under `dir` (`''`: the root). */
export interface ScopedPin {
  dir: string;
  pin: VersionPin;
}

/**
 * The pins of a project: the root's, and those of the package directories below it, each read when
 * first asked for (a tree of many packages costs only the directories of the files formatted).
 */
export interface ProjectPins {
  readonly root: readonly VersionPin[];
  /** Per formatter, the pin of the nearest directory from `path`'s up to the root that gives one. */
  forPath(path: string): readonly VersionPin[];
  /** Pins of directories below the root that differ from the root's (for doctor), at most `max`. */
  nested(max: number): ScopedPin[];
  /** Package directories left unread beyond MAX_PIN_PACKAGE_DIRS (their files get the pins above them). */
  readonly unreadDirs: number;
}

const NESTED_READERS = PINNED.filter(({ pin }) => pin.readNested);
const NESTED_MARKERS = new Set(NESTED_READERS.flatMap(({ pin }) => pin.nestedMarkers ?? []));

/** The root's pins and, lazily, every package directory's (`files`: project-relative, config files and pin files together). */
export function projectPins(files: PinFiles): ProjectPins {
  const root = detectPins(files);
  const candidates = packageDirs(files, NESTED_MARKERS);
  const kept = new Set(candidates.slice(0, MAX_PIN_PACKAGE_DIRS));
  const ownPins = new Map<string, VersionPin[]>();
  const byDir = new Map<string, readonly VersionPin[]>();

  function ownPinsOf(dir: string): VersionPin[] {
    let pins = ownPins.get(dir);
    if (!pins) {
      pins = NESTED_READERS.flatMap(({ pin }) => pin.readNested!(files, dir) ?? []);
      ownPins.set(dir, pins);
    }
    return pins;
  }

  /** Directory → the pins that apply there: its own, over its parent's (the nearest wins per formatter). */
  function pinsAt(dir: string): readonly VersionPin[] {
    if (dir === '') return root;
    const known = byDir.get(dir);
    if (known) return known;
    const above = pinsAt(dirOf(dir));
    const own = kept.has(dir) ? ownPinsOf(dir) : [];
    let pins = above;
    for (const pin of own) {
      const inherited = pins.find((p) => p.formatter === pin.formatter);
      const requires = readerOf(pin)?.nestedRequires;
      let applies: VersionPin = pin;
      if (inherited && inherited.exact && (requires ? requires.locks(inherited) : !pin.exact)) {
        // The version above is what runs there: a requirement it meets keeps it (as a range it meets
        // does), and one it does not is what the formatter's own CLI refuses.
        if (pinAllows(pin, inherited.spec)) continue;
        if (!requires) applies = pin;
        else applies = { ...inherited, refusal: `${pin.source} is ${pin.spec}, and the project pins ${inherited.spec} (${inherited.source}): ${pin.formatter} refuses to run on these files` };
      }
      pins = [...pins.filter((p) => p.formatter !== pin.formatter), applies];
    }
    if (byDir.size >= 4 * MAX_PIN_PACKAGE_DIRS) byDir.clear(); // bounded: one entry per directory of a formatted file
    byDir.set(dir, pins);
    return pins;
  }

  return {
    root,
    forPath: (path) => pinsAt(dirOf(path)),
    nested(max) {
      const out: ScopedPin[] = [];
      for (const dir of kept) {
        for (const pin of pinsAt(dir)) {
          if (out.length >= max) return out;
          const parent = pinsAt(dirOf(dir)).find((p) => p.formatter === pin.formatter);
          if (pin !== parent) out.push({ dir, pin });
        }
      }
      return out;
    },
    unreadDirs: candidates.length - kept.size,
  };
}

/** Directories below the root (outside node_modules) holding a file named one of `markers`, shallowest first. */
export function packageDirs(files: PinFiles, markers: ReadonlySet<string>): string[] {
  const dirs = new Set<string>();
  for (const file of Object.keys(files)) {
    const slash = file.lastIndexOf('/');
    if (slash < 0 || !markers.has(file.slice(slash + 1))) continue;
    const dir = file.slice(0, slash);
    if (!dir.split('/').includes('node_modules')) dirs.add(dir);
  }
  return [...dirs].sort((a, b) => depthOf(a) - depthOf(b) || (a < b ? -1 : a > b ? 1 : 0));
}

function depthOf(dir: string): number {
  let depth = 0;
  for (let i = 0; i < dir.length; i++) if (dir.charCodeAt(i) === 47) depth++;
  return depth;
}

/** The pin's spec as a user reads it in a receipt: `3.3.3`, or `^3.3.0 (package.json)`. */
export function describePin(pin: VersionPin): string {
  return pin.exact ? pin.spec : `${pin.spec} (${pin.source})`;
}

/** Whether `version` is one the pin allows (each formatter's rule: npm semver, PEP 440, …). */
export function pinAllows(pin: VersionPin, version: string): boolean {
  return readerOf(pin)?.allows(pin, version) ?? false;
}

/** The build of the pinned version a host would give the engine, when one can be given. */
export function pinBuildNeeded(pin: VersionPin): string | undefined {
  return readerOf(pin)?.buildNeeded?.(pin.exact ? pin.spec : `a version in ${pin.spec}`);
}

function readerOf(pin: VersionPin): PinReader | undefined {
  return PINNED.find(({ id, pin: reader }) => (reader.adapters ? Object.hasOwn(reader.adapters, pin.formatter) : id === pin.formatter))?.pin;
}

/** The adapter that formats what `pin` pins (`dprint:markdown` for `dprint-plugin-markdown`). */
export function pinAdapterName(pin: VersionPin): string {
  return readerOf(pin)?.adapters?.[pin.formatter] ?? pin.formatter;
}
