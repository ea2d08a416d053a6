/**
 * Formatters at the version a project pins, from the per-user verified store (formatter-store/):
 * resolves the pin to an exact version (a range as npm resolves it: the `latest` tag when it is in
 * range, else the highest published version in range), fetches it in the background on first use,
 * and gives an adapter once it is stored and verified. An edit waits at most `waitMs` for a fetch;
 * after that it is formatted with the shipped version and its receipt says so.
 * One instance may serve many runtimes (the daemon): one store, one adapter per version.
 */
import semverMaxSatisfying from 'semver/ranges/max-satisfying.js';
import semverSatisfies from 'semver/functions/satisfies.js';
import semverMajor from 'semver/functions/major.js';
import type { FormatterAdapter } from '../core/types.js';
import type { PinnedAnswer } from '../engine/engine.js';
import type { VersionPin } from '../config/pins.js';
import { messageOf } from '../core/errors.js';
import { createFormatterStore, type FormatterStore } from './formatter-store/store.js';
import { createWorkerPool, type WorkerPool } from './worker-pool.js';
import { pinnedPrettierModuleUrl } from './pinned-prettier.js';
import { pinnedBiomeModuleUrl } from './pinned-biome.js';
import { pinnedRuffModuleUrl } from './pinned-ruff.js';
import { pinnedDprintModuleUrl } from './pinned-dprint.js';
import { DPRINT_PLUGINS } from '../formatters/dprint/config.js';
import { checkNativeBiome, nativeBiomeAdapter, nativeBiomePackage, type NativeBiomeBuild } from './pinned-biome-native.js';
import { detectSandbox } from './sandbox/index.js';
import type { Sandbox } from '../core/sandbox.js';
import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { readBoundedText } from './fs/read-bounded.js';
import { createHash } from 'node:crypto';

interface PinnedFormattersOptions {
  store?: FormatterStore;
  /** Per formatter call, in the pinned version's worker. */
  timeoutMs: number;
  /** How long an edit waits for a fetch already under way before the shipped version formats it. Default 2000. */
  waitMs?: number;
  /** A fetch that failed is tried again after this long. Default 60 s. */
  retryAfterMs?: number;
  /** The OS sandbox native builds run in (default: detectSandbox()). */
  sandbox?: () => Sandbox;
}

export interface PinnedFormatters {
  /**
   * The pinned version's adapter, or why there is none (yet); starts its fetch when needed.
   * `trusted` (the user's explicit choice): a Prettier the project itself installed at the pinned
   * version (`<root>/node_modules/prettier`) runs instead of a fetched one, as prettierd does.
   */
  adapterFor(formatter: string, pin: VersionPin, options?: { waitMs?: number; root?: string; trusted?: boolean }): Promise<PinnedAnswer>;
  readonly store: FormatterStore;
  close(): Promise<void>;
}

/**
 * What each pinnable formatter is fetched as: the package a pin's version is resolved against (what the
 * project installs), and the build formatbox runs for an exact version, or why it cannot.
 */
interface Build {
  /** The package the project itself installs (a range is resolved against its versions). */
  projectPackage: string;
  /** The build formatbox fetches and runs for `version`. */
  buildFor(version: string, store: FormatterStore, sandbox: () => Sandbox): Promise<{ packageName: string; native?: true } | { unavailable: string }>;
  /** The build's file a pin's `sha256` names (dprint: the plugin's wasm). */
  checksummedFile?: string;
}

const BUILDS: Readonly<Record<string, Build>> = {
  ...Object.fromEntries(DPRINT_PLUGINS.map((section) => [`dprint-plugin-${section}`, dprintBuild(section)])),
  prettier: {
    projectPackage: 'prettier',
    // Prettier 2 from 2.2 on ships an ES module build (esm/) that runs as the standalone 3 does.
    buildFor: async (v) => (semverMajor(v) === 3 || semverSatisfies(v, '>=2.2.0 <3') ? { packageName: 'prettier' } : { unavailable: 'formatbox runs Prettier 3 and Prettier 2.2 or later only' }),
  },
  biome: {
    projectPackage: '@biomejs/biome',
    // The nodejs wasm build of the same version, where the registry has one (it stops at some 2.x).
    // The nodejs wasm build of the same version where the registry has one (it stops at some 2.x),
    // else the official native CLI of that version, in the OS sandbox only.
    async buildFor(v, store, sandbox) {
      const { versions } = await store.published('@biomejs/wasm-nodejs');
      if (versions.includes(v)) return { packageName: '@biomejs/wasm-nodejs' };
      const noWasm = `Biome ${v} has no wasm build on the registry (@biomejs/wasm-nodejs stops at ${versions.filter((x) => !x.includes('-')).sort(compareVersions).pop() ?? 'none'})`;
      const native = nativeBiomePackage();
      if (!native) return { unavailable: `${noWasm}, and formatbox has no native build for ${process.platform}-${process.arch}` };
      const box = sandbox();
      if (box.unavailable) return { unavailable: `${noWasm}, and its native CLI runs only in an OS sandbox: ${box.unavailable}` };
      if (!(await store.published(native)).versions.includes(v)) return { unavailable: `${noWasm}, nor a native ${native} build` };
      return { packageName: native, native: true };
    },
  },
  ruff: {
    // Ruff's pins are PyPI versions; its wasm builds carry the same numbers on npm.
    projectPackage: '@astral-sh/ruff-wasm-nodejs',
    async buildFor(v, store) {
      const { versions } = await store.published('@astral-sh/ruff-wasm-nodejs');
      if (versions.includes(v)) return { packageName: '@astral-sh/ruff-wasm-nodejs' };
      return { unavailable: `Ruff ${v} has no wasm build on the registry (@astral-sh/ruff-wasm-nodejs has ${versions.filter((x) => !x.includes('-')).sort(compareVersions).slice(-1)[0] ?? 'none'} as its newest)` };
    },
  },
};

/**
 * dprint plugins: dprint.json names a plugins.dprint.dev URL; the same version is published on npm as
 * `@dprint/<plugin>` (its `plugin.wasm`), which is what the store can fetch.
 */
function dprintBuild(section: string): Build {
  return {
    projectPackage: `@dprint/${section}`,
    checksummedFile: 'plugin.wasm',
    async buildFor(v, store) {
      const { versions } = await store.published(`@dprint/${section}`);
      if (versions.includes(v)) return { packageName: `@dprint/${section}` };
      return { unavailable: `dprint-plugin-${section} ${v} is not published on the npm registry as @dprint/${section}` };
    },
  };
}

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

export function createPinnedFormatters(options: PinnedFormattersOptions): PinnedFormatters {
  const store = options.store ?? createFormatterStore();
  const waitMs = options.waitMs ?? 2000;
  const retryAfterMs = options.retryAfterMs ?? 60_000;
  const pools = new Map<string, { pool: WorkerPool; adapter: Promise<FormatterAdapter> }>();
  const fetches = new Map<string, Promise<unknown>>();
  const failedAt = new Map<string, { at: number; reason: string }>();
  const resolved = new Map<string, Promise<string>>();
  let sandboxFound: Sandbox | undefined;
  const sandbox = (): Sandbox => (sandboxFound ??= (options.sandbox ?? detectSandbox)());
  /** Per native build: its own answer to `--version` (undefined when it is the version it should be). */
  const nativeChecks = new Map<string, Promise<string | undefined>>();
  /** One native adapter per build and root (the engine keys its info on the adapter). */
  const nativeAdapters = new Map<string, FormatterAdapter>();

  /** The exact version for a pin: itself, or a range resolved against the registry as npm would. */
  function exactVersion(packageName: string, pin: VersionPin): Promise<string> {
    if (pin.exact) return Promise.resolve(pin.spec);
    // A PEP 440 specifier is not an npm range: only exact Ruff pins are fetched.
    if (pin.formatter === 'ruff') return Promise.reject(new Error(`${pin.spec} is a range; formatbox fetches an exact Ruff version only`));
    const key = `${packageName}@${pin.spec}`;
    let pending = resolved.get(key);
    if (!pending) {
      pending = store.published(packageName).then(({ versions, latest }) => {
        if (latest && semverSatisfies(latest, pin.spec)) return latest;
        const best = semverMaxSatisfying(versions, pin.spec);
        if (!best) throw new Error(`no published ${packageName} version is in ${pin.spec}`);
        return best;
      });
      resolved.set(key, pending);
      pending.catch(() => resolved.delete(key));
    }
    return pending;
  }

  function adapterOf(formatter: string, packageName: string, version: string, dir: string): Promise<FormatterAdapter> {
    const key = `${packageName}@${version}`;
    let entry = pools.get(key);
    if (!entry) {
      const pool = createWorkerPool({ timeoutMs: options.timeoutMs, builtins: false, modules: [moduleUrlFor(formatter, dir, version)], size: 1 });
      const adapter = pool.adapters().then((adapters) => {
        const found = adapters.find((a) => a.name === formatter);
        if (!found) throw new Error(`the ${key} worker has no ${formatter} adapter`);
        return found;
      });
      entry = { pool, adapter };
      pools.set(key, entry);
    }
    return entry.adapter;
  }

  /** Builds whose file matched a pin's sha256, by build and checksum (hashed once). */
  const checksumsMatched = new Set<string>();
  function checksumMismatch(build: Build, dir: string, sha256: string, matchKey: string): string | undefined {
    if (checksumsMatched.has(matchKey)) return undefined;
    if (!build.checksummedFile) return `the project gives a checksum, and formatbox cannot check one for this build`;
    const actual = createHash('sha256').update(readFileSync(join(dir, build.checksummedFile))).digest('hex');
    if (actual !== sha256) return `the registry's ${build.checksummedFile} of this version has sha256 ${actual.slice(0, 12)}…, not the ${sha256.slice(0, 12)}… the project's config names`;
    checksumsMatched.add(matchKey);
    return undefined;
  }

  /** A pin with no build to run is answered from memory until `retryAfterMs` passed (no registry call per edit). */
  const unavailableSince = new Map<string, { at: number; answer: PinnedAnswer }>();

  return {
    store,
    async adapterFor(formatter, pin, call = {}) {
      const pinKey = `${formatter}\0${pin.spec}`;
      const known = unavailableSince.get(pinKey);
      if (known && Date.now() - known.at < retryAfterMs) return known.answer;
      const answer = await answerFor(formatter, pin, call);
      if ('unavailable' in answer) unavailableSince.set(pinKey, { at: Date.now(), answer });
      else unavailableSince.delete(pinKey);
      return answer;
    },
    async close() {
      await Promise.all([...pools.values()].map((entry) => entry.pool.close()));
      pools.clear();
    },
  };

  async function answerFor(formatter: string, pin: VersionPin, call: { waitMs?: number; root?: string; trusted?: boolean }): Promise<PinnedAnswer> {
    const build = BUILDS[formatter];
    if (!build) return { unavailable: `formatbox cannot fetch ${formatter} builds yet` };
    if (call.trusted && call.root && formatter === 'prettier' && pin.exact) {
      // The copy the pin was read from: the root's, or a workspace package's own install.
      const installed = pin.source.endsWith('node_modules/prettier/package.json') ? pin.source.slice(0, -'/package.json'.length) : 'node_modules/prettier';
      const own = projectPrettier(call.root, installed, pin.spec);
      if (own) return { adapter: await adapterOf(formatter, `project:${own}`, pin.spec, own), version: pin.spec };
    }
    let version: string;
    try {
      version = await withTimeout(exactVersion(build.projectPackage, pin), call.waitMs ?? waitMs, 'resolving the range on the registry');
    } catch (error) {
      return { unavailable: `${pin.spec} could not be resolved to a version: ${messageOf(error)}` };
    }
    let chosen: { packageName: string } | { unavailable: string };
    try {
      chosen = await withTimeout(build.buildFor(version, store, sandbox), call.waitMs ?? waitMs, 'asking the registry for the build');
    } catch (error) {
      return { unavailable: `the registry could not say which build of ${formatter} ${version} to run: ${messageOf(error)}`, version };
    }
    if ('unavailable' in chosen) return { ...chosen, version };
    const { packageName } = chosen;
    const key = `${packageName}@${version}`;
    // The per-repository budget: a repository pinning many versions gets the first few, then the shipped one.
    const overBudget = call.root ? store.admit(call.root, packageName, version) : undefined;
    if (overBudget) return { unavailable: overBudget, version };
    let stored;
    try {
      stored = store.lookup(packageName, version);
    } catch (error) {
      return { unavailable: messageOf(error) };
    }
    if (!stored) {
      const failed = failedAt.get(key);
      if (failed && Date.now() - failed.at < retryAfterMs) return { unavailable: failed.reason, version };
      let pending = fetches.get(key);
      if (!pending) {
        pending = store.fetch(packageName, version).then(
          () => failedAt.delete(key),
          (error: unknown) => failedAt.set(key, { at: Date.now(), reason: messageOf(error) }),
        ).finally(() => fetches.delete(key));
        fetches.set(key, pending);
      }
      try {
        await withTimeout(pending, call.waitMs ?? waitMs, 'fetching');
      } catch {
        return { waiting: `${formatter} ${version} is being fetched`, version };
      }
      const failure = failedAt.get(key);
      if (failure) return { unavailable: failure.reason, version };
      stored = store.lookup(packageName, version);
      if (!stored) return { unavailable: `${key} did not verify after its fetch`, version };
    }
    if (pin.sha256) {
      const wrong = checksumMismatch(build, stored.dir, pin.sha256, `${key}\0${pin.sha256}`);
      if (wrong) return { unavailable: wrong, version };
    }
    if ('native' in chosen) {
      const binary: NativeBiomeBuild = { binary: join(stored.dir, 'biome'), packageDir: stored.dir, version };
      let check = nativeChecks.get(key);
      if (!check) nativeChecks.set(key, (check = checkNativeBiome(sandbox(), binary)));
      const wrong = await check;
      if (wrong) return { unavailable: wrong, version };
      if (!call.root) return { unavailable: `the native Biome ${version} needs a project root`, version };
      const adapterKey = `${key}\0${call.root}`;
      let adapter = nativeAdapters.get(adapterKey);
      if (!adapter) nativeAdapters.set(adapterKey, (adapter = nativeBiomeAdapter({ sandbox: sandbox(), build: binary, root: call.root, timeoutMs: options.timeoutMs })));
      return { adapter, version };
    }
    try {
      return { adapter: await adapterOf(formatter, packageName, version, stored.dir), version };
    } catch (error) {
      return { unavailable: `${key} could not be loaded: ${messageOf(error)}`, version };
    }
  }
}

/** The project's own installed Prettier at `installed` (project-relative) when it is `version` and a Prettier 3 build (trusted mode only). */
function projectPrettier(root: string, installed: string, version: string): string | undefined {
  const dir = join(root, ...installed.split('/'));
  try {
    const read = readBoundedText(join(dir, 'package.json'), 1024 * 1024);
    if (!read || read.truncated) return undefined;
    const manifest = JSON.parse(read.text) as { name?: unknown; version?: unknown };
    if (manifest.name !== 'prettier' || manifest.version !== version || semverMajor(version) !== 3) return undefined;
    return existsSync(join(dir, 'standalone.mjs')) ? dir : undefined;
  } catch {
    return undefined;
  }
}

function moduleUrlFor(formatter: string, dir: string, version: string): string {
  if (formatter === 'prettier') return pinnedPrettierModuleUrl(dir);
  if (formatter === 'biome') return pinnedBiomeModuleUrl(dir, version);
  if (formatter === 'ruff') return pinnedRuffModuleUrl(dir);
  if (formatter.startsWith('dprint-plugin-')) return pinnedDprintModuleUrl(dir, formatter.slice('dprint-plugin-'.length));
  throw new Error(`no worker module for ${formatter}`);
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
      timer.unref?.();
    }),
  ]).finally(() => clearTimeout(timer));
}
