/**
 * Real projects for the project-toolchain tests: their packages installed from the npm registry at
 * test time with the user's own npm (install scripts off), cached per dependency set under the
 * user's cache directory so a rerun does not download again, and hard-linked into each temp project.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { tempProject } from './helpers.js';

const CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'formatbox-tests', 'npm');

/**
 * A directory holding `package.json`, `package-lock.json` and `node_modules` for `dependencies`,
 * installed once. Throws when npm cannot reach the registry; callers outside CI may skip then.
 */
export function installedPackages(name: string, dependencies: Record<string, string>): string {
  const manifest = JSON.stringify({ name, private: true, devDependencies: dependencies }, null, 2);
  const dir = join(CACHE, `${name}-${createHash('sha256').update(manifest).digest('hex').slice(0, 12)}`);
  if (existsSync(join(dir, 'node_modules'))) return dir;
  const staging = `${dir}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, 'package.json'), manifest);
  execFileSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: staging, stdio: 'pipe', timeout: 600_000 });
  try {
    renameSync(staging, dir);
  } catch {
    // Another run installed it meanwhile.
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

/** The packages, or undefined after skipping `t` when the registry is unreachable outside CI. */
export function packagesOrSkip(t: { skip: (message: string) => void }, name: string, dependencies: Record<string, string>): string | undefined {
  try {
    return installedPackages(name, dependencies);
  } catch (error) {
    if (process.env.CI) throw error;
    t.skip(`npm could not install from the registry here: ${(error as Error).message.split('\n')[0]}`);
    return undefined;
  }
}

/**
 * A temp project with `files`, the installed packages' manifest and lockfile, and (unless
 * `withModules` is false) their `node_modules` hard-linked in, as `npm install` leaves a checkout.
 */
export function projectWith(packages: string, files: Record<string, string>, withModules = true): { root: string; cleanup: () => void } {
  const project = tempProject(files);
  cpSync(join(packages, 'package.json'), join(project.root, 'package.json'));
  cpSync(join(packages, 'package-lock.json'), join(project.root, 'package-lock.json'));
  if (withModules) execFileSync('cp', ['-al', join(packages, 'node_modules'), join(project.root, 'node_modules')]);
  return project;
}

/** The project's own Prettier CLI, run in its root: what `prettier --write` leaves, and `--stdin-filepath` output. */
export function projectPrettier(root: string, args: readonly string[], stdin?: string): string {
  return execFileSync(process.execPath, [join(root, 'node_modules/prettier/bin/prettier.cjs'), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 180_000,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root },
    ...(stdin !== undefined ? { input: stdin } : {}),
  });
}
