/**
 * The store's download budgets, kept in `<store>/.ledger.json` (inside the store's private directory,
 * so only this user writes it):
 * - per repository: at most `maxVersionsPerRepository` distinct versions of one package (a repository
 *   that pins a hundred Prettier versions gets the first few, then the shipped version);
 * - per user: at most `maxBytesPerDay` downloaded a day (UTC);
 * - on disk: at most `maxStoreBytes`, least-recently-used entries removed first.
 * Budgets bound cost, not trust: two processes updating the ledger at once may lose one's update.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { readBoundedNoFollow } from '../fs/read-bounded.js';

export interface BudgetLimits {
  maxVersionsPerRepository: number;
  maxBytesPerDay: number;
  maxStoreBytes: number;
}

export const BUDGET_LIMITS: BudgetLimits = { maxVersionsPerRepository: 3, maxBytesPerDay: 1024 * 1024 * 1024, maxStoreBytes: 4 * 1024 * 1024 * 1024 };

const LEDGER = '.ledger.json';
const MAX_LEDGER_BYTES = 4 * 1024 * 1024;
/** Repositories remembered (the oldest forgotten first). */
const MAX_REPOSITORIES = 500;
/** A use is recorded at most this often per entry (a process per edit would rewrite the ledger each time). */
const USE_RECORD_MS = 60 * 60 * 1000;

interface LedgerData {
  /** Bytes downloaded per UTC day (`YYYY-MM-DD`), the last few days only. */
  days: Record<string, number>;
  /** Per entry (`name@version`): its bytes on disk and when it was last used (ms). */
  entries: Record<string, { bytes: number; usedAt: number }>;
  /** Per repository (a hash of its root): per package, the versions it was given, and when it was last seen. */
  repositories: Record<string, { seenAt: number; versions: Record<string, string[]> }>;
}

export interface Ledger {
  /** Why `repository` may not have `name@version`, or undefined (then it is recorded as one of its versions). */
  admit(repository: string, name: string, version: string): string | undefined;
  /** Why no more bytes may be downloaded today, or undefined; and how many may. */
  downloadAllowance(): { refusal?: string; bytes: number };
  recordDownload(bytes: number): void;
  recordStored(entry: string, bytes: number): void;
  recordUse(entry: string): void;
  /** Entries to remove, least recently used first, so the store fits `maxStoreBytes` (never one in `keep`). */
  evictions(keep: ReadonlySet<string>): string[];
  forget(entry: string): void;
}

export function openLedger(storeDir: string, limits: BudgetLimits, now: () => number = Date.now): Ledger {
  const path = join(storeDir, LEDGER);
  const load = (): LedgerData => readLedger(path);
  const save = (data: LedgerData): void => writeLedger(storeDir, path, data);
  const today = (): string => new Date(now()).toISOString().slice(0, 10);

  return {
    admit(repository, name, version) {
      const data = load();
      const key = createHash('sha256').update(repository).digest('hex').slice(0, 32);
      const record = (data.repositories[key] ??= { seenAt: now(), versions: {} });
      record.seenAt = now();
      const given = (record.versions[name] ??= []);
      if (!given.includes(version)) {
        if (given.length >= limits.maxVersionsPerRepository) {
          return `the download budget: this repository already uses ${given.length} versions of ${name} (${given.join(', ')}), the most formatbox fetches for one repository`;
        }
        given.push(version);
      }
      const repositories = Object.entries(data.repositories).sort(([, a], [, b]) => b.seenAt - a.seenAt).slice(0, MAX_REPOSITORIES);
      data.repositories = Object.fromEntries(repositories);
      save(data);
      return undefined;
    },
    downloadAllowance() {
      const spent = load().days[today()] ?? 0;
      const left = limits.maxBytesPerDay - spent;
      if (left <= 0) return { refusal: `the download budget: ${byteSize(spent)} of formatters were fetched today, the most formatbox fetches a day (${byteSize(limits.maxBytesPerDay)}); it fetches again tomorrow (UTC)`, bytes: 0 };
      return { bytes: left };
    },
    recordDownload(bytes) {
      const data = load();
      const day = today();
      data.days = Object.fromEntries(Object.entries(data.days).filter(([d]) => d >= new Date(now() - 7 * 86_400_000).toISOString().slice(0, 10)));
      data.days[day] = (data.days[day] ?? 0) + bytes;
      save(data);
    },
    recordStored(entry, bytes) {
      const data = load();
      data.entries[entry] = { bytes, usedAt: now() };
      save(data);
    },
    recordUse(entry) {
      const data = load();
      const known = data.entries[entry];
      if (known && now() - known.usedAt < USE_RECORD_MS) return;
      data.entries[entry] = { bytes: known?.bytes ?? 0, usedAt: now() };
      save(data);
    },
    evictions(keep) {
      const entries = Object.entries(load().entries);
      let total = entries.reduce((sum, [, e]) => sum + e.bytes, 0);
      const out: string[] = [];
      for (const [entry, e] of entries.sort(([, a], [, b]) => a.usedAt - b.usedAt)) {
        if (total <= limits.maxStoreBytes) break;
        if (keep.has(entry)) continue;
        out.push(entry);
        total -= e.bytes;
      }
      return out;
    },
    forget(entry) {
      const data = load();
      if (!(entry in data.entries)) return;
      delete data.entries[entry];
      save(data);
    },
  };
}

/** `1024 MiB`, `37 KiB`: a byte count as a budget line says it. */
export function byteSize(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

function readLedger(path: string): LedgerData {
  const empty: LedgerData = { days: {}, entries: {}, repositories: {} };
  let parsed: unknown;
  try {
    const read = readBoundedNoFollow(path, MAX_LEDGER_BYTES);
    if (!read || read.truncated) return empty;
    parsed = JSON.parse(new TextDecoder().decode(read.bytes));
  } catch {
    return empty; // unreadable or damaged: budgets start again (they bound cost, not trust)
  }
  const data = parsed as Partial<LedgerData> | null;
  const object = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!object(data)) return empty;
  const days = object(data.days) ? Object.fromEntries(Object.entries(data.days).filter(([, v]) => typeof v === 'number')) as LedgerData['days'] : {};
  const entries = object(data.entries) ? Object.fromEntries(Object.entries(data.entries).filter(([, v]) => object(v) && typeof v.bytes === 'number' && typeof v.usedAt === 'number')) as LedgerData['entries'] : {};
  const repositories = object(data.repositories)
    ? Object.fromEntries(Object.entries(data.repositories).filter(([, v]) => object(v) && typeof v.seenAt === 'number' && object(v.versions) && Object.values(v.versions).every((list) => Array.isArray(list) && list.every((x) => typeof x === 'string')))) as LedgerData['repositories']
    : {};
  return { days, entries, repositories };
}

function writeLedger(storeDir: string, path: string, data: LedgerData): void {
  const temp = join(storeDir, `${LEDGER}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, JSON.stringify(data));
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch {
    rmSync(temp, { force: true }); // a budget not recorded is counted again from what is on record
  }
}
