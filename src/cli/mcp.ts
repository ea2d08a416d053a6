/**
 * `formatbox mcp`: a Model Context Protocol server on stdio (the official SDK), so any MCP-capable
 * agent (Claude Code, Codex, Cursor, opencode, Zed) gets format-aware edits without glue code.
 *
 * Tools use the argument names models already know from Claude Code and Codex: `edit {path,
 * old_string, new_string, replace_all?}`, `multi_edit {path, edits}`, `write {path, content}`,
 * `apply_patch {patch}`, `format {path}`, `doctor {}` (`file_path` is accepted for `path`, and
 * `input` for `patch`). Each returns the receipt's note as text and the whole receipt as
 * structured content. The root is the client's first root (roots/list) when it offers roots,
 * else --root, else each file's project root (request-root.ts); every path is contained in it as
 * in the runtime.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, RootsListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FormatboxError, isFormatboxError, messageOf } from '../core/errors.js';
import type { Receipt } from '../core/types.js';
import type { DoctorReport } from '../node/index.js';
import type { PatchReceipt } from '../reconcile/index.js';
import { createRequestHandler, type RequestHandler } from './requests.js';
import { loadUserConfig } from './user-config.js';
import { formatboxVersion } from './version.js';

const PATH = { type: 'string', description: 'File path, relative to the project root (or absolute inside it).' } as const;
const EDIT_ITEM = {
  type: 'object',
  properties: {
    old_string: { type: 'string', description: 'The exact text to replace.' },
    new_string: { type: 'string', description: 'The text to replace it with.' },
    replace_all: { type: 'boolean', description: 'Replace every occurrence (default false: old_string must occur once).' },
  },
  required: ['old_string', 'new_string'],
} as const;

/** The tools, as `tools/list` shows them. */
export const MCP_TOOLS = [
  {
    name: 'edit',
    description: 'Replace old_string with new_string in a file, then format the file. Returns what is on disk now (the edit as the formatter left it, and any other formatter changes).',
    inputSchema: { type: 'object', properties: { path: PATH, ...EDIT_ITEM.properties }, required: ['path', 'old_string', 'new_string'] },
  },
  {
    name: 'multi_edit',
    description: 'Several edits to one file, applied in order, then one format. Returns what is on disk now.',
    inputSchema: { type: 'object', properties: { path: PATH, edits: { type: 'array', items: EDIT_ITEM, minItems: 1 } }, required: ['path', 'edits'] },
  },
  {
    name: 'write',
    description: 'Create or overwrite a file with content, then format it. Returns what is on disk now.',
    inputSchema: { type: 'object', properties: { path: PATH, content: { type: 'string' } }, required: ['path', 'content'] },
  },
  {
    name: 'apply_patch',
    description: 'Apply a Codex-style patch (*** Begin Patch … *** End Patch), then format every file it touches.',
    inputSchema: { type: 'object', properties: { patch: { type: 'string', description: 'The patch text.' } }, required: ['patch'] },
  },
  {
    name: 'format',
    description: 'Format one file in place with the project’s formatter.',
    inputSchema: { type: 'object', properties: { path: PATH }, required: ['path'] },
  },
  {
    name: 'doctor',
    description: 'Which formatter each language would use in this project (or for files in `path`, a directory or file) and why; sandbox status; ignored config.',
    inputSchema: { type: 'object', properties: { path: { type: 'string', description: 'Optional: a directory or file; the answers are for files there (a monorepo package with its own config).' } } },
  },
] as const;

export interface McpFlags {
  root?: string;
  config?: string;
  trusted: boolean;
}

/** Serves MCP on stdin/stdout until the client disconnects. */
export async function runMcp(flags: McpFlags): Promise<number> {
  const { config } = loadUserConfig(flags.config);
  // Without --root or client roots, each tool call runs in its file's project root (request-root.ts).
  const handler = createRequestHandler({ defaultRoot: resolve(flags.root ?? process.cwd()), findRoot: flags.root === undefined, ...(config ? { config } : {}), ...(flags.trusted ? { trust: 'trusted' as const } : {}) });
  const server = new Server({ name: 'formatbox', version: formatboxVersion() }, { capabilities: { tools: {} } });
  const fallbackRoot = flags.root !== undefined ? resolve(flags.root) : undefined;
  let clientRoots: string[] | undefined;

  async function refreshRoots(): Promise<void> {
    if (!server.getClientCapabilities()?.roots) return;
    try {
      const { roots } = await server.listRoots();
      const paths = roots.filter((r) => r.uri.startsWith('file://')).map((r) => fileURLToPath(r.uri));
      clientRoots = paths.length > 0 ? paths : undefined;
    } catch (error) {
      process.stderr.write(`formatbox mcp: roots/list failed (${messageOf(error)}); using ${fallbackRoot ?? 'each file\'s project root'}\n`);
    }
  }
  server.oninitialized = () => void refreshRoots();
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => refreshRoots());
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: MCP_TOOLS.map((tool) => ({ ...tool })) as never }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (server.getClientCapabilities()?.roots && clientRoots === undefined) await refreshRoots();
    const root = clientRoots?.[0] ?? fallbackRoot;
    return callTool(handler, root, request.params.name, (request.params.arguments ?? {}) as Record<string, unknown>);
  });

  const transport = new StdioServerTransport();
  const closed = new Promise<void>((done) => {
    server.onclose = () => done();
    process.stdin.once('end', () => done());
  });
  await server.connect(transport);
  await closed;
  await handler.close();
  return 0;
}

/** One tool call: the receipt's note as text, the receipt as structured content; errors as `isError` results. */
export async function callTool(handler: RequestHandler, root: string | undefined, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  try {
    const request = requestFor(name, args, root);
    const result = await handler.handle(request);
    return { content: [{ type: 'text', text: textOf(name, result) }], structuredContent: result as unknown as Record<string, unknown> };
  } catch (error) {
    const code = isFormatboxError(error) ? error.code : 'INTERNAL';
    return { isError: true, content: [{ type: 'text', text: `formatbox: ${messageOf(error)} (${code})` }] };
  }
}

function requestFor(name: string, args: Record<string, unknown>, given: string | undefined): unknown {
  const root = given !== undefined ? { root: given } : {};
  const path = (args.path ?? args.file_path) as string | undefined;
  const edit = (e: Record<string, unknown>) => {
    if (typeof e.old_string !== 'string' || typeof e.new_string !== 'string') throw new FormatboxError('INVALID_REQUEST', 'each edit needs old_string and new_string (strings)');
    return { oldText: e.old_string, newText: e.new_string, ...(e.replace_all === true ? { replaceAll: true } : {}) };
  };
  switch (name) {
    case 'edit':
      return { ...root, path, input: edit(args) };
    case 'multi_edit':
      if (!Array.isArray(args.edits) || args.edits.length === 0) throw new FormatboxError('INVALID_REQUEST', 'multi_edit needs edits: [{old_string, new_string, replace_all?}, …]');
      return { ...root, path, input: { edits: args.edits.map((e) => edit((e ?? {}) as Record<string, unknown>)) } };
    case 'write':
      if (typeof args.content !== 'string') throw new FormatboxError('INVALID_REQUEST', 'write needs content (a string)');
      return { ...root, path, input: { content: args.content } };
    case 'apply_patch': {
      const patch = args.patch ?? args.input;
      if (typeof patch !== 'string') throw new FormatboxError('INVALID_REQUEST', 'apply_patch needs patch (a string)');
      return { ...root, input: { patch } };
    }
    case 'format':
      return { ...root, method: 'format', path };
    case 'doctor':
      return { ...root, method: 'doctor', ...(typeof path === 'string' && path !== '' ? { path } : {}) };
    default:
      throw new FormatboxError('INVALID_REQUEST', `unknown tool ${JSON.stringify(name)}`);
  }
}

function textOf(name: string, result: unknown): string {
  if (name === 'doctor') {
    const report = result as DoctorReport;
    return report.languages.map((l) => `${l.language}: ${l.formatter ? `${l.formatter} (${l.because ?? ''})` : `not formatted (${l.skipped ?? ''})`}`).join('\n');
  }
  const receipt = result as Receipt | PatchReceipt;
  const line = 'line' in receipt ? receipt.line : receipt.receipts.map((r) => r.line).join('\n');
  return receipt.note ? `${line}\n${receipt.note}` : line;
}
