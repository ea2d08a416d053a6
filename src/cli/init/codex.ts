/**
 * `formatbox init codex`: the MCP server in Codex's config.toml (`~/.codex/config.toml`, or the
 * project's `.codex/config.toml`) with `default_tools_approval_mode = "approve"`, without which
 * Codex refuses MCP tool calls under its workspace-write sandbox. TOML is edited as text (a table
 * appended, or one key added under the existing table), so the user's comments and layout stay.
 */
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { FormatboxError } from '../../core/errors.js';
import { readText, type FileChange } from './files.js';
import type { AgentSetup, InitOptions } from './types.js';

const APPROVAL = 'default_tools_approval_mode';

function configFile(options: Pick<InitOptions, 'home' | 'root'>, scope: 'user' | 'project', env: NodeJS.ProcessEnv = process.env): string {
  return scope === 'user' ? join(env.CODEX_HOME || join(options.home, '.codex'), 'config.toml') : join(options.root, '.codex', 'config.toml');
}

function serverTable(path: string, text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: Record<string, unknown>;
  try {
    value = parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new FormatboxError('INVALID_CONFIG', `${path} is not valid TOML (${(error as Error).message.split('\n')[0]}); fix it, then run init again`);
  }
  return (value.mcp_servers as Record<string, Record<string, unknown>> | undefined)?.formatbox;
}

const tomlString = (value: string) => JSON.stringify(value);

export const codex: AgentSetup = {
  name: 'codex',
  changes(options) {
    const path = configFile(options, options.scope);
    const before = readText(path);
    const table = serverTable(path, before);
    const kept: string[] = [];
    let after = before ?? '';
    if (!table) {
      const command = tomlString(options.binArgv[0]!);
      const args = `[${[...options.binArgv.slice(1), 'mcp'].map(tomlString).join(', ')}]`;
      after = `${after}${after === '' || after.endsWith('\n\n') ? '' : after.endsWith('\n') ? '\n' : '\n\n'}[mcp_servers.formatbox]\ncommand = ${command}\nargs = ${args}\n${APPROVAL} = "approve"\n`;
    } else if (table[APPROVAL] === undefined) {
      const header = /^\[mcp_servers\.(?:formatbox|"formatbox")\][^\n]*\n/m.exec(after);
      if (header) after = `${after.slice(0, header.index + header[0].length)}${APPROVAL} = "approve"\n${after.slice(header.index + header[0].length)}`;
      else kept.push(`mcp_servers.formatbox is defined inline; add ${APPROVAL} = "approve" to it yourself`);
    } else if (table[APPROVAL] !== 'approve') {
      kept.push(`mcp_servers.formatbox.${APPROVAL} is ${JSON.stringify(table[APPROVAL])}; left as it is (Codex then asks before each formatbox tool call)`);
    }
    const change: FileChange = { path, before, after, kept };
    return [change];
  },
  notes: (options) => (options.scope === 'project' ? ['Codex reads a project .codex/config.toml only in a project you have trusted'] : []),
  detect(options) {
    const found: string[] = [];
    for (const scope of ['user', 'project'] as const) {
      const path = configFile(options, scope);
      let table: Record<string, unknown> | undefined;
      try {
        table = serverTable(path, readText(path));
      } catch (error) {
        found.push(`${path}: ${(error as Error).message}`);
        continue;
      }
      if (table) found.push(`${path}: the MCP server${table[APPROVAL] === 'approve' ? ', tools approved' : ` (no ${APPROVAL} = "approve": tool calls need approval)`}`);
    }
    return found;
  },
};
