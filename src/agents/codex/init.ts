/**
 * `formatbox init codex`: the MCP server in Codex's config.toml (`~/.codex/config.toml`, or the
 * project's `.codex/config.toml`) with `default_tools_approval_mode = "approve"`, without which
 * Codex refuses MCP tool calls under its workspace-write sandbox, and a PostToolUse hook on Codex's
 * own apply_patch (`formatbox hook codex`), which Codex runs once the user has trusted it (`/hooks`).
 * TOML is edited as text (tables appended, or one key added under the existing table), so the
 * user's comments and layout stay.
 */
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { FormatboxError } from '../../core/errors.js';
import type { AgentInit } from '../module.js';
import { readText, type FileChange } from '../shared/config-files.js';
import type { InitOptions } from '../shared/init-types.js';

const APPROVAL = 'default_tools_approval_mode';

function configFile(options: Pick<InitOptions, 'home' | 'root'>, scope: 'user' | 'project', env: NodeJS.ProcessEnv = process.env): string {
  return scope === 'user' ? join(env.CODEX_HOME || join(options.home, '.codex'), 'config.toml') : join(options.root, '.codex', 'config.toml');
}

function parsed(path: string, text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    return parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new FormatboxError('INVALID_CONFIG', `${path} is not valid TOML (${(error as Error).message.split('\n')[0]}); fix it, then run init again`);
  }
}

function serverTable(value: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return (value?.mcp_servers as Record<string, Record<string, unknown>> | undefined)?.formatbox;
}

/** Whether a PostToolUse hook already runs `formatbox hook codex` (whatever the binary is called). */
function hasPatchHook(value: Record<string, unknown> | undefined): boolean {
  const groups = (value?.hooks as { PostToolUse?: Array<{ hooks?: Array<{ command?: unknown }> }> } | undefined)?.PostToolUse;
  return Array.isArray(groups) && groups.some((group) => group.hooks?.some((hook) => typeof hook.command === 'string' && /\bhook codex\b/.test(hook.command)));
}

/** Appends `block` after `text`, one blank line between them. */
function appended(text: string, block: string): string {
  return `${text}${text === '' || text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n'}${block}`;
}

const tomlString = (value: string) => JSON.stringify(value);

export const codexInit: AgentInit = {
  changes(options) {
    const path = configFile(options, options.scope);
    const before = readText(path);
    const value = parsed(path, before);
    const table = serverTable(value);
    const kept: string[] = [];
    let after = before ?? '';
    if (!table) {
      const command = tomlString(options.binArgv[0]!);
      const args = `[${[...options.binArgv.slice(1), 'mcp'].map(tomlString).join(', ')}]`;
      // required: Codex waits for the server before its first model request, so the tools are there from the start.
      after = appended(after, `[mcp_servers.formatbox]\ncommand = ${command}\nargs = ${args}\n${APPROVAL} = "approve"\nrequired = true\n`);
    } else if (table[APPROVAL] === undefined) {
      const header = /^\[mcp_servers\.(?:formatbox|"formatbox")\][^\n]*\n/m.exec(after);
      if (header) after = `${after.slice(0, header.index + header[0].length)}${APPROVAL} = "approve"\n${after.slice(header.index + header[0].length)}`;
      else kept.push(`mcp_servers.formatbox is defined inline; add ${APPROVAL} = "approve" to it yourself`);
    } else if (table[APPROVAL] !== 'approve') {
      kept.push(`mcp_servers.formatbox.${APPROVAL} is ${JSON.stringify(table[APPROVAL])}; left as it is (Codex then asks before each formatbox tool call)`);
    }
    if (!hasPatchHook(value)) {
      const hook = [...options.binArgv, 'hook', 'codex'].join(' ');
      after = appended(after, `[[hooks.PostToolUse]]\nmatcher = "^apply_patch$"\n[[hooks.PostToolUse.hooks]]\ntype = "command"\ncommand = ${tomlString(hook)}\n`);
    }
    const change: FileChange = { path, before, after, kept };
    return [change];
  },
  notes: (options) => [
    'Codex runs the apply_patch hook only once you trust it: open /hooks in Codex and trust "formatbox hook codex"',
    ...(options.scope === 'project' ? ['Codex reads a project .codex/config.toml only in a project you have trusted'] : []),
  ],
};

/** Where Codex is set up to use formatbox (`formatbox doctor`). */
export function detectCodex(options: Omit<InitOptions, 'scope'>): string[] {
  const found: string[] = [];
  for (const scope of ['user', 'project'] as const) {
    const path = configFile(options, scope);
    let value: Record<string, unknown> | undefined;
    let table: Record<string, unknown> | undefined;
    try {
      value = parsed(path, readText(path));
      table = serverTable(value);
    } catch (error) {
      found.push(`${path}: ${(error as Error).message}`);
      continue;
    }
    if (table) found.push(`${path}: the MCP server${table[APPROVAL] === 'approve' ? ', tools approved' : ` (no ${APPROVAL} = "approve": tool calls need approval)`}`);
    if (hasPatchHook(value)) found.push(`${path}: the apply_patch hook (Codex runs it once trusted in /hooks)`);
  }
  return found;
}
