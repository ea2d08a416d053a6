/**
 * `formatbox init <agent> [--user|--project]`: parses the options, applies the changes the agent's
 * module plans (src/agents/<agent>/init.ts, found in src/agents/registry.ts), merged into its
 * existing config files, never replacing what the user set, and prints each change as a diff; a
 * second run changes nothing. `agentsSetUp` is what `formatbox doctor` shows.
 */
import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { AGENTS, agentNamed, detectAgents } from '../agents/registry.js';
import { applyChanges } from '../agents/shared/config-files.js';
import type { InitOptions } from '../agents/shared/init-types.js';
import { FormatboxError } from '../core/errors.js';
import { findProjectRoot } from '../node/project-root.js';
import { preparePrivateDir, daemonPaths } from './daemon-paths.js';
import { readOrCreateSecret } from './hook-secret.js';

const INIT_USAGE = `usage: formatbox init ${AGENTS.filter((agent) => agent.init).map((agent) => agent.name).join('|')} [--user|--project] [options]

Writes what the agent needs to use formatbox, merged into its config files (nothing the user set is
replaced; each change is shown as a diff; a second run changes nothing).
  --user         the user's config (default): ~/.claude, ~/.codex, ~/.config/opencode, ~/.cursor
  --project      this project's: .claude/, .codex/, opencode.json, .cursor/
  --dry-run      show the changes, write nothing
  --bin CMD      how the agent runs formatbox (default: formatbox, on PATH)
claude-code only:
  --command      the command hook (a process per edit) instead of the http hook
  --port N       the http hook's loopback port (default: per user, ${41_000}+uid%8000)
  --mcp          also the MCP server and the permission rule for its tools`;

function baseOptions(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Omit<InitOptions, 'scope'> {
  const root = findProjectRoot(resolve(cwd, 'x'), { cwd })?.root ?? cwd;
  return {
    home: env.HOME || homedir(),
    root,
    bin: 'formatbox',
    binArgv: ['formatbox'],
    command: false,
    mcp: false,
    secret: () => {
      const { dir } = daemonPaths(env);
      preparePrivateDir(dir);
      return readOrCreateSecret(dir);
    },
  };
}

export function runInit(args: string[], out: (text: string) => void = (t) => process.stdout.write(t)): number {
  const [agentName, ...rest] = args;
  const agent = agentNamed(agentName);
  const init = agent?.init;
  if (!agent || !init) throw new FormatboxError('INVALID_REQUEST', `${agentName === undefined ? 'name an agent' : `unknown agent ${JSON.stringify(agentName)}`}\n\n${INIT_USAGE}`);
  const options: InitOptions = { ...baseOptions(), scope: 'user' };
  let write = true;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const value = (): string => {
      const next = rest[++i];
      if (next === undefined) throw new FormatboxError('INVALID_REQUEST', `${arg} needs a value`);
      return next;
    };
    if (arg === '--user') options.scope = 'user';
    else if (arg === '--project') options.scope = 'project';
    else if (arg === '--dry-run') write = false;
    else if (arg === '--command') options.command = true;
    else if (arg === '--mcp') options.mcp = true;
    else if (arg === '--root') options.root = resolve(value());
    else if (arg === '--port') {
      options.port = Number(value());
      if (!Number.isInteger(options.port) || options.port < 1 || options.port > 65535) throw new FormatboxError('INVALID_REQUEST', '--port needs a port number');
    } else if (arg === '--bin') {
      options.bin = value();
      options.binArgv = options.bin.split(/\s+/).filter(Boolean);
      if (options.binArgv.length === 0) throw new FormatboxError('INVALID_REQUEST', '--bin needs a command');
    } else throw new FormatboxError('INVALID_REQUEST', `unknown option ${arg}\n\n${INIT_USAGE}`);
  }
  const changes = init.changes(options);
  const shown = applyChanges(changes, write);
  const changed = changes.filter((c) => c.before !== c.after);
  if (shown.length > 0) out(`${shown.join('\n')}\n`);
  out(changed.length === 0
    ? `${agent.name}: already set up (${options.scope}); nothing changed\n`
    : `${agent.name}: ${write ? 'wrote' : 'would write'} ${changed.map((c) => c.path).join(', ')}\n`);
  for (const note of init.notes(options)) out(`note: ${note}\n`);
  if (options.bin === 'formatbox' && !onPath('formatbox')) {
    out(`note: formatbox is not on PATH, so the agent cannot run it: npm install -g formatbox, or run init again with --bin "${process.execPath} ${process.argv[1] ?? 'path/to/dist/cli.js'}"\n`);
  }
  return 0;
}

function onPath(name: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Per agent, where it is set up to use formatbox (empty: not set up). */
export function agentsSetUp(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Array<{ agent: string; setup: string[] }> {
  return detectAgents(baseOptions(env, cwd));
}
