/**
 * The CLI's one flag table and its parser, used by every command and by the thin entry (entry.ts):
 * `--x value` and `--x=value` both work everywhere, a flag a command does not take is an unknown
 * option, and the help's option lines (help.ts) are rendered from the same rows. Light on purpose
 * (the thin entry loads it): no import but the error type.
 */
import { FormatboxError } from '../core/errors.js';

type FlagKind = 'boolean' | 'string' | 'integer' | 'list';

interface FlagRow {
  kind: FlagKind;
  /** The value's name in the help (`--root DIR`). */
  value?: string;
  /** Other spellings. */
  aliases?: readonly string[];
  /** A one-letter spelling (`-c`), as prettier's. */
  short?: string;
  /** The values it takes, when they are a closed set (`--log-level`). */
  values?: readonly string[];
  /** Only these commands take it; otherwise every command does. */
  only?: readonly string[];
  /** Whole numbers only: the bounds. */
  range?: readonly [number, number];
  /** Shown under "options for every command that formats" (help.ts). */
  common?: string;
}

/** Every flag of every command. */
export const FLAG_TABLE = {
  root: { kind: 'string', value: 'DIR', common: 'project root (default: the project the working directory is in: the nearest VCS\nroot, else the nearest formatter config; a request\'s own "root" wins). No path of\na request leaves it; /, system directories and a home without .git are never roots' },
  config: { kind: 'string', value: 'FILE', common: 'user config (default: $FORMATBOX_CONFIG, else ~/.config/formatbox/formatbox.json)' },
  trusted: { kind: 'boolean', common: "trusted mode: the project's own Prettier config and plugins may load" },
  'no-daemon': { kind: 'boolean', common: 'format in this process instead of the per-user daemon (also FORMATBOX_NO_DAEMON=1)' },
  json: { kind: 'boolean' },
  check: { kind: 'boolean', short: 'c' },
  write: { kind: 'boolean', short: 'w' },
  'list-different': { kind: 'boolean', short: 'l', only: ['format'] },
  'ignore-unknown': { kind: 'boolean', short: 'u', only: ['format'] },
  mode: { kind: 'string', value: 'MODE', values: ['project', 'always'], common: "project (default): only what the project's config declares; always: language\ndefaults too, where the project declares nothing" },
  'timeout-ms': { kind: 'integer', value: 'MS', aliases: ['timeout'], range: [100, 2 ** 31 - 1], common: "a file's formatting budget (default 10000). A file over it is formatted again,\nalone, with three times it, then reported as timed out: a guard against a hung\nformatter, not a slow one" },
  verbose: { kind: 'boolean', only: ['format', 'doctor'] },
  'log-level': { kind: 'string', value: 'LEVEL', values: ['silent', 'error', 'warn', 'log', 'debug'], only: ['format'] },
  'no-color': { kind: 'boolean', aliases: ['no-colors'] },
  offline: { kind: 'boolean', common: 'fetch nothing (also FORMATBOX_OFFLINE=1): a pinned formatter version or native\nBiome not in the store is not fetched, and the receipt says what ran instead' },
  'stdin-filepath': { kind: 'string', value: 'PATH', aliases: ['stdin-file-path'] },
  threads: { kind: 'integer', value: 'N', range: [1, 256], only: ['format'] },
  'no-cache': { kind: 'boolean', only: ['format'] },
  'no-native': { kind: 'boolean', only: ['format'] },
  'ignore-path': { kind: 'list', value: 'FILE', only: ['format'] },
  socket: { kind: 'string', value: 'PATH' },
  'http-port': { kind: 'integer', value: 'N', range: [0, 65535] },
  'idle-ms': { kind: 'integer', value: 'MS', range: [1, 2 ** 31 - 1] },
} as const satisfies Record<string, FlagRow>;

export type FlagName = keyof typeof FLAG_TABLE;

export interface Flags {
  positional: string[];
  /** Options no row names (only with `unknown: 'collect'`). */
  unknown: string[];
  json: boolean;
  check: boolean;
  write: boolean;
  trusted: boolean;
  noDaemon: boolean;
  root?: string;
  config?: string;
  socket?: string;
  stdinFilepath?: string;
  idleMs?: number;
  /** `hook claude-code` on SessionStart: the http hook's loopback port. */
  httpPort?: number;
  /** `format`: worker threads. */
  threads?: number;
  /** `format`: false with --no-cache. */
  cache: boolean;
  /** `format`: false with --no-native. */
  native: boolean;
  /** `format --ignore-path FILE` (repeatable). */
  ignorePaths: string[];
  /** `format -l`: only the paths of files that differ, on stdout. */
  listDifferent: boolean;
  /** `format -u`: files named with no formatter for them pass silently. */
  ignoreUnknown: boolean;
  /** `--mode`: the user config's `mode` for this run. */
  mode?: 'project' | 'always';
  /** `--timeout-ms`: the user config's `timeoutMs` for this run. */
  timeoutMs?: number;
  verbose: boolean;
  /** `format --log-level`: prettier's levels; `debug` is `--verbose`. */
  logLevel: 'silent' | 'error' | 'warn' | 'log' | 'debug';
  /** False with --no-color. */
  color: boolean;
  /** --offline: nothing is fetched (downloads.ts). */
  offline: boolean;
}

const BY_SPELLING = new Map<string, FlagName>();
const BY_SHORT = new Map<string, FlagName>();
for (const [name, row] of Object.entries(FLAG_TABLE) as Array<[FlagName, FlagRow]>) {
  BY_SPELLING.set(name, name);
  for (const alias of row.aliases ?? []) BY_SPELLING.set(alias, name);
  if (row.short) BY_SHORT.set(row.short, name);
}

/** The flags `command` takes, as spelled (`--check`), for suggestions. */
export function flagSpellings(command: string | undefined): string[] {
  return (Object.entries(FLAG_TABLE) as Array<[FlagName, FlagRow]>).filter(([, row]) => !row.only || command === undefined || row.only.includes(command)).map(([name]) => `--${name}`);
}

export interface ParseOptions {
  /** The command the flags are for (`format`, `hook`, …): flags only other commands take are unknown. */
  command?: string;
  /** `throw` (default): an unknown option is INVALID_REQUEST. `collect`: it goes to `unknown`. */
  unknown?: 'throw' | 'collect';
}

/** Parses `args` by the table. A missing or bad value is INVALID_REQUEST; `--check` with `--write` too. */
export function parseFlags(args: readonly string[], options: ParseOptions = {}): Flags {
  const flags: Flags = { positional: [], unknown: [], json: false, check: false, write: false, trusted: false, noDaemon: false, cache: true, native: true, ignorePaths: [], listDifferent: false, ignoreUnknown: false, verbose: false, logLevel: 'log', color: true, offline: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      flags.positional.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      flags.positional.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    const spelled = arg.startsWith('--') ? arg.slice(2, equals === -1 ? undefined : equals) : undefined;
    const name = spelled === undefined ? (arg.length === 2 ? BY_SHORT.get(arg[1] as string) : undefined) : BY_SPELLING.get(spelled);
    const row: FlagRow | undefined = name ? FLAG_TABLE[name] : undefined;
    if (!name || !row || (row.only && options.command !== undefined && !row.only.includes(options.command))) {
      if (options.unknown === 'collect') flags.unknown.push(arg);
      else {
        const option = arg.slice(0, equals === -1 ? undefined : equals);
        const near = closest(option, flagSpellings(options.command));
        throw new FormatboxError('INVALID_REQUEST', `unknown option ${option}${options.command ? ` for ${options.command}` : ''}${near ? `; did you mean ${near}?` : ''}`);
      }
      continue;
    }
    const inline = equals === -1 ? undefined : arg.slice(equals + 1);
    if (row.kind === 'boolean') {
      if (inline !== undefined) throw new FormatboxError('INVALID_REQUEST', `--${name} takes no value`);
      setFlag(flags, name, true);
      continue;
    }
    const value = inline ?? args[++i];
    if (value === undefined) throw new FormatboxError('INVALID_REQUEST', `--${name} needs a value`);
    if (row.kind === 'integer') {
      const n = Number(value);
      const [low, high] = row.range ?? [-Infinity, Infinity];
      if (value.trim() === '' || !Number.isInteger(n) || n < low || n > high) throw new FormatboxError('INVALID_REQUEST', `--${name} needs a whole number from ${low} to ${high}`);
      setFlag(flags, name, n);
    } else {
      if (row.values && !row.values.includes(value)) throw new FormatboxError('INVALID_REQUEST', `--${name} takes ${row.values.join(', ')}; not ${JSON.stringify(value)}`);
      setFlag(flags, name, value);
    }
  }
  if (flags.check && flags.write) throw new FormatboxError('INVALID_REQUEST', '--check and --write exclude each other');
  return flags;
}

/**
 * The candidate nearest `typed` by edit distance, when near enough to be a typo (prettier's and
 * biome's "did you mean"): at most a third of its length, and at least one edit away.
 */
export function closest(typed: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(typed, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return bestDistance > 0 && bestDistance <= Math.max(1, Math.floor(typed.length / 3)) ? best : undefined;
}

/** Damerau-Levenshtein (optimal string alignment): a swapped pair of letters is one edit (`fromat`). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

function setFlag(flags: Flags, name: FlagName, value: string | number | true): void {
  switch (name) {
    case 'json': flags.json = true; break;
    case 'check': flags.check = true; break;
    case 'write': flags.write = true; break;
    case 'trusted': flags.trusted = true; break;
    case 'no-daemon': flags.noDaemon = true; break;
    case 'no-cache': flags.cache = false; break;
    case 'no-native': flags.native = false; break;
    case 'root': flags.root = value as string; break;
    case 'config': flags.config = value as string; break;
    case 'socket': flags.socket = value as string; break;
    case 'stdin-filepath': flags.stdinFilepath = value as string; break;
    case 'ignore-path': flags.ignorePaths.push(value as string); break;
    case 'threads': flags.threads = value as number; break;
    case 'http-port': flags.httpPort = value as number; break;
    case 'idle-ms': flags.idleMs = value as number; break;
    case 'list-different': flags.listDifferent = true; break;
    case 'ignore-unknown': flags.ignoreUnknown = true; break;
    case 'mode': flags.mode = value as 'project' | 'always'; break;
    case 'timeout-ms': flags.timeoutMs = value as number; break;
    case 'verbose': flags.verbose = true; break;
    case 'log-level': flags.logLevel = value as Flags['logLevel']; break;
    case 'no-color': flags.color = false; break;
    case 'offline': flags.offline = true; break;
  }
}

/** True when `format` is asked to read stdin (`--stdin-filepath`), which the full CLI handles, not the project-wide walk. */
export function hasStdinFilepath(args: readonly string[]): boolean {
  return args.some((arg) => arg.startsWith('--') && BY_SPELLING.get(arg.slice(2).split('=', 1)[0] as string) === 'stdin-filepath');
}

/** The "options for every command that formats" lines of the help, from the table. */
export function commonOptionsHelp(): string {
  const lines = ['options for every command that formats:'];
  for (const [name, row] of Object.entries(FLAG_TABLE) as Array<[FlagName, FlagRow]>) {
    if (!row.common) continue;
    const head = `  ${row.short ? `-${row.short}, ` : ''}--${name}${row.value ? ` ${row.value}` : ''}`.padEnd(20);
    const [first, ...more] = row.common.split('\n');
    lines.push(`${head}${first}`, ...more.map((line) => `${' '.repeat(20)}${line}`));
  }
  return lines.join('\n');
}
