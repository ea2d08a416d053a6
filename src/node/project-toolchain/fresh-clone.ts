/**
 * A project whose Prettier setup is code but which has no `node_modules` (a fresh clone): the
 * toolchain its package-lock.json names, fetched once into the verified store and laid out as a
 * read-only tree (formatter-store/package-tree.ts), which the sandboxed worker mounts in place of
 * the project's own `node_modules`. The first format waits for the fetch; a failed fetch refuses the
 * file, saying why, and is tried again after a minute.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { AdapterRequest, AdapterResult, FormatterAdapter, FormatterInfo } from '../../core/types.js';
import { messageOf } from '../../core/errors.js';
import { PRETTIER_CONFIG_NAMES } from '../../formatters/prettier/config.js';
import { packageTree, toolchainSeeds, TREE_LIMITS, type PackageTree } from '../formatter-store/package-tree.js';

const MAX_CONFIG_BYTES = 1024 * 1024;
const RETRY_AFTER_MS = 60_000;

/** A root file's text: a regular file, never through a symlink, within `maxBytes`; undefined when absent. */
function readRootFile(root: string, name: string, maxBytes: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(join(root, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new Error(`${name} is a symbolic link`);
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new Error(`${name} is not a regular file`);
    if (stats.size > maxBytes) throw new Error(`${name} is over ${maxBytes} bytes`);
    const buffer = Buffer.alloc(stats.size);
    let read = 0;
    while (read < stats.size) {
      const got = readSync(fd, buffer, read, stats.size - read, read);
      if (got === 0) break;
      read += got;
    }
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Whether the project has a package-lock.json (asked per file: a stat, not a read; the fetch reads and checks it). */
export function hasPackageLock(root: string): boolean {
  return lstatSync(join(root, 'package-lock.json'), { throwIfNoEntry: false }) !== undefined;
}

/** The project's lockfile toolchain tree (fetched and laid out once). */
export async function lockedToolchain(root: string, env: NodeJS.ProcessEnv = process.env): Promise<PackageTree> {
  const lockText = readRootFile(root, 'package-lock.json', TREE_LIMITS.maxLockfileBytes);
  if (lockText === undefined) throw new Error('no package-lock.json');
  const packageText = readRootFile(root, 'package.json', MAX_CONFIG_BYTES);
  if (packageText === undefined) throw new Error('no package.json');
  let packageJson: unknown;
  try {
    packageJson = JSON.parse(packageText);
  } catch {
    throw new Error('package.json is not JSON');
  }
  if (typeof packageJson !== 'object' || packageJson === null || Array.isArray(packageJson)) throw new Error('package.json is not an object');
  const configTexts = PRETTIER_CONFIG_NAMES.flatMap((name) => readRootFile(root, name, MAX_CONFIG_BYTES) ?? []);
  const seeds = toolchainSeeds(packageJson as Parameters<typeof toolchainSeeds>[0], configTexts);
  return packageTree({ root, lockText, seeds, env });
}

/**
 * An adapter that fetches the lockfile's toolchain on first use, then formats through the
 * sandboxed adapter `withModules` makes for the tree's `node_modules`.
 */
export function freshCloneAdapter(root: string, withModules: (modulesDir: string) => FormatterAdapter, shape: FormatterAdapter, env: NodeJS.ProcessEnv = process.env): FormatterAdapter {
  let pending: Promise<FormatterAdapter> | undefined;
  const inner = (): Promise<FormatterAdapter> => {
    if (!pending) {
      const started = lockedToolchain(root, env).then((tree) => withModules(join(tree.dir, 'node_modules')));
      pending = started;
      started.catch(() => setTimeout(() => {
        if (pending === started) pending = undefined;
      }, RETRY_AFTER_MS).unref());
    }
    return pending;
  };
  const { info: _info, format: _format, preload: _preload, dispose: _dispose, ...fields } = shape;
  return {
    ...fields,
    async info(): Promise<FormatterInfo> {
      try {
        return await (await inner()).info();
      } catch {
        return { name: 'prettier', version: 'unknown', via: 'sandbox' };
      }
    },
    async format(request: AdapterRequest): Promise<AdapterResult> {
      let adapter: FormatterAdapter;
      try {
        adapter = await inner();
      } catch (error) {
        return { kind: 'refused', reason: `the project has no node_modules, and its lockfile's toolchain could not be fetched: ${messageOf(error)}` };
      }
      return adapter.format(request);
    },
  };
}
