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
  check: { kind: 'boolean' },
  write: { kind: 'boolean' },
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
}

const BY_SPELLING = new Map<string, FlagName>();
for (const [name, row] of Object.entries(FLAG_TABLE) as Array<[FlagName, FlagRow]>) {
  BY_SPELLING.set(name, name);
  for (const alias of row.aliases ?? []) BY_SPELLING.set(alias, name);
}

export interface ParseOptions {
  /** The command the flags are for (`format`, `hook`, …): flags only other commands take are unknown. */
  command?: string;
  /** `throw` (default): an unknown option is INVALID_REQUEST. `collect`: it goes to `unknown`. */
  unknown?: 'throw' | 'collect';
}

/** Parses `args` by the table. A missing or bad value is INVALID_REQUEST; `--check` with `--write` too. */
export function parseFlags(args: readonly string[], options: ParseOptions = {}): Flags {
  const flags: Flags = { positional: [], unknown: [], json: false, check: false, write: false, trusted: false, noDaemon: false, cache: true, native: true, ignorePaths: [] };
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
    const name = spelled === undefined ? undefined : BY_SPELLING.get(spelled);
    const row: FlagRow | undefined = name ? FLAG_TABLE[name] : undefined;
    if (!name || !row || (row.only && options.command !== undefined && !row.only.includes(options.command))) {
      if (options.unknown === 'collect') flags.unknown.push(arg);
      else throw new FormatboxError('INVALID_REQUEST', `unknown option ${arg.slice(0, equals === -1 ? undefined : equals)}${options.command ? ` for ${options.command}` : ''}`);
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
    } else setFlag(flags, name, value);
  }
  if (flags.check && flags.write) throw new FormatboxError('INVALID_REQUEST', '--check and --write exclude each other');
  return flags;
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
    const head = `  --${name}${row.value ? ` ${row.value}` : ''}`.padEnd(20);
    const [first, ...more] = row.common.split('\n');
    lines.push(`${head}${first}`, ...more.map((line) => `${' '.repeat(20)}${line}`));
  }
  return lines.join('\n');
}
