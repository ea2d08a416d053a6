/**
 * `formatbox mcp`: a Model Context Protocol server on stdio (mcp-server.ts), so any MCP-capable
 * agent (Claude Code, Codex, Cursor, opencode, Zed) gets format-aware edits without glue code.
 *
 * Tools use the argument names models already know from Claude Code and Codex: `edit {path,
 * old_string, new_string, replace_all?}`, `multi_edit {path, edits}`, `write {path, content}`,
 * `apply_patch {patch}`, `format {path}`, `doctor {}` (`file_path` is accepted for `path`, and
 * `input` for `patch`). Each answers with what is on disk now, bounded, as text and as structured
 * content (mcp-result.ts). The root is the client's first root (roots/list) when it offers roots,
 * else --root, else the project of the working directory; no path leaves it (the containment
 * rule, request-root.ts).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FormatboxError, isFormatboxError, messageOf } from '../core/errors.js';
import type { ToolInput } from '../core/types.js';
import type { RequestHandler } from '../node/service/requests.js';
import { shownText } from '../core/shown.js';
import { EXIT_CODE_BY_ERROR } from './exit-codes.js';
import { RECEIPT_OUTPUT_SCHEMA } from '../agents/shared/mcp-receipt.js';
import { McpServer, type CallToolResult, type ToolDefinition } from './mcp-server.js';
import { BoundedStdioServerTransport } from './mcp-stdio.js';
import { formatboxVersion } from '../node/version.js';

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
const INCLUDE_CONTENT = { type: 'boolean', description: 'Also return the whole file as it is on disk now (structured content `content`). Default false: the reply says what changed, bounded.' } as const;

const RECEIPT_OUTPUT = RECEIPT_OUTPUT_SCHEMA;
const PATCH_OUTPUT = {
  type: 'object',
  properties: { reconciled: { type: 'boolean' }, reason: { type: 'string' }, receipts: { type: 'array', items: RECEIPT_OUTPUT }, input: { type: 'object' }, ms: { type: 'number' } },
  required: ['reconciled', 'receipts'],
} as const;
const DOCTOR_OUTPUT = {
  type: 'object',
  properties: { root: { type: 'string' }, trust: { type: 'string' }, languages: { type: 'array' }, sandbox: { type: 'object' }, ignored: { type: 'array' } },
  required: ['root', 'languages'],
} as const;

/** The tools, as `tools/list` shows them. */
const MCP_TOOLS: readonly ToolDefinition[] = [
  {
    name: 'edit',
    description: 'Replace old_string with new_string in a file, then format the file. Returns what is on disk now (the edit as the formatter left it, and any other formatter changes).',
    inputSchema: { type: 'object', properties: { path: PATH, ...EDIT_ITEM.properties, includeContent: INCLUDE_CONTENT }, required: ['path', 'old_string', 'new_string'] },
    outputSchema: RECEIPT_OUTPUT,
  },
  {
    name: 'multi_edit',
    description: 'Several edits to one file, applied in order, then one format. Returns what is on disk now.',
    inputSchema: { type: 'object', properties: { path: PATH, edits: { type: 'array', items: EDIT_ITEM, minItems: 1 }, includeContent: INCLUDE_CONTENT }, required: ['path', 'edits'] },
    outputSchema: RECEIPT_OUTPUT,
  },
  {
    name: 'write',
    description: 'Create or overwrite a file with content, then format it. Returns what is on disk now.',
    inputSchema: { type: 'object', properties: { path: PATH, content: { type: 'string' }, includeContent: INCLUDE_CONTENT }, required: ['path', 'content'] },
    outputSchema: RECEIPT_OUTPUT,
  },
  {
    name: 'apply_patch',
    description: 'Apply a Codex-style patch (*** Begin Patch … *** End Patch), then format every file it touches.',
    inputSchema: { type: 'object', properties: { patch: { type: 'string', description: 'The patch text.' }, includeContent: INCLUDE_CONTENT }, required: ['patch'] },
    outputSchema: PATCH_OUTPUT,
  },
  {
    name: 'format',
    description: 'Format one file in place with the project’s formatter.',
    inputSchema: { type: 'object', properties: { path: PATH, includeContent: INCLUDE_CONTENT }, required: ['path'] },
    outputSchema: RECEIPT_OUTPUT,
  },
  {
    name: 'doctor',
    description: 'Which formatter each language would use in this project (or for files in `path`, a directory or file) and why; sandbox status; ignored config.',
    inputSchema: { type: 'object', properties: { path: { type: 'string', description: 'Optional: a directory or file; the answers are for files there (a monorepo package with its own config).' } } },
    outputSchema: DOCTOR_OUTPUT,
  },
] as const;

interface McpFlags {
  root?: string;
  config?: string;
  trusted: boolean;
}

/** Serves MCP on stdin/stdout until the client disconnects. */
export async function runMcp(flags: McpFlags): Promise<number> {
  // Nothing that formats is loaded before the first tool call (mcp-tools.ts): `initialize` and
  // `tools/list` need only the protocol (mcp-server.ts). A bad user config makes each tool call an error that says so.
  let handler: Promise<McpHandler> | undefined;
  const handlerNow = (): Promise<McpHandler> =>
    (handler ??= import('./mcp-tools.js').then((tools) => {
      const { config } = tools.loadUserConfig(flags.config);
      // Without --root or client roots: the working directory's project (the containment rule, request-root.ts).
      const requests = tools.createRequestHandler({ defaultRoot: resolve(flags.root ?? process.cwd()), findRoot: flags.root === undefined, ...(config ? { config } : {}), ...(flags.trusted ? { trust: 'trusted' as const } : {}) });
      return { requests, maxDiffChars: tools.resolveLimits(config).maxDiffChars };
    }));
  const fallbackRoot = flags.root !== undefined ? resolve(flags.root) : undefined;
  let clientRoots: string[] | undefined;

  const server: McpServer = new McpServer({
    info: { name: 'formatbox', version: formatboxVersion() },
    tools: MCP_TOOLS,
    oninitialized: () => void refreshRoots(),
    onRootsListChanged: () => void refreshRoots(),
    async callTool(name, args) {
      if (server.getClientCapabilities()?.roots && clientRoots === undefined) await refreshRoots();
      const root = clientRoots?.[0] ?? fallbackRoot;
      let ready: McpHandler;
      try {
        ready = await handlerNow();
      } catch (error) {
        handler = undefined; // the user config may be fixed before the next call
        return errorResult(error);
      }
      return callTool(ready, root, name, args);
    },
  });

  async function refreshRoots(): Promise<void> {
    if (!server.getClientCapabilities()?.roots) return;
    try {
      const { roots } = await server.listRoots();
      const paths = roots.map((r) => fileURLToPath(r.uri));
      clientRoots = paths.length > 0 ? paths : undefined;
    } catch (error) {
      process.stderr.write(`formatbox mcp: roots/list failed (${messageOf(error)}); using ${fallbackRoot ?? 'each file\'s project root'}\n`);
    }
  }

  // Bounded: a message over 10 MiB gets an error and the session goes on (mcp-stdio.ts).
  const transport = new BoundedStdioServerTransport();
  const closed = new Promise<void>((done) => {
    server.onclose = () => done();
    process.stdin.once('end', () => done());
  });
  await server.connect(transport);
  await closed;
  if (handler) await (await handler).requests.close();
  return 0;
}

interface McpHandler {
  requests: RequestHandler;
  /** The user config's, else the engine's default. */
  maxDiffChars?: number;
}

/** One tool call: the answer as text and as structured content (mcp-result.ts); errors as `isError` results. */
export async function callTool(handler: McpHandler, root: string | undefined, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  try {
    const request = requestFor(name, args, root);
    const [result, tools] = await Promise.all([handler.requests.handle(request), import('./mcp-tools.js')]);
    const sent = (request as { input?: ToolInput }).input;
    const reply = tools.mcpReply(name, sent, result, { maxDiffChars: handler.maxDiffChars ?? tools.DEFAULT_LIMITS.maxDiffChars, includeContent: args.includeContent === true });
    return { content: [{ type: 'text', text: shownText(reply.text, { multiline: true }) }], structuredContent: reply.structured };
  } catch (error) {
    return errorResult(error);
  }
}

function errorResult(error: unknown): CallToolResult {
  // Errors from the tools bundle (mcp-tools.ts) are its own copy of FormatboxError: go by the code.
  const code = isFormatboxError(error) ? error.code : typeof (error as { code?: unknown })?.code === 'string' && (error as { code: string }).code in EXIT_CODE_BY_ERROR ? (error as { code: string }).code : 'INTERNAL';
  return { isError: true, content: [{ type: 'text', text: shownText(`formatbox: ${messageOf(error)} (${code})`, { multiline: true }) }] };
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
