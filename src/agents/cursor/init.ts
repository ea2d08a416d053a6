/** `formatbox init cursor`: the MCP server in Cursor's `.cursor/mcp.json` (project) or `~/.cursor/mcp.json` (user). */
import { join } from 'node:path';
import type { AgentInit } from '../module.js';
import { jsonChange } from '../shared/config-files.js';
import { readJson, type InitOptions } from '../shared/init-types.js';

const configFile = (options: Pick<InitOptions, 'home' | 'root'>, scope: 'user' | 'project') => join(scope === 'user' ? options.home : options.root, '.cursor', 'mcp.json');

export const cursorInit: AgentInit = {
  changes: (options) => [jsonChange(configFile(options, options.scope), (doc) => doc.ensure(['mcpServers', 'formatbox'], { command: options.binArgv[0], args: [...options.binArgv.slice(1), 'mcp'] }, 'mcpServers.formatbox'))],
  notes: () => ['Cursor asks once to enable a new MCP server (Settings → MCP)'],
};

/** Where Cursor is set up to use formatbox (`formatbox doctor`). */
export function detectCursor(options: Omit<InitOptions, 'scope'>): string[] {
  return (['user', 'project'] as const).map((scope) => configFile(options, scope)).filter((path) => (readJson(path)?.mcpServers as Record<string, unknown> | undefined)?.formatbox).map((path) => `${path}: the MCP server`);
}
