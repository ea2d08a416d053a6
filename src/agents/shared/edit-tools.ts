/**
 * Edit tools formatbox owns, for agent SDKs that take tools from the host (AI SDK, OpenAI Agents):
 * `edit`, `write` and `apply_patch`, with the argument names models know from Claude Code and Codex
 * (as `formatbox mcp`'s tools), each answering with what is on disk now: the receipt line, the edit
 * as the formatter left it, other changes as a diff or a reread hint, bounded (mcp-result.ts).
 *
 * They run over an `EditBackend`: in Node, `createRuntime(...)` from `formatbox/node` is one; where
 * there is no file system (workerd, a browser), `portBackend({engine, files})` is one over the
 * universal engine and a file port the caller supplies. Universal: no `node:` import here.
 */
import { FormatboxError, isFormatboxError, messageOf } from '../../core/errors.js';
import { shownText } from '../../core/shown.js';
import type { ApplyPatchInput, EditInput, Receipt, SingleFileInput, ToolInput } from '../../core/types.js';
import type { Engine } from '../../engine/engine.js';
import type { PatchReceipt } from '../../reconcile/index.js';
import { applyInput, applyParsedPatch, finalStates, parsePatch } from '../../tools/index.js';
import { mcpReply } from './mcp-result.js';
import { DEFAULT_LIMITS } from '../../config/limits.js';

/** What the tools need: each call performs the edit, formats, and returns receipts (a Node `Runtime` is one). */
export interface EditBackend {
  edit(request: EditInput & { path: string }): Promise<Receipt>;
  write(request: { path: string; content: string }): Promise<Receipt>;
  applyPatch(request: ApplyPatchInput): Promise<PatchReceipt>;
}

/**
 * The caller's files, by project-relative POSIX path (a Durable Object's storage, R2, an in-memory
 * map). `read` gives null for a file that does not exist. `remove` is needed only for patches that
 * delete or move files.
 */
export interface FilePort {
  read(path: string): Promise<string | null>;
  write(path: string, text: string): Promise<void>;
  remove?(path: string): Promise<void>;
}

export type EditToolName = 'edit' | 'write' | 'apply_patch';

/** Each tool's description and JSON Schema for its arguments (the names `formatbox mcp` uses). */
export const EDIT_TOOL_SPECS: Readonly<Record<EditToolName, { description: string; parameters: Record<string, unknown> }>> = {
  edit: {
    description: 'Replace old_string with new_string in a file, then format the file. Returns what is on disk now (the edit as the formatter left it, and any other formatter changes).',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the project root.' },
        old_string: { type: 'string', description: 'The exact text to replace.' },
        new_string: { type: 'string', description: 'The text to replace it with.' },
        replace_all: { type: 'boolean', description: 'Replace every occurrence (default false: old_string must occur once).' },
      },
      required: ['path', 'old_string', 'new_string'],
      additionalProperties: false,
    },
  },
  write: {
    description: 'Create or overwrite a file with content, then format it. Returns what is on disk now.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'File path, relative to the project root.' }, content: { type: 'string' } },
      required: ['path', 'content'],
      additionalProperties: false,
    },
  },
  apply_patch: {
    description: 'Apply a patch (*** Begin Patch … *** End Patch, or a unified diff), then format every file it touches. Returns what is on disk now.',
    parameters: {
      type: 'object',
      properties: { patch: { type: 'string', description: 'The patch text.' } },
      required: ['patch'],
      additionalProperties: false,
    },
  },
};

export interface EditToolResult {
  /** What the model is told: the receipt line and what is on disk now, bounded; or the error, in one line. */
  text: string;
  isError: boolean;
  /** The receipt(s), for the host (not shown to the model). */
  receipt?: Receipt | PatchReceipt;
}

/** Runs one tool call. Never throws: a refused or failed call is an `isError` result naming why. */
export async function runEditTool(backend: EditBackend, name: EditToolName, args: unknown, options: { maxDiffChars?: number } = {}): Promise<EditToolResult> {
  const maxDiffChars = options.maxDiffChars ?? DEFAULT_LIMITS.maxDiffChars;
  try {
    const input = toolInputOf(name, args);
    const receipt = 'patch' in input
      ? await backend.applyPatch(input)
      : 'content' in input
        ? await backend.write({ path: pathOf(args), content: input.content })
        : await backend.edit({ path: pathOf(args), ...(input as EditInput) });
    const text = mcpReply(name, input, receipt, { maxDiffChars, includeContent: false }).text;
    return { text: shownText(text, { multiline: true }), isError: false, receipt };
  } catch (error) {
    const code = isFormatboxError(error) ? error.code : 'INTERNAL';
    return { text: shownText(`formatbox: ${messageOf(error)} (${code})`, { multiline: true }).slice(0, 2000), isError: true };
  }
}

function pathOf(args: unknown): string {
  const raw = args as Record<string, unknown>;
  const path = raw.path ?? raw.file_path;
  if (typeof path !== 'string' || path === '') throw new FormatboxError('INVALID_REQUEST', 'path must be a non-empty string');
  return path;
}

/** The model's arguments in formatbox's shape; checked, since a model's arguments are untrusted. */
function toolInputOf(name: EditToolName, args: unknown): ToolInput {
  if (typeof args !== 'object' || args === null) throw new FormatboxError('INVALID_REQUEST', `${name} needs an object of arguments`);
  const raw = args as Record<string, unknown>;
  if (name === 'apply_patch') {
    const patch = raw.patch ?? raw.input;
    if (typeof patch !== 'string') throw new FormatboxError('INVALID_REQUEST', 'apply_patch needs patch (a string)');
    return { patch };
  }
  if (name === 'write') {
    if (typeof raw.content !== 'string') throw new FormatboxError('INVALID_REQUEST', 'write needs content (a string)');
    return { content: raw.content };
  }
  if (typeof raw.old_string !== 'string' || typeof raw.new_string !== 'string') throw new FormatboxError('INVALID_REQUEST', 'edit needs old_string and new_string (strings)');
  return { oldText: raw.old_string, newText: raw.new_string, ...(raw.replace_all === true ? { replaceAll: true } : {}) };
}

/**
 * A project path as the port knows it: relative, POSIX, no `.` or `..` segment, no NUL. Anything
 * else is refused: the port is the project, and a model's path is untrusted.
 */
export function portPath(path: string): string {
  const parts = path.replace(/^\.\//, '').split('/');
  if (path === '' || path.includes('\0') || path.includes('\\') || path.startsWith('/') || parts.some((part) => part === '' || part === '.' || part === '..')) {
    throw new FormatboxError('PATH_REFUSED', `${JSON.stringify(path)} is not a path inside the project (relative, without . or .. segments)`);
  }
  return parts.join('/');
}

/**
 * The tools' backend over the universal engine and the caller's files: read P, apply the input,
 * format and reconcile (engine.afterEdit), write F. A patch is all or nothing: every file is read
 * and every operation checked before anything is written.
 */
export function portBackend(options: { engine: Engine; files: FilePort }): EditBackend {
  const { engine, files } = options;
  const single = async (path: string, input: SingleFileInput): Promise<Receipt> => {
    const at = portPath(path);
    const prior = await files.read(at);
    if (prior === null && !('content' in input)) throw new FormatboxError('FILE_NOT_FOUND', `${at} does not exist`);
    const written = applyInput(prior ?? '', input);
    const receipt = await engine.afterEdit({ path: at, prior, input, written });
    await files.write(at, receipt.content);
    return receipt;
  };
  return {
    edit: ({ path, ...edit }) => single(path, edit),
    write: ({ path, content }) => single(path, { content }),
    async applyPatch(request) {
      const parsed = parsePatch(request.patch);
      const named = [...new Set(parsed.files.flatMap((file) => (file.kind === 'update' && file.moveTo ? [file.path, file.moveTo] : [file.path])))];
      for (const path of named) portPath(path);
      const priors = new Map<string, string | null>();
      for (const path of named) priors.set(path, await files.read(path));
      const patched = applyParsedPatch(parsed, (path) => priors.get(path) ?? undefined);
      const final = finalStates(patched);
      if ([...final.values()].includes(null) && !files.remove) throw new FormatboxError('INVALID_REQUEST', 'this file port cannot delete files (no remove), and the patch deletes or moves one');
      const result = await engine.afterEdit({
        path: patched[0]?.finalPath ?? '',
        prior: Object.fromEntries(priors),
        input: request,
        written: Object.fromEntries(final),
      });
      const formatted = new Map(result.receipts.map((receipt) => [receipt.path, receipt.content]));
      for (const [path, content] of final) {
        if (content === null) await files.remove!(path);
        else await files.write(path, formatted.get(path) ?? content);
      }
      return result;
    },
  };
}
