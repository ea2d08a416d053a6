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
 * One fetch per entry at a time in a process; two processes racing both verify, the first rename wins.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, lstatSync, writeFileSync, type BigIntStats } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import semverValid from 'semver/functions/valid.js';
import { FormatboxError, messageOf } from '../../core/errors.js';
import { readPackageTarball, TAR_LIMITS, type TarLimits } from './tar.js';
import { userRegistryFor, type RegistryChoice } from './registry.js';

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

interface StoreLimits extends TarLimits {
  /** The whole fetch (packument and tarball). */
  downloadMs: number;
  maxPackumentBytes: number;
  maxTarballBytes: number;
}

const STORE_LIMITS: StoreLimits = { ...TAR_LIMITS, downloadMs: 120_000, maxPackumentBytes: 64 * 1024 * 1024, maxTarballBytes: 96 * 1024 * 1024 };

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
}

interface StoreOptions {
  /** Default: `$XDG_CACHE_HOME/formatbox/formatters` (or ~/.cache/…). */
  dir?: string;
  env?: NodeJS.ProcessEnv;
  limits?: Partial<StoreLimits>;
  /** Told how each entry was verified on load: every file hashed, or every file's identity equal to the one recorded after the last hashing. */
  onVerified?: (entry: string, how: 'hashed' | 'identity') => void;
}

const MANIFEST = '.formatbox-store.json';
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
}

function defaultStoreDir(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(env.HOME ?? homedir(), '.cache');
  return join(cache, 'formatbox', 'formatters');
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
  const limits: StoreLimits = { ...STORE_LIMITS, ...options.limits };
  const verified = new Map<string, StoredPackage>();
  const inFlight = new Map<string, Promise<StoredPackage>>();
  const failures = new Map<string, string>();
  const packuments = new Map<string, Promise<Packument>>();

  const entryDir = (name: string, version: string): string => join(dir, `${name.replace('/', '+')}@${version}`);

  function check(name: string, version: string): void {
    if (!STORE_PACKAGES.has(name)) throw new FormatboxError('FORMATTER_FETCH', `formatbox does not fetch the package ${JSON.stringify(name)}`);
    if (semverValid(version) !== version) throw new FormatboxError('FORMATTER_FETCH', `not an exact version: ${JSON.stringify(version)}`);
  }

  function lookup(name: string, version: string): StoredPackage | undefined {
    check(name, version);
    const key = `${name}@${version}`;
    const known = verified.get(key);
    if (known) return known;
    const root = entryDir(name, version);
    const problem = verifyEntry(root, name, version, (how) => options.onVerified?.(key, how));
    if (problem === 'absent') return undefined;
    if (problem !== undefined) {
      // Tampered or half-removed: out of the way, so the next fetch writes a whole new entry.
      removeEntry(root);
      return undefined;
    }
    const manifest = JSON.parse(readFileSync(join(root, MANIFEST), 'utf8')) as Manifest;
    const stored = { name, version, dir: join(root, 'package'), integrity: manifest.integrity };
    verified.set(key, stored);
    return stored;
  }

  async function packument(name: string): Promise<Packument> {
    let pending = packuments.get(name);
    if (!pending) {
      if (offline(env)) throw new FormatboxError('FORMATTER_FETCH', `formatbox is offline (--offline or FORMATBOX_OFFLINE=1): the registry is not asked which ${name} versions exist`);
      pending = fetchPackument(registryFor(name), name, limits);
      packuments.set(name, pending);
      // A failure is not remembered: the next call asks again (the network may be back).
      pending.catch(() => packuments.delete(name));
    }
    return pending;
  }

  async function download(name: string, version: string): Promise<StoredPackage> {
    if (offline(env)) throw new FormatboxError('FORMATTER_FETCH', `${name}@${version} is not in the formatter store, and formatbox is offline (--offline or FORMATBOX_OFFLINE=1): not fetched`);
    const registry = registryFor(name);
    const meta = await packument(name);
    const dist = meta.versions[version];
    if (!dist) throw new FormatboxError('FORMATTER_FETCH', `${name}@${version} is not published on ${registry.url}`);
    if (!/^sha512-[A-Za-z0-9+/]+=*$/.test(dist.integrity ?? '')) throw new FormatboxError('FORMATTER_FETCH', `${name}@${version} has no sha512 integrity on ${registry.url}`);
    const tarballUrl = new URL(dist.tarball);
    if (tarballUrl.origin !== new URL(registry.url).origin) throw new FormatboxError('FORMATTER_FETCH', `${name}@${version}: the tarball is on another host than the registry (${tarballUrl.origin})`);
    const tarball = await fetchBytes(tarballUrl.href, limits.maxTarballBytes, limits.downloadMs, 'application/octet-stream', `${name}@${version}`);
    const actual = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
    if (actual !== dist.integrity) throw new FormatboxError('FORMATTER_FETCH', `${name}@${version}: the tarball's sha512 is not the registry's dist.integrity`);
    const files = readPackageTarball(tarball, limits);
    const root = entryDir(name, version);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const temp = `${root}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      const manifest: Manifest = { name, version, integrity: dist.integrity!, files: {} };
      for (const file of files) {
        if (file.path === '') continue;
        const target = join(temp, 'package', ...file.path.split('/'));
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, file.bytes, { flag: 'wx', mode: file.executable ? 0o755 : 0o644 });
        manifest.files[file.path] = sha256(file.bytes);
        if (file.executable) (manifest.executables ??= []).push(file.path);
      }
      writeFileSync(join(temp, MANIFEST), JSON.stringify(manifest));
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
    return stored;
  }

  function registryFor(name: string): RegistryChoice {
    return userRegistryFor(name, env);
  }

  return {
    dir,
    lookup,
    isStored(name, version) {
      check(name, version);
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
  };
}

interface Packument {
  versions: Record<string, { tarball: string; integrity?: string }>;
  latest?: string;
}

async function fetchPackument(registry: RegistryChoice, name: string, limits: StoreLimits): Promise<Packument> {
  const url = `${registry.url}${name.replace('/', '%2f')}`;
  const bytes = await fetchBytes(url, limits.maxPackumentBytes, limits.downloadMs, 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8');
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

/** undefined when the entry is whole and every hash matches (or every identity equals the record of its last hashing); 'absent'; or what is wrong. */
function verifyEntry(root: string, name: string, version: string, onVerified?: (how: 'hashed' | 'identity') => void): string | undefined {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(join(root, MANIFEST), 'utf8')) as Manifest;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      try {
        lstatSync(root);
      } catch {
        return 'absent';
      }
    }
    return 'no readable manifest';
  }
  if (manifest.name !== name || manifest.version !== version || typeof manifest.files !== 'object') return 'a manifest of another package';
  const found = listFiles(join(root, 'package'));
  if (found === undefined) return 'a link or special file in the entry';
  const expected = Object.keys(manifest.files);
  if (found.length !== expected.length || !found.every((file) => Object.hasOwn(manifest.files, file))) return 'files added or removed';
  const before = entryIdentities(root, expected);
  if (before && sameIdentities(readRecordedIdentities(root), before)) {
    onVerified?.('identity');
    return undefined;
  }
  for (const file of expected) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(root, 'package', ...file.split('/')));
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
  if (before) recordIdentities(root, expected, before);
  return undefined;
}

/** The identity of the manifest and of each of `files` (entry-relative, under `package/`); undefined when one is not a regular file. */
function entryIdentities(root: string, files: readonly string[]): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [key, path] of [[MANIFEST, join(root, MANIFEST)], ...files.map((file) => [`package/${file}`, join(root, 'package', ...file.split('/'))])] as const) {
    const stats = lstatBigintOrUndefined(path);
    if (!stats?.isFile()) return undefined;
    out[key] = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mode}:${stats.mtimeNs}:${stats.ctimeNs}`;
  }
  return out;
}

function sameIdentities(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  if (!a) return false;
  const keys = Object.keys(b);
  return Object.keys(a).length === keys.length && keys.every((key) => a[key] === b[key]);
}

function readRecordedIdentities(root: string): Record<string, string> | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(root, VERIFIED), 'utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const entries = Object.entries(parsed);
    return entries.every(([, value]) => typeof value === 'string') ? Object.fromEntries(entries) as Record<string, string> : undefined;
  } catch {
    return undefined; // none yet, or unreadable: hashed again
  }
}

/**
 * Records `before` (taken before hashing) when nothing changed while the files were hashed and
 * every identity has settled (SETTLED_NS); atomically, and only as an optimisation: a failure is
 * ignored (the next load hashes again).
 */
function recordIdentities(root: string, files: readonly string[], before: Record<string, string>): void {
  const after = entryIdentities(root, files);
  if (!after || !sameIdentities(after, before)) return;
  const settledBefore = BigInt(Date.now()) * 1_000_000n - SETTLED_NS;
  if (Object.values(before).some((identity) => BigInt(identity.split(':').at(-1)!) > settledBefore)) return;
  const temp = join(root, `${VERIFIED}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    writeFileSync(temp, JSON.stringify(before), { flag: 'wx', mode: 0o600 });
    renameSync(temp, join(root, VERIFIED));
  } catch {
    rmSync(temp, { force: true });
  }
}

/** Every regular file under `dir`, POSIX-relative; undefined when a symlink or special file is there. */
function listFiles(dir: string, prefix = ''): string[] | undefined {
  const out: string[] = [];
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return prefix === '' ? [] : undefined;
  }
  for (const entry of entries) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      const inner = listFiles(join(dir, entry.name), rel);
      if (!inner) return undefined;
      out.push(...inner);
    } else if (entry.isFile()) out.push(rel);
    else return undefined;
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

function lstatOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
