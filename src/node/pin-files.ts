/**
 * Reads the files formatter versions are pinned in (lockfiles, the installed package.json of each
 * formatter under the root's node_modules: `PIN_SOURCE_FILES`) as data, for src/config/pins.ts.
 * Within the root only: a symlink is followed only when its target stays inside the root (pnpm links
 * node_modules/<pkg> into node_modules/.pnpm); regular files only, each bounded in size.
 */
import { join } from 'node:path';
import type { IgnoredItem, ProjectFiles } from '../core/types.js';
import { MAX_PIN_SOURCE_BYTES, PIN_SOURCE_FILES } from '../config/pins.js';
import { isInside, safeRealpath } from './fs/paths.js';
import { readSmallFile } from './walk.js';

export interface PinFiles {
  files: ProjectFiles;
  /** Pin files present but not read, with the reason (doctor lists them). */
  ignored: IgnoredItem[];
}

export function readPinFiles(rootReal: string): PinFiles {
  const out: PinFiles = { files: {}, ignored: [] };
  for (const file of PIN_SOURCE_FILES) {
    const real = safeRealpath(join(rootReal, ...file.split('/')));
    if (real === undefined) continue;
    if (!isInside(real, rootReal)) {
      out.ignored.push({ file, item: file, reason: 'a symlink that leaves the project root; its version is not read' });
      continue;
    }
    const text = readSmallFile(real, MAX_PIN_SOURCE_BYTES);
    if (typeof text === 'string') out.files[file] = text;
    else out.ignored.push({ file, item: file, reason: `not read for the pinned formatter version: ${text.refused}` });
  }
  return out;
}
