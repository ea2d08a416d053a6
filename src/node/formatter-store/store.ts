/**
 * The per-user store of formatter versions a project pins: `$XDG_CACHE_HOME/formatbox/formatters/
 * <name>@<version>/` (`/` of a scope written `+`). An entry is the package's files and a manifest of
 * their SHA-256 hashes beside the registry's `dist.integrity` it was verified against.
 * - Only packages formatbox knows how to run (`STORE_PACKAGES`); a repository chooses only a version
 *   string, checked as an exact semver version: never a package name, a URL, a tarball or a registry.
 * - Fetched from the user's registry (registry.ts): the packument, then that version's tarball from
 *   the same origin, within a time limit and a size cap; its sha512 must equal `dist.integrity`.
 * - Unpacked by the bounded tar reader (tar.ts) into a temp directory renamed into place: a reader
 *   sees the whole entry or none. Verified again on load (every file's hash, no extra file): a
 *   tampered entry is removed and fetched again.
 * - The user's own, or not used: every directory from the cache root down to the store, and every
 *   directory and file of an entry, must be this user's, not a symlink, not writable by group or
 *   others (the store itself private, 0700), checked on creation and on every load (owned.ts). An
 *   entry's manifest and its identity record carry an HMAC under the store's key (`.store-key`, a
 *   0600 file in the store): an entry another user wrote, or copied from elsewhere, does not verify.
 * - Budgeted (ledger.ts): a few versions per package per repository, bytes per day, bytes on disk.
 * - Registry text reaches messages only through redactSecrets (no credentials, no query strings).
 * - A fetch killed midway leaves `<entry>.tmp-<pid>-<hex>`: swept by the next process that opens the store.
 * One fetch per entry at a time in a process; two processes racing both verify, the first rename wins.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeSync, type BigIntStats, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import semverValid from 'semver/functions/valid.js';
import { FormatboxError, isFormatboxError, messageOf } from '../../core/errors.js';
import { redactSecrets } from '../../core/redact.js';
import { checkOwnedChain, currentUid } from '../fs/owned.js';
import { readBoundedNoFollow } from '../fs/read-bounded.js';
import { readOrCreateSecretFile } from '../fs/secret-file.js';
import { processAlive } from '../process-alive.js';
import { readPackageTarball, TAR_LIMITS, type TarLimits } from './tar.js';
import { userRegistryFor, type RegistryChoice } from './registry.js';
import { BUDGET_LIMITS, byteSize, openLedger, type BudgetLimits, type Ledger } from './ledger.js';

/** The packages the store fetches: the builds formatbox can run at another version. */
const STORE_PACKAGES: ReadonlySet<string> = new Set([
  'prettier',
  '@biomejs/wasm-nodejs',
  '@biomejs/wasm-web',
  '@biomejs/cli-linux-x64',
  '@biomejs/cli-linux-arm64',
  '@astral-sh/ruff-wasm-nodejs',
  '@astral-sh/ruff-wasm-web',
  '@dprint/markdown',
  '@dprint/json',
  '@dprint/toml',
  '@dprint/dockerfile',
]);

interface StoreLimits extends TarLimits, BudgetLimits {
  /** The whole fetch (packument and tarball). */
  downloadMs: number;
  maxPackumentBytes: number;
  maxTarballBytes: number;
}

const STORE_LIMITS: StoreLimits = { ...TAR_LIMITS, ...BUDGET_LIMITS, downloadMs: 120_000, maxPackumentBytes: 64 * 1024 * 1024, maxTarballBytes: 96 * 1024 * 1024 };

export interface StoredPackage {
  name: string;
  version: string;
  /** The package's root directory (what `package/` was in the tarball). */
  dir: string;
  integrity: string;
}

type StoreState =
  | { state: 'ready'; stored: StoredPackage }
  | { state: 'fetching' }
  | { state: 'failed'; reason: string }
  | { state: 'absent' };

interface PublishedVersions {
  versions: string[];
  latest?: string;
}

export interface FormatterStore {
  /** `$XDG_CACHE_HOME/formatbox/formatters`. */
  readonly dir: string;
  /** The stored and verified entry, or undefined (a tampered entry is removed here). */
  lookup(name: string, version: string): StoredPackage | undefined;
  /** Whether an entry is on disk, without verifying it (cheap: no hashing). */
  isStored(name: string, version: string): boolean;
  /** The entry, fetched and verified first when it is not stored. One fetch per entry at a time. */
  fetch(name: string, version: string): Promise<StoredPackage>;
  /** Where an entry stands in this process, without starting anything. */
  state(name: string, version: string): StoreState;
  /** The versions the registry publishes and its `latest` tag (for resolving a range as npm does). */
  published(name: string): Promise<PublishedVersions>;
  /** The registry this store fetches `name` from, and where that was configured. */
  registryFor(name: string): RegistryChoice;
  /**
   * Why the repository at `repository` (its root) may not use `name@version`, or undefined (it is
   * then counted as one of the versions that repository uses): the per-repository budget.
   */
  admit(repository: string, name: string, version: string): string | undefined;
}

interface StoreOptions {
  /** Default: `$XDG_CACHE_HOME/formatbox/formatters` (or ~/.cache/…); every directory from the cache root down is checked. An explicit `dir` is checked from itself down. */
  dir?: string;
  env?: NodeJS.ProcessEnv;
  limits?: Partial<StoreLimits>;
  /**
   * Fetch any npm package (a project's locked toolchain, package-tree.ts), not only the builds
   * formatbox runs; the name must still be an npm package name. Its own directory, never the formatters'.
   */
  anyPackage?: boolean;
  /** Told how each entry was verified on load: every file hashed, or every file's identity equal to the one recorded after the last hashing. */
  onVerified?: (entry: string, how: 'hashed' | 'identity') => void;
}

const MANIFEST = '.formatbox-store.json';
/** The store's key (a 0600 file in the private store directory): entries' manifests and identity records carry an HMAC under it. */
const STORE_KEY = '.store-key';
const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;
/** A fetch's temp directory and an entry moved aside to be removed: `<entry>.tmp-<pid>-<hex>`, `<entry>.removed-<pid>-<hex>` (and the ledger's temp file). */
const LEFTOVER = /^(?:.+@[^@/]+|\.ledger\.json)\.(?:tmp|removed)-(\d+)-[0-9a-f]{8}$/;
/**
 * Beside the manifest: the identity (device, inode, size, mode, mtime and ctime in ns) of the
 * manifest and of every file, recorded after they were all hashed and found whole. A later load
 * whose identities all equal it skips the hashing (54 MB for native Biome: ~80 ms a run). Any write
 * to a file, chmod or replacement changes its ctime, which only the kernel sets; a record is as
 * trusted as the manifest beside it (whoever can write one can write the other).
 */
const VERIFIED = '.formatbox-verified.json';
/**
 * Identities changed less than this before they were recorded are not recorded: a write within a
 * file system's timestamp granularity (a clock tick; seconds on some) could leave the ctime equal.
 */
const SETTLED_NS = 2_000_000_000n;

interface Manifest {
  name: string;
  version: string;
  integrity: string;
  files: Record<string, string>;
  /** Files stored executable (native binaries); every other file is stored without an execute bit. */
  executables?: string[];
  /** HMAC-SHA256 under the store's key of everything above (manifestMac). */
  mac?: string;
}

function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(env.HOME ?? homedir(), '.cache');
}

/** An npm package name (legacy capitals allowed): one optional scope, no path segment of its own. */
export function isPackageName(name: string): boolean {
  return name.length <= 214 && /^(?:@[a-z0-9-*~][a-z0-9-*._~]*\/)?[a-zA-Z0-9-~][a-zA-Z0-9-._~]*$/.test(name);
}

function defaultStoreDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheRoot(env), 'formatbox', 'formatters');
}

/** What a download is about to fetch, and how it goes (for a person: the CLI prints it). */
export interface DownloadEvent {
  /** `prettier@2.8.8`. */
  what: string;
  url: string;
  /** The declared size, when the server says it. */
  bytes?: number;
  /** Bytes received so far; absent on the announcement before the body. */
  received?: number;
  done?: boolean;
}

/**
 * The process's listener for downloads (one for every store: a pinned version and native Biome are
 * fetched by different stores). The CLI sets one that prints a line before each fetch, with its
 * size, and progress on a TTY; a library embedding sets its own or none.
 */
// On globalThis under a registered symbol: the CLI's bundles each carry a copy of this module.
const LISTENER = Symbol.for('formatbox.formatterDownloads');
type Listener = (event: DownloadEvent) => void;
export function onFormatterDownloads(listener: Listener | undefined): void {
  (globalThis as { [LISTENER]?: Listener })[LISTENER] = listener;
}
function downloadListener(): Listener | undefined {
  return (globalThis as { [LISTENER]?: Listener })[LISTENER];
}

/** `FORMATBOX_OFFLINE=1` (the CLI's `--offline` sets it): nothing is fetched; only what the store holds is used. */
export function offline(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(1|true|yes)$/i.test(env.FORMATBOX_OFFLINE ?? '');
}

export function createFormatterStore(options: StoreOptions = {}): FormatterStore {
  const env = options.env ?? process.env;
  const dir = options.dir ?? defaultStoreDir(env);
  const top = options.dir ?? cacheRoot(env);
  const uid = currentUid();
  const limits: StoreLimits = { ...STORE_LIMITS, ...options.limits };
  let key: Buffer | undefined;
  let ledgerOpened: Ledger | undefined;
  const ledger = (): Ledger => (ledgerOpened ??= openLedger(dir, limits));
  const admitted = new Set<string>();

  /**
   * Checks the store's directories (creating them first when `create`) and returns the store's key;
   * sweeps what killed fetches left, once a process. Throws PATH_REFUSED: a store another user can
   * change is not used at all.
   */
  function prepare(create: boolean): Buffer {
    checkOwnedChain(top, dir, { what: "the formatter store's directory", uid }, { create, innerRule: { what: 'the formatter store', private: true, uid } });
    if (!key) {
      key = readOrCreateSecretFile(dir, STORE_KEY, uid, 'the formatter store');
      sweepLeftovers(dir, uid);
    }
    return key;
  }

  /** Whether the store's directory exists at all (nothing to check or load when it does not). */
  const storeExists = (): boolean => lstatOrUndefined(dir) !== undefined;
  const verified = new Map<string, StoredPackage>();
  const inFlight = new Map<string, Promise<StoredPackage>>();
  const failures = new Map<string, string>();
  const packuments = new Map<string, Promise<Packument>>();

  const entryDir = (name: string, version: string): string => join(dir, `${name.replace('/', '+')}@${version}`);

  function check(name: string, version: string): void {
    if (options.anyPackage ? !isPackageName(name) : !STORE_PACKAGES.has(name)) throw new FormatboxError('FORMATTER_FETCH', `formatbox does not fetch the package ${JSON.stringify(name)}`);
    if (semverValid(version) !== version) throw new FormatboxError('FORMATTER_FETCH', `not an exact version: ${JSON.stringify(version)}`);
  }

  function lookup(name: string, version: string): StoredPackage | undefined {
    check(name, version);
    const key = `${name}@${version}`;
    const known = verified.get(key);
    if (known) return known;
    if (!storeExists()) return undefined;
    const storeKey = prepare(false);
    const root = entryDir(name, version);
    const result = verifyEntry(root, name, version, storeKey, uid, (how) => options.onVerified?.(key, how));
    if (result === 'absent') return undefined;
    if (typeof result === 'string') {
      // Tampered, foreign or half-removed: out of the way, so the next fetch writes a whole new entry.
      removeEntry(root);
      ledger().forget(key);
      return undefined;
    }
    const stored = { name, version, dir: join(root, 'package'), integrity: result.integrity };
    verified.set(key, stored);
    ledger().recordUse(key);
    return stored;
  }

  async function packument(name: string): Promise<Packument> {
    let pending = packuments.get(name);
    if (!pending) {
      if (offline(env)) throw new FormatboxError('FORMATTER_FETCH', `formatbox is offline (--offline or FORMATBOX_OFFLINE=1): the registry is not asked which ${name} versions exist`);
      const registry = registryFor(name);
      pending = fetchPackument(registry, name, limits, ledger()).catch((error: unknown) => {
        throw redacted(error, registry);
      });
      packuments.set(name, pending);
      // A failure is not remembered: the next call asks again (the network may be back).
      pending.catch(() => packuments.delete(name));
    }
    return pending;
  }

  async function download(name: string, version: string): Promise<StoredPackage> {
    if (offline(env)) throw new FormatboxError('FORMATTER_FETCH', `${name}@${version} is not in the formatter store, and formatbox is offline (--offline or FORMATBOX_OFFLINE=1): not fetched`);
    const registry = registryFor(name);
    try {
      return await downloadFrom(registry, name, version);
    } catch (error) {
      throw redacted(error, registry);
    }
  }

  async function downloadFrom(registry: RegistryChoice, name: string, version: string): Promise<StoredPackage> {
    const storeKey = prepare(true);
    const allowance = ledger().downloadAllowance();
    if (allowance.refusal) throw new FormatboxError('FORMATTER_FETCH', `${name}@${version} is not fetched: ${allowance.refusal}`, { budget: 'bytes-per-day' });
    const meta = await packument(name);
    const dist = meta.versions[version];
    if (!dist) throw new FormatboxError('FORMATTER_FETCH', `${name}@${version} is not published on ${registry.url}`);
    if (!/^sha512-[A-Za-z0-9+/]+=*$/.test(dist.integrity ?? '')) throw new FormatboxError('FORMATTER_FETCH', `${name}@${version} has no sha512 integrity on ${registry.url}`);
    const tarballUrl = new URL(dist.tarball);
    if (tarballUrl.origin !== new URL(registry.url).origin) throw new FormatboxError('FORMATTER_FETCH', `${name}@${version}: the tarball is on another host than the registry (${tarballUrl.origin})`);
    const left = ledger().downloadAllowance();
    if (left.refusal) throw new FormatboxError('FORMATTER_FETCH', `${name}@${version} is not fetched: ${left.refusal}`, { budget: 'bytes-per-day' });
    const overBudget = left.bytes < limits.maxTarballBytes;
    let tarball: Uint8Array;
    try {
      tarball = await fetchBytes(tarballUrl.href, Math.min(limits.maxTarballBytes, left.bytes), limits.downloadMs, 'application/octet-stream', `${name}@${version}`);
    } catch (error) {
      if (overBudget && isFormatboxError(error) && / over the \d+-byte cap$/.test(error.message)) {
        ledger().recordDownload(left.bytes);
        throw new FormatboxError('FORMATTER_FETCH', `${name}@${version} is not fetched: the download budget: it is larger than the ${byteSize(left.bytes)} left of today's budget (${byteSize(limits.maxBytesPerDay)} a day)`, { budget: 'bytes-per-day' });
      }
      throw error;
    }
    ledger().recordDownload(tarball.length);
    const actual = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
    if (actual !== dist.integrity) throw new FormatboxError('FORMATTER_FETCH', `${name}@${version}: the tarball's sha512 is not the registry's dist.integrity`);
    const files = readPackageTarball(tarball, limits);
    const root = entryDir(name, version);
    const temp = `${root}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    let storedBytes = 0;
    try {
      // Every directory and file is new (mkdir fails on anything already there, O_EXCL|O_NOFOLLOW on any name): nothing is written through a link.
      mkdirSync(temp, { mode: 0o700 });
      const manifest: Manifest = { name, version, integrity: dist.integrity!, files: {} };
      for (const file of files) {
        if (file.path === '') continue;
        const target = join(temp, 'package', ...file.path.split('/'));
        mkdirSync(dirname(target), { recursive: true, mode: 0o755 });
        writeNewFile(target, file.bytes, file.executable ? 0o755 : 0o644);
        manifest.files[file.path] = sha256(file.bytes);
        storedBytes += file.bytes.length;
        if (file.executable) (manifest.executables ??= []).push(file.path);
      }
      manifest.mac = manifestMac(storeKey, manifest);
      writeNewFile(join(temp, MANIFEST), new TextEncoder().encode(JSON.stringify(manifest)), 0o644);
      try {
        renameSync(temp, root);
      } catch (error) {
        // Another process stored it first: theirs is verified below like any entry.
        if (!['EEXIST', 'ENOTEMPTY'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
      }
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
    const stored = lookup(name, version);
    if (!stored) throw new FormatboxError('FORMATTER_FETCH', `${name}@${version}: the stored entry did not verify`);
    ledger().recordStored(`${name}@${version}`, storedBytes);
    evict();
    return stored;
  }

  /** Removes least-recently-used entries until the store fits its byte budget (never one this process uses). */
  function evict(): void {
    for (const entry of ledger().evictions(new Set(verified.keys()))) {
      const at = entry.lastIndexOf('@');
      if (at <= 0) continue;
      removeEntry(entryDir(entry.slice(0, at), entry.slice(at + 1)));
      ledger().forget(entry);
    }
  }

  function registryFor(name: string): RegistryChoice {
    return userRegistryFor(name, env);
  }

  return {
    dir,
    lookup,
    isStored(name, version) {
      check(name, version);
      if (!storeExists()) return false;
      try {
        prepare(false);
      } catch {
        return false; // a store that is not the user's holds nothing usable
      }
      return lstatOrUndefined(join(entryDir(name, version), MANIFEST))?.isFile() === true;
    },
    fetch(name, version) {
      try {
        const ready = lookup(name, version);
        if (ready) return Promise.resolve(ready);
      } catch (error) {
        return Promise.reject(error);
      }
      const key = `${name}@${version}`;
      let pending = inFlight.get(key);
      if (!pending) {
        failures.delete(key);
        pending = download(name, version).finally(() => inFlight.delete(key));
        pending.catch((error: unknown) => failures.set(key, messageOf(error)));
        inFlight.set(key, pending);
      }
      return pending;
    },
    state(name, version) {
      const key = `${name}@${version}`;
      const ready = verified.get(key);
      if (ready) return { state: 'ready', stored: ready };
      if (inFlight.has(key)) return { state: 'fetching' };
      const failed = failures.get(key);
      if (failed !== undefined) return { state: 'failed', reason: failed };
      return { state: 'absent' };
    },
    async published(name) {
      const meta = await packument(name);
      return { versions: Object.keys(meta.versions), ...(meta.latest ? { latest: meta.latest } : {}) };
    },
    registryFor,
    admit(repository, name, version) {
      check(name, version);
      // Once admitted, a version stays admitted for this process: no ledger read or write per edit.
      const admittedKey = `${repository}\0${name}@${version}`;
      if (admitted.has(admittedKey)) return undefined;
      try {
        prepare(true);
      } catch (error) {
        return messageOf(error);
      }
      const refusal = ledger().admit(repository, name, version);
      if (refusal === undefined) admitted.add(admittedKey);
      return refusal;
    },
  };
}

/** `error` as a FORMATTER_FETCH error whose message has no credential of `registry` (nor any URL's userinfo or query). */
function redacted(error: unknown, registry: RegistryChoice): FormatboxError {
  const message = redactSecrets(messageOf(error), registry.secrets);
  if (isFormatboxError(error)) return new FormatboxError(error.code, message, error.details);
  return new FormatboxError('FORMATTER_FETCH', message);
}

function manifestMac(storeKey: Buffer, manifest: Manifest): string {
  const files = Object.entries(manifest.files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const executables = [...(manifest.executables ?? [])].sort();
  return createHmac('sha256', storeKey).update(JSON.stringify(['manifest', manifest.name, manifest.version, manifest.integrity, files, executables])).digest('hex');
}

function macMatches(expected: string, given: unknown): boolean {
  return typeof given === 'string' && given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

/** Creates `path` with O_EXCL|O_NOFOLLOW (never through a name already there) and writes `bytes`. */
function writeNewFile(path: string, bytes: Uint8Array, mode: number): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes what killed fetches left in the store (`<entry>.tmp-<pid>-<hex>`, `.removed-…`): only
 * this user's, and only when the process that made it is gone.
 */
function sweepLeftovers(dir: string, uid: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const match = LEFTOVER.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    if (pid === process.pid || processAlive(pid)) continue;
    const stats = lstatOrUndefined(join(dir, name));
    if (!stats || stats.isSymbolicLink() || (uid >= 0 && stats.uid !== uid)) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
  }
}

interface Packument {
  versions: Record<string, { tarball: string; integrity?: string }>;
  latest?: string;
}

async function fetchPackument(registry: RegistryChoice, name: string, limits: StoreLimits, ledger: Ledger): Promise<Packument> {
  const url = `${registry.url}${name.replace('/', '%2f')}`;
  const allowance = ledger.downloadAllowance();
  if (allowance.refusal) throw new FormatboxError('FORMATTER_FETCH', `${name} is not looked up: ${allowance.refusal}`, { budget: 'bytes-per-day' });
  const bytes = await fetchBytes(url, Math.min(limits.maxPackumentBytes, allowance.bytes), limits.downloadMs, 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8');
  ledger.recordDownload(bytes.length);
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new FormatboxError('FORMATTER_FETCH', `${url}: not JSON`);
  }
  const versions: Packument['versions'] = {};
  const raw = (body as { versions?: unknown }).versions;
  if (typeof raw !== 'object' || raw === null) throw new FormatboxError('FORMATTER_FETCH', `${url}: no versions`);
  for (const [version, entry] of Object.entries(raw as Record<string, unknown>)) {
    const dist = (entry as { dist?: { tarball?: unknown; integrity?: unknown } } | null)?.dist;
    if (semverValid(version) === version && typeof dist?.tarball === 'string') {
      versions[version] = { tarball: dist.tarball, ...(typeof dist.integrity === 'string' ? { integrity: dist.integrity } : {}) };
    }
  }
  const latest = (body as { 'dist-tags'?: { latest?: unknown } })['dist-tags']?.latest;
  return { versions, ...(typeof latest === 'string' ? { latest } : {}) };
}

/** GET with a time limit and a size cap (the body is read in chunks and abandoned past the cap). */
async function fetchBytes(url: string, maxBytes: number, timeoutMs: number, accept: string, announced?: string): Promise<Uint8Array> {
  let response: Response;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    response = await fetch(url, { headers: { accept }, redirect: 'error', signal });
  } catch (error) {
    throw new FormatboxError('FORMATTER_FETCH', `${url}: ${signal.aborted ? `no answer within ${timeoutMs} ms` : `unreachable (${messageOf((error as { cause?: unknown }).cause ?? error)})`}`);
  }
  if (!response.ok || !response.body) throw new FormatboxError('FORMATTER_FETCH', `${url}: HTTP ${response.status}`);
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) throw new FormatboxError('FORMATTER_FETCH', `${url}: ${declared} bytes, over the ${maxBytes}-byte cap`);
  const listener = announced !== undefined ? downloadListener() : undefined;
  const size = Number.isFinite(declared) ? { bytes: declared } : {};
  listener?.({ what: announced!, url, ...size });
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      total += chunk.length;
      listener?.({ what: announced!, url, ...size, received: total });
      if (total > maxBytes) throw new FormatboxError('FORMATTER_FETCH', `${url}: over the ${maxBytes}-byte cap`);
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof FormatboxError) throw error;
    throw new FormatboxError('FORMATTER_FETCH', `${url}: ${signal.aborted ? `not done within ${timeoutMs} ms` : messageOf(error)}`);
  }
  listener?.({ what: announced!, url, ...size, received: total, done: true });
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/**
 * The entry's integrity when it is this user's, whole, signed with the store's key and every hash
 * matches (or every identity equals the signed record of its last hashing); 'absent'; or what is wrong.
 */
function verifyEntry(root: string, name: string, version: string, storeKey: Buffer, uid: number, onVerified?: (how: 'hashed' | 'identity') => void): { integrity: string } | string {
  const rootStats = lstatOrUndefined(root);
  if (!rootStats) return 'absent';
  const foreign = ownershipProblem(rootStats, uid, true);
  if (foreign) return `the entry ${foreign}`;
  let manifest: Manifest;
  try {
    const read = readBoundedNoFollow(join(root, MANIFEST), MAX_MANIFEST_BYTES);
    if (!read || read.truncated) return 'no readable manifest';
    manifest = JSON.parse(new TextDecoder().decode(read.bytes)) as Manifest;
  } catch {
    return 'no readable manifest';
  }
  if (typeof manifest !== 'object' || manifest === null || manifest.name !== name || manifest.version !== version || typeof manifest.files !== 'object' || manifest.files === null || typeof manifest.integrity !== 'string') return 'a manifest of another package';
  if (!Object.values(manifest.files).every((hash) => typeof hash === 'string') || !(manifest.executables === undefined || (Array.isArray(manifest.executables) && manifest.executables.every((file) => typeof file === 'string')))) return 'a malformed manifest';
  // Signed by this user's store: a manifest another user wrote, or one copied in from elsewhere, is not.
  if (!macMatches(manifestMac(storeKey, manifest), manifest.mac)) return 'a manifest not signed with this store\'s key';
  const manifestStats = lstatOrUndefined(join(root, MANIFEST));
  const manifestProblem = manifestStats ? ownershipProblem(manifestStats, uid, false) : 'missing';
  if (manifestProblem) return `its manifest ${manifestProblem}`;
  const found = listFiles(join(root, 'package'), uid);
  if (typeof found === 'string') return found;
  const expected = Object.keys(manifest.files);
  if (found.length !== expected.length || !found.every((file) => Object.hasOwn(manifest.files, file))) return 'files added or removed';
  const before = entryIdentities(root, expected);
  if (before && sameIdentities(readRecordedIdentities(root, storeKey), before)) {
    onVerified?.('identity');
    return { integrity: manifest.integrity };
  }
  for (const file of expected) {
    let bytes: Uint8Array;
    try {
      const read = readBoundedNoFollow(join(root, 'package', ...file.split('/')), Number.MAX_SAFE_INTEGER);
      if (!read) return `${file} unreadable`;
      bytes = read.bytes;
    } catch {
      return `${file} unreadable`;
    }
    if (sha256(bytes) !== manifest.files[file]) return `${file} changed`;
  }
  const executables = new Set(manifest.executables ?? []);
  for (const file of expected) {
    const executable = (lstatSync(join(root, 'package', ...file.split('/'))).mode & 0o111) !== 0;
    if (executable !== executables.has(file)) return `${file} has another mode`;
  }
  onVerified?.('hashed');
  if (before) recordIdentities(root, expected, before, storeKey);
  return { integrity: manifest.integrity };
}

/** Why an entry's directory or file is not this user's alone (another owner, group/other write, a link), or undefined. */
function ownershipProblem(stats: Stats, uid: number, directory: boolean): string | undefined {
  if (stats.isSymbolicLink()) return 'is a symlink';
  if (directory ? !stats.isDirectory() : !stats.isFile()) return directory ? 'is not a directory' : 'is not a regular file';
  if (uid >= 0 && stats.uid !== uid) return `belongs to uid ${stats.uid}, not to you (uid ${uid})`;
  if ((stats.mode & 0o022) !== 0) return `is writable by ${(stats.mode & 0o002) !== 0 ? 'others' : 'its group'} (mode ${(stats.mode & 0o777).toString(8)})`;
  return undefined;
}

/** The identity of the manifest and of each of `files` (entry-relative, under `package/`); undefined when one is not a regular file. */
function entryIdentities(root: string, files: readonly string[]): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [key, path] of [[MANIFEST, join(root, MANIFEST)], ...files.map((file) => [`package/${file}`, join(root, 'package', ...file.split('/'))])] as const) {
    const stats = lstatBigintOrUndefined(path);
    if (!stats?.isFile()) return undefined;
    out[key] = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mode}:${stats.uid}:${stats.mtimeNs}:${stats.ctimeNs}`;
  }
  return out;
}

function sameIdentities(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  if (!a) return false;
  const keys = Object.keys(b);
  return Object.keys(a).length === keys.length && keys.every((key) => a[key] === b[key]);
}

function identitiesMac(storeKey: Buffer, identities: Record<string, string>): string {
  return createHmac('sha256', storeKey).update(JSON.stringify(['identities', Object.entries(identities).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))])).digest('hex');
}

/** The signed identity record, or undefined (none yet, unreadable or not signed with this store's key: hashed again). */
function readRecordedIdentities(root: string, storeKey: Buffer): Record<string, string> | undefined {
  try {
    const read = readBoundedNoFollow(join(root, VERIFIED), MAX_MANIFEST_BYTES);
    if (!read || read.truncated) return undefined;
    const parsed: unknown = JSON.parse(new TextDecoder().decode(read.bytes));
    const { identities, mac } = (parsed ?? {}) as { identities?: unknown; mac?: unknown };
    if (typeof identities !== 'object' || identities === null || Array.isArray(identities)) return undefined;
    const entries = Object.entries(identities);
    if (!entries.every(([, value]) => typeof value === 'string')) return undefined;
    const record = Object.fromEntries(entries) as Record<string, string>;
    return macMatches(identitiesMac(storeKey, record), mac) ? record : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Records `before` (taken before hashing) when nothing changed while the files were hashed and
 * every identity has settled (SETTLED_NS); atomically, and only as an optimisation: a failure is
 * ignored (the next load hashes again).
 */
function recordIdentities(root: string, files: readonly string[], before: Record<string, string>, storeKey: Buffer): void {
  const after = entryIdentities(root, files);
  if (!after || !sameIdentities(after, before)) return;
  const settledBefore = BigInt(Date.now()) * 1_000_000n - SETTLED_NS;
  if (Object.values(before).some((identity) => BigInt(identity.split(':').at(-1)!) > settledBefore)) return;
  const temp = join(root, `${VERIFIED}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    writeNewFile(temp, new TextEncoder().encode(JSON.stringify({ identities: before, mac: identitiesMac(storeKey, before) })), 0o600);
    renameSync(temp, join(root, VERIFIED));
  } catch {
    rmSync(temp, { force: true });
  }
}

/** Every regular file under `dir`, POSIX-relative; or what is wrong: a symlink or special file, or a directory or file not this user's alone. */
function listFiles(dir: string, uid: number, prefix = ''): string[] | string {
  const out: string[] = [];
  const dirStats = lstatOrUndefined(dir);
  if (!dirStats) return prefix === '' ? [] : `${prefix} vanished`;
  const dirProblem = ownershipProblem(dirStats, uid, true);
  if (dirProblem) return `${prefix === '' ? 'package' : prefix} ${dirProblem}`;
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return `${prefix === '' ? 'package' : prefix} unreadable`;
  }
  for (const entry of entries) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      const inner = listFiles(join(dir, entry.name), uid, rel);
      if (typeof inner === 'string') return inner;
      out.push(...inner);
    } else if (entry.isFile()) {
      const stats = lstatOrUndefined(join(dir, entry.name));
      const problem = stats ? ownershipProblem(stats, uid, false) : 'vanished';
      if (problem) return `${rel} ${problem}`;
      out.push(rel);
    } else return 'a link or special file in the entry';
  }
  return out;
}

function removeEntry(root: string): void {
  const aside = `${root}.removed-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(root, aside);
  } catch {
    return;
  }
  rmSync(aside, { recursive: true, force: true });
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function lstatBigintOrUndefined(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true });
  } catch {
    return undefined;
  }
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
