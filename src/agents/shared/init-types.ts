/** The options every agent's `formatbox init` plans with (module.ts: AgentInit), and reading an agent's JSON config. */
import { parse } from 'jsonc-parser';
import { readText } from './config-files.js';

export interface InitOptions {
  scope: 'user' | 'project';
  home: string;
  /** The project root (the current directory's). */
  root: string;
  /** How the agent runs formatbox, as one command string and as argv (`formatbox`, or `node /path/cli.js`). */
  bin: string;
  binArgv: string[];
  /** Claude Code: the http hook's loopback port. */
  port?: number;
  /** Claude Code: the command hook instead of the http hook. */
  command: boolean;
  /** Claude Code: also the MCP server. */
  mcp: boolean;
  /** The http hook's secret (read or created only when a file needs it). */
  secret(): string;
}

/** A JSON(C) object read for detection; undefined when missing or not an object. */
export function readJson(path: string): Record<string, unknown> | undefined {
  const text = readText(path);
  if (text === undefined) return undefined;
  const value = parse(text, [], { allowTrailingComma: true }) as unknown;
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
