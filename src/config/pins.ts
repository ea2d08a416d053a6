/**
 * The formatter version each project pins, read from the project's own files as data (never run).
 * Each formatter's folder says where its pins are (`pin` in its declaration: prettier/pin.ts,
 * biome/pin.ts, ruff/pin.ts, gofmt/pin.ts; npm packages share config/npm-pins.ts). Read at the
 * project root: one version per formatter per root, as one `npm install` gives one.
 */
import { MODULES } from '../formatters/derived.js';

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
