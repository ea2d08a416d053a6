/**
 * Finding formatter binaries on the host without running anything, and certainly nothing from the
 * repo's context. rustfmt is resolved to the real toolchain binary (never the rustup proxy, which
 * obeys a repo's rust-toolchain file): RUSTUP_TOOLCHAIN or rustup's default toolchain from
 * `$RUSTUP_HOME/settings.toml`, else a distribution rustfmt such as Debian's /usr/bin/rustfmt.
 */
import { existsSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { isInside, safeRealpath } from '../fs/paths.js';
import { binaryNeeds, type BinaryNeeds } from './binary-deps.js';

interface ResolvedTool {
  /** Real path of the binary. */
  binary: string;
  /**
   * What to bind read-only when the binary lives outside /usr: the file, its shared libraries from
   * outside /usr, a script's virtualenv or npm package (binary-deps.ts). Never an install prefix.
   */
  readOnlyPaths?: string[];
  /** How it was found, for doctor(). */
  source: string;
}

export type Resolution = ResolvedTool | { missing: string };

export interface ResolveEnv {
  /** The embedding program's environment (trusted), default `process.env`. */
  env?: NodeJS.ProcessEnv;
  home?: string;
}

export function resolveRustfmt(options: ResolveEnv = {}): Resolution {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const rustupHome = env.RUSTUP_HOME ?? join(home, '.rustup');
  const tried: string[] = [];
  const toolchain = env.RUSTUP_TOOLCHAIN ?? defaultToolchain(rustupHome);
  if (toolchain) {
    const dir = toolchainDir(rustupHome, toolchain);
    const binary = dir && join(dir, 'bin', 'rustfmt');
    if (binary && isFile(binary) && !isRustupProxy(binary, home)) {
      const real = realpathSync(binary);
      return { binary: real, ...withPaths(bindFor(real)), source: `rustup toolchain ${basename(dir)} (${env.RUSTUP_TOOLCHAIN ? 'RUSTUP_TOOLCHAIN' : 'default'}), called directly` };
    }
    tried.push(`rustup toolchain ${toolchain} has no rustfmt`);
  }
  for (const candidate of ['/usr/bin/rustfmt', '/usr/local/bin/rustfmt']) {
    if (!isFile(candidate)) continue;
    if (isRustupProxy(candidate, home)) {
      tried.push(`${candidate} is the rustup proxy`);
      continue;
    }
    const real = realpathSync(candidate);
    return { binary: real, ...withPaths(bindFor(real)), source: candidate };
  }
  return { missing: `rustfmt is not installed (${[...tried, 'no rustup toolchain with rustfmt, no /usr/bin/rustfmt'].join('; ')})` };
}

/** A system tool (gofmt, black, clang-format) on the usual system paths. */
export function resolveSystemTool(name: string, options: ResolveEnv = {}): Resolution {
  const home = options.home ?? homedir();
  for (const dir of ['/usr/bin', '/usr/local/bin', '/bin']) {
    const candidate = join(dir, name);
    if (!isFile(candidate)) continue;
    const real = realpathSync(candidate);
    if (/^rustup/.test(basename(real))) continue;
    const bind = bindFor(real);
    if (bind.dirs.some((dir) => exposesHome(dir, home))) continue;
    return { binary: real, ...withPaths(bind), source: candidate };
  }
  return { missing: `${name} is not installed` };
}

/**
 * argv[0] of a user command → a real binary. A bare name is looked up on the embedding program's
 * PATH, skipping PATH entries inside the project (a repo's node_modules/.bin is repo code).
 * Binaries inside the project are refused unless `allowInRoot`.
 */
export function resolveUserBinary(argv0: string, root: string | undefined, options: ResolveEnv & { allowInRoot?: boolean } = {}): Resolution {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const realRoot = root && safeRealpath(root);
  let candidate: string | undefined;
  if (argv0.includes('/')) {
    candidate = isAbsolute(argv0) ? argv0 : root ? resolve(root, argv0) : undefined;
    if (!candidate || !isFile(candidate)) return { missing: `${argv0} does not exist` };
  } else {
    for (const dir of (env.PATH ?? '/usr/bin:/bin').split(':')) {
      if (!dir || !isAbsolute(dir)) continue;
      if (realRoot && isInside(safeRealpath(dir) ?? dir, realRoot)) continue;
      const path = join(dir, argv0);
      if (isFile(path)) {
        candidate = path;
        break;
      }
    }
    if (!candidate) return { missing: `${argv0} is not on PATH` };
  }
  const real = realpathSync(candidate);
  if (realRoot && isInside(real, realRoot) && !options.allowInRoot) {
    return { missing: `${argv0} is inside the project (${real}); formatbox does not run code from the repo` };
  }
  if (/^rustup/.test(basename(real)) || isRustupProxy(real, home)) {
    return { missing: `${argv0} is a rustup proxy, which reads the repo's rust-toolchain file; use the rustfmt built-in` };
  }
  const bind = realRoot && isInside(real, realRoot) ? { paths: [], dirs: [] } : bindFor(real);
  const exposing = bind.dirs.find((dir) => exposesHome(dir, home));
  if (exposing) {
    return { missing: `${argv0} needs ${exposing}; binding it would expose the home directory` };
  }
  return { binary: real, ...withPaths(bind), source: candidate === real ? real : `${candidate} → ${real}` };
}

/** What to bind for a binary: only the files (and virtualenv/package directories) it needs. */
function bindFor(real: string): BinaryNeeds {
  return binaryNeeds(real);
}

function withPaths(needs: BinaryNeeds): { readOnlyPaths?: string[] } {
  return needs.paths.length > 0 ? { readOnlyPaths: needs.paths } : {};
}

function exposesHome(dir: string, home: string): boolean {
  const realHome = safeRealpath(home) ?? home;
  return dir === '/' || isInside(realHome, dir);
}

function defaultToolchain(rustupHome: string): string | undefined {
  try {
    const text = readFileSync(join(rustupHome, 'settings.toml'), 'utf8');
    return /^\s*default_toolchain\s*=\s*"([^"]+)"/m.exec(text)?.[1];
  } catch {
    return undefined;
  }
}

/** `stable` → `toolchains/stable-x86_64-unknown-linux-gnu`; an exact name is taken as is. */
function toolchainDir(rustupHome: string, name: string): string | undefined {
  if (name.includes('/') || name.startsWith('.')) return undefined;
  const dir = join(rustupHome, 'toolchains');
  if (isDir(join(dir, name))) return join(dir, name);
  try {
    const match = readdirSync(dir).filter((entry) => entry.startsWith(`${name}-`)).sort()[0];
    return match ? join(dir, match) : undefined;
  } catch {
    return undefined;
  }
}

/** rustup installs its proxies as links (hard or symbolic) to the rustup binary itself. */
function isRustupProxy(path: string, home: string): boolean {
  try {
    const real = realpathSync(path);
    if (/^rustup(-init)?$/.test(basename(real))) return true;
    const stat = statSync(real);
    for (const rustup of [join(home, '.cargo', 'bin', 'rustup'), '/usr/bin/rustup', '/usr/local/bin/rustup']) {
      if (!existsSync(rustup)) continue;
      const other = statSync(rustup);
      if (other.ino === stat.ino && other.dev === stat.dev) return true;
    }
    return false;
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

