/**
 * Reads the files formatter versions are pinned in (lockfiles, the installed package.json of each
 * formatter under the root's node_modules: `PIN_SOURCE_FILES`) as data, for src/config/pins.ts; and
 * in each package directory below the root (one holding a discovered package.json) the installed
 * formatters' package.json (`NESTED_PIN_SOURCE_FILES`), for per-package pins.
 * Within the root only: a symlink is followed only when its target stays inside the root (pnpm links
 * node_modules/<pkg> into node_modules/.pnpm); regular files only, each bounded in size; at most
 * MAX_PIN_PACKAGE_DIRS package directories, shallowest first (the rest are named in `ignored`).
 */
import { join } from 'node:path';
import type { IgnoredItem, ProjectFiles } from '../core/types.js';
import { MAX_PIN_PACKAGE_DIRS, MAX_PIN_SOURCE_BYTES, NESTED_PIN_SOURCE_FILES, PIN_SOURCE_FILES, packageDirs } from '../config/pins.js';
import { isInside, safeRealpath } from './fs/paths.js';
import { readSmallFile } from './walk.js';

/** An installed package.json is small; one in a package directory is read up to this many bytes. */
const MAX_NESTED_PIN_SOURCE_BYTES = 256 * 1024;
const PACKAGE_MANIFEST: ReadonlySet<string> = new Set(['package.json']);

export interface PinFiles {
  files: ProjectFiles;
  /** Pin files present but not read, with the reason (doctor lists them). */
  ignored: IgnoredItem[];
  /** Every per-package pin file looked for, present or not (the config watch notices one appearing). */
  nestedCandidates: string[];
}

/** `discovered`: the project's config files as discovery read them (its package.json files say where the packages are). */
export function readPinFiles(rootReal: string, discovered: ProjectFiles = {}): PinFiles {
  const out: PinFiles = { files: {}, ignored: [], nestedCandidates: [] };
  for (const file of PIN_SOURCE_FILES) readPinFile(rootReal, file, MAX_PIN_SOURCE_BYTES, out);
  const dirs = packageDirs(discovered, PACKAGE_MANIFEST);
  for (const dir of dirs.slice(0, MAX_PIN_PACKAGE_DIRS)) {
    for (const name of NESTED_PIN_SOURCE_FILES) {
      const file = `${dir}/${name}`;
      out.nestedCandidates.push(file);
      readPinFile(rootReal, file, MAX_NESTED_PIN_SOURCE_BYTES, out);
    }
  }
  if (dirs.length > MAX_PIN_PACKAGE_DIRS) {
    out.ignored.push({ file: '.', item: 'package versions', reason: `not read: ${dirs.length} package directories hold a package.json; the installed formatter versions of the first ${MAX_PIN_PACKAGE_DIRS} (shallowest first) are read, and files in the others get the version pinned above them` });
  }
  return out;
}

function readPinFile(rootReal: string, file: string, maxBytes: number, out: PinFiles): void {
  const real = safeRealpath(join(rootReal, ...file.split('/')));
  if (real === undefined) return;
  if (!isInside(real, rootReal)) {
    out.ignored.push({ file, item: file, reason: 'a symlink that leaves the project root; its version is not read' });
    return;
  }
  const text = readSmallFile(real, maxBytes);
  if (typeof text === 'string') out.files[file] = text;
  else out.ignored.push({ file, item: file, reason: `not read for the pinned formatter version: ${text.refused}` });
}
