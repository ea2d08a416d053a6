/**
 * Temp files: `.<name>.formatbox-<pid>-<nonce>-<mac>.tmp`, next to the file they replace. The mac
 * is an HMAC of the rest of the name under a per-user key that no repository can read
 * (temp-key.ts): a file is swept only when it carries a valid mac, so a repo file named like a
 * temp file is never deleted.
 */
import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { openPinnedDir, type PinnedDir } from '../pinned-dir.js';
import { processAlive } from '../process-alive.js';
import { macMatches, tempMac } from '../temp-key.js';

const TEMP_NAME = /^\..*\.formatbox-(\d+)-[0-9a-f]{12}-([0-9a-f]{16})\.tmp$/;

/** A fresh temp name for the file `name` (base name), owned by process `pid`. */
export function tempNameFor(name: string, pid = process.pid): string {
  const stem = `.${name.slice(0, 180)}.formatbox-${pid}-${randomBytes(6).toString('hex')}`;
  return `${stem}-${tempMac(stem)}.tmp`;
}

export function tempPathFor(abs: string, pid = process.pid): string {
  return join(dirname(abs), tempNameFor(basename(abs), pid));
}

/** True for a name formatbox made (valid mac), whatever process made it. */
function isTempName(name: string): boolean {
  const match = TEMP_NAME.exec(name);
  return match !== null && macMatches(name.slice(0, name.length - '-'.length - 16 - '.tmp'.length), match[2]!);
}

/**
 * Removes temp files left by a process that died mid-write (SIGKILL, power loss). A temp file is
 * stale when formatbox made it (its mac checks out) and its process is gone. This process's own
 * temp files are never touched (a write may be in flight). Returns the removed paths.
 */
export function sweepTemps(dir: string): string[] {
  const removed: string[] = [];
  let pinned: PinnedDir;
  try {
    pinned = openPinnedDir(dir, dir);
  } catch {
    return removed;
  }
  try {
    let names: string[];
    try {
      names = readdirSync(pinned.at(''));
    } catch {
      return removed;
    }
    for (const name of names) {
      const match = TEMP_NAME.exec(name);
      if (!match || !isTempName(name)) continue;
      const pid = Number(match[1]);
      if (pid === process.pid || processAlive(pid)) continue;
      try {
        const stats = lstatSync(pinned.at(name));
        if (stats.isFile() && stats.nlink === 1) {
          unlinkSync(pinned.at(name));
          removed.push(join(dir, name));
        }
      } catch {
        // Another sweeper got there first.
      }
    }
  } finally {
    pinned.close();
  }
  return removed;
}

/**
 * Sweeps the root and its subdirectories (skipping `.git` and `node_modules`, never following a
 * symlink), visiting at most `maxDirs` directories so a huge tree does not stall startup.
 * Directories beyond the bound are swept when the runtime first writes into them. `visited`, when
 * given, receives every directory swept, so the caller need not sweep them again.
 */
export function sweepTree(rootReal: string, maxDirs = 2000, visited?: Set<string>): string[] {
  const removed: string[] = [];
  const queue = [rootReal];
  let count = 0;
  while (queue.length > 0 && count < maxDirs) {
    const dir = queue.shift()!;
    count++;
    removed.push(...sweepTemps(dir));
    visited?.add(dir);
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.isDirectory() && entry.name !== '.git' && entry.name !== 'node_modules') queue.push(join(dir, entry.name));
    }
  }
  return removed;
}
