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
import type { PinnedAnswer } from '../core/engine.js';
import type { VersionPin } from '../config/pins.js';
import { messageOf } from '../core/errors.js';
import { createFormatterStore, type FormatterStore } from './formatter-store/store.js';
import { createWorkerPool, type WorkerPool } from './worker-pool.js';
import { pinnedPrettierModuleUrl } from './pinned-prettier.js';

export interface PinnedFormattersOptions {
  store?: FormatterStore;
  /** Per formatter call, in the pinned version's worker. */
  timeoutMs: number;
  /** How long an edit waits for a fetch already under way before the shipped version formats it. Default 2000. */
  waitMs?: number;
  /** A fetch that failed is tried again after this long. Default 60 s. */
  retryAfterMs?: number;
}

export interface PinnedFormatters {
  /** The pinned version's adapter, or why there is none (yet); starts its fetch when needed. */
  adapterFor(formatter: string, pin: VersionPin, options?: { waitMs?: number }): Promise<PinnedAnswer>;
  readonly store: FormatterStore;
  close(): Promise<void>;
}

/** What each pinnable formatter is fetched as, and the versions formatbox can run. */
const BUILDS: Readonly<Record<string, { packageName: string; runs: (version: string) => string | undefined }>> = {
  prettier: { packageName: 'prettier', runs: (v) => (semverMajor(v) === 3 ? undefined : 'formatbox runs Prettier 3 builds only') },
};

export function createPinnedFormatters(options: PinnedFormattersOptions): PinnedFormatters {
  const store = options.store ?? createFormatterStore();
  const waitMs = options.waitMs ?? 2000;
  const retryAfterMs = options.retryAfterMs ?? 60_000;
  const pools = new Map<string, { pool: WorkerPool; adapter: Promise<FormatterAdapter> }>();
  const fetches = new Map<string, Promise<unknown>>();
  const failedAt = new Map<string, { at: number; reason: string }>();
  const resolved = new Map<string, Promise<string>>();

  /** The exact version for a pin: itself, or a range resolved against the registry as npm would. */
  function exactVersion(packageName: string, pin: VersionPin): Promise<string> {
    if (pin.exact) return Promise.resolve(pin.spec);
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
      const pool = createWorkerPool({ timeoutMs: options.timeoutMs, builtins: false, modules: [moduleUrlFor(formatter, dir)], size: 1 });
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

  return {
    store,
    async adapterFor(formatter, pin, call = {}) {
      const build = BUILDS[formatter];
      if (!build) return { unavailable: `formatbox cannot fetch ${formatter} builds yet` };
      let version: string;
      try {
        version = await withTimeout(exactVersion(build.packageName, pin), call.waitMs ?? waitMs, 'resolving the range on the registry');
      } catch (error) {
        return { unavailable: `${pin.spec} could not be resolved to a version: ${messageOf(error)}` };
      }
      const cannot = build.runs(version);
      if (cannot) return { unavailable: cannot };
      const key = `${build.packageName}@${version}`;
      let stored;
      try {
        stored = store.lookup(build.packageName, version);
      } catch (error) {
        return { unavailable: messageOf(error) };
      }
      if (!stored) {
        const failed = failedAt.get(key);
        if (failed && Date.now() - failed.at < retryAfterMs) return { unavailable: failed.reason, version };
        let pending = fetches.get(key);
        if (!pending) {
          pending = store.fetch(build.packageName, version).then(
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
        stored = store.lookup(build.packageName, version);
        if (!stored) return { unavailable: `${key} did not verify after its fetch`, version };
      }
      try {
        return { adapter: await adapterOf(formatter, build.packageName, version, stored.dir), version };
      } catch (error) {
        return { unavailable: `${key} could not be loaded: ${messageOf(error)}`, version };
      }
    },
    async close() {
      await Promise.all([...pools.values()].map((entry) => entry.pool.close()));
      pools.clear();
    },
  };
}

function moduleUrlFor(formatter: string, dir: string): string {
  if (formatter === 'prettier') return pinnedPrettierModuleUrl(dir);
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
