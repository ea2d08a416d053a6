/** The CLI's common flags (`--root`, `--config`, `--json`, …), parsed once for every command. */
import { FormatboxError } from '../core/errors.js';

export interface Flags {
  positional: string[];
  json: boolean;
  check: boolean;
  write: boolean;
  trusted: boolean;
  root?: string;
  config?: string;
  socket?: string;
  stdinFilepath?: string;
  idleMs?: number;
  /** `hook claude-code` on SessionStart: the http hook's loopback port. */
  httpPort?: number;
}

export function parseFlags(args: string[]): Flags {
  const flags: Flags = { positional: [], json: false, check: false, write: false, trusted: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const value = (): string => {
      const next = args[++i];
      if (next === undefined) throw new FormatboxError('INVALID_REQUEST', `${arg} needs a value`);
      return next;
    };
    if (arg === '--json') flags.json = true;
    else if (arg === '--check') flags.check = true;
    else if (arg === '--write') flags.write = true;
    else if (arg === '--trusted') flags.trusted = true;
    else if (arg === '--root') flags.root = value();
    else if (arg === '--config') flags.config = value();
    else if (arg === '--socket') flags.socket = value();
    else if (arg === '--no-daemon') continue;
    else if (arg === '--stdin-filepath' || arg === '--stdin-file-path') flags.stdinFilepath = value();
    else if (arg.startsWith('--stdin-filepath=') || arg.startsWith('--stdin-file-path=')) flags.stdinFilepath = arg.slice(arg.indexOf('=') + 1);
    else if (arg === '--idle-ms') flags.idleMs = Number(value());
    else if (arg === '--http-port') flags.httpPort = Number(value());
    else if (arg.startsWith('--socket=')) flags.socket = arg.slice('--socket='.length);
    else if (arg.startsWith('--root=')) flags.root = arg.slice('--root='.length);
    else if (arg.startsWith('--config=')) flags.config = arg.slice('--config='.length);
    else if (arg.startsWith('-') && arg !== '-') throw new FormatboxError('INVALID_REQUEST', `unknown option ${arg}`);
    else flags.positional.push(arg);
  }
  if (flags.check && flags.write) throw new FormatboxError('INVALID_REQUEST', '--check and --write exclude each other');
  return flags;
}

/** True when `format` is asked to read stdin (`--stdin-filepath`), which the full CLI handles, not the project-wide walk. */
export function hasStdinFilepath(args: readonly string[]): boolean {
  return args.some((arg) => /^--stdin-file-?path(=|$)/.test(arg));
}
