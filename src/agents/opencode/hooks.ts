/**
 * formatbox inside opencode: the two tool hooks of opencode's plugin API (`@opencode-ai/plugin`).
 *
 * opencode's `edit`, `write` and `apply_patch` tools write the file themselves. `tool.execute.before`
 * records each file the call will touch as it is then (P); `tool.execute.after`, paired with it by
 * the call id, formats what the tool wrote (W) in-process, reconciles against P, and appends to the
 * tool's output what the model must know to copy text that is really on disk: the receipt line, each
 * edit's new text as the formatter left it (delimited as the Claude Code hook does), and a bounded
 * diff or a reread hint. Nothing is appended when the formatter changed nothing. A hook never fails
 * the tool: every problem becomes one short line after the tool's own output.
 *
 * Before the write: for `edit` and `write`, `tool.execute.before` formats first. It computes F (the
 * file as the edit and the formatter would leave it, nothing written) and rewrites the call's
 * `args` in place so that opencode's own tool writes F (shared/before-write.ts, verified against F).
 * opencode puts the rewritten arguments into the transcript as the model's own call, so the model
 * already sees the text on disk: `tool.execute.after` then adds nothing when the file is F. Where
 * no verified rewrite exists (a failure, a CRLF or BOM file, a patch) the call goes through as sent
 * and is formatted after the write, as above. opencode asks its permissions inside the tool, after
 * this hook, so the user approves the rewritten edit: nothing is granted on the user's behalf.
 *
 * The shapes below are the parts of opencode's `Hooks` these hooks use (@opencode-ai/plugin 1.18).
 */
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { resolveLimits } from '../../config/limits.js';
import { messageOf } from '../../core/errors.js';
import { shownPath } from '../../core/shown.js';
import type { EditInput, Receipt, SingleFileInput } from '../../core/types.js';
import { findProjectRoot } from '../../node/project-root.js';
import type { RequestHandler } from '../../node/service/requests.js';
import { applyInput } from '../../tools/index.js';
import { writtenPathsOfPatch } from '../../tools/patch/paths.js';
import { rewrittenInput } from '../shared/before-write.js';
import { contextFor } from '../shared/context.js';

/** `tool.execute.before`/`after`'s first argument. */
interface OpencodeToolCall {
  tool: string;
  sessionID: string;
  callID: string;
  args?: unknown;
}

/** `tool.execute.after`'s second argument: `output` is what the model is sent. */
interface OpencodeToolResult {
  title?: string;
  output: string;
  metadata?: unknown;
}

export interface OpencodeHooks {
  'tool.execute.before': (call: OpencodeToolCall, output: { args: unknown }) => Promise<void>;
  'tool.execute.after': (call: OpencodeToolCall, result: OpencodeToolResult) => Promise<void>;
}

interface OpencodeHookOptions {
  /** opencode's project directory (the plugin input's `directory`): files outside it are left alone. */
  directory: string;
  handler: RequestHandler;
  /** The budget for everything after the receipt lines, shared by the files of one call. */
  maxDiffChars?: number;
  /** A file larger than this is not recorded (and so not reconciled) before the tool runs. */
  maxInputBytes?: number;
  /** Format edit and write calls before the write (default true); false: only after it. */
  beforeWrite?: boolean;
}

/** The tools whose writes formatbox formats (opencode 1.18 has no multiedit). */
const TOOLS = new Set(['edit', 'write', 'apply_patch']);
/** Calls recorded and not yet finished, kept at most (a call whose after-hook never came is dropped). */
const MAX_PENDING_CALLS = 64;
/** Longest line appended for a problem. */
const MAX_LINE_CHARS = 500;

/** One file a call touches: its path, its text before the call (null: it did not exist), and the tool input for it. */
interface TouchedFile {
  absolute: string;
  prior: string | null | undefined;
  /** Why it is not formatted, when that is known before the tool runs. */
  skip?: string;
  /** F, when the call's args were rewritten to write it: a file found so needs no note. */
  final?: string;
}

export function createOpencodeHooks(options: OpencodeHookOptions): OpencodeHooks {
  const { maxDiffChars: budget, maxInputBytes } = resolveLimits(undefined, { maxDiffChars: options.maxDiffChars, maxInputBytes: options.maxInputBytes });
  const pending = new Map<string, TouchedFile[]>();

  function readPrior(absolute: string): { prior: string | null | undefined; skip?: string } {
    try {
      const size = statSync(absolute).size;
      if (size > maxInputBytes) return { prior: undefined, skip: `${size} bytes > ${maxInputBytes}` };
      return { prior: readFileSync(absolute, 'utf8') };
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { prior: null } : { prior: undefined };
    }
  }

  return {
    async 'tool.execute.before'(call, output) {
      try {
        if (!TOOLS.has(call.tool)) return;
        const paths = pathsOf(call.tool, output.args);
        if (paths.length === 0) return;
        const files = paths.map((path) => {
          const absolute = resolve(options.directory, path);
          return { absolute, ...readPrior(absolute) };
        });
        pending.set(call.callID, files);
        while (pending.size > MAX_PENDING_CALLS) pending.delete(pending.keys().next().value as string);
        if (options.beforeWrite !== false && files.length === 1 && (call.tool === 'edit' || call.tool === 'write')) {
          await rewriteBeforeWrite(call.tool, output.args as Record<string, unknown>, files[0]!);
        }
      } catch {
        // Recording is best effort: without P the after-hook formats W as it is.
      }
    },

    async 'tool.execute.after'(call, result) {
      if (!TOOLS.has(call.tool) || typeof result?.output !== 'string') return;
      const files = pending.get(call.callID);
      pending.delete(call.callID);
      if (!files) return;
      const perFile = Math.floor(budget / files.length);
      const notes: string[] = [];
      for (const file of files) {
        // Anything unforeseen is one line too: the tool's result must reach the model.
        const note = await noteFor(call, file, perFile).catch((error: unknown) => clip(`formatbox: not formatted: ${messageOf(error)}`, MAX_LINE_CHARS));
        if (note) notes.push(note);
      }
      if (notes.length > 0) result.output = `${result.output.replace(/\n+$/, '')}\n\n${notes.join('\n\n')}`;
    },
  };

  /**
   * Rewrites `args` (opencode's edit `{filePath, oldString, newString, replaceAll?}` or write
   * `{filePath, content}`) to write F, when a verified rewrite exists; records F in `file`.
   */
  async function rewriteBeforeWrite(tool: 'edit' | 'write', args: Record<string, unknown>, file: TouchedFile): Promise<void> {
    const { prior } = file;
    if (prior === undefined || file.skip || (prior !== null && (prior.includes('\r') || prior.startsWith('\uFEFF')))) return;
    const found = findProjectRoot(file.absolute, { projectDir: options.directory });
    if (!found) return;
    let input: SingleFileInput;
    if (tool === 'write') {
      if (typeof args.content !== 'string') return;
      input = { content: args.content };
    } else {
      if (prior === null || typeof args.oldString !== 'string' || args.oldString === '' || typeof args.newString !== 'string') return;
      input = { oldText: args.oldString, newText: args.newString, ...(args.replaceAll === true ? { replaceAll: true } : {}) };
    }
    let receipt: Receipt;
    try {
      receipt = (await options.handler.handle({ root: found.root, method: 'beforeWrite', path: found.path, input })) as Receipt;
    } catch {
      return; // Written as sent; the after-hook formats it, or says why not.
    }
    if (receipt.content.includes('\r')) return;
    const rewritten = rewrittenInput(prior, input, receipt);
    if (!rewritten) return;
    if ('content' in rewritten) args.content = rewritten.content;
    else {
      const edit = rewritten as EditInput;
      args.oldString = edit.oldText;
      args.newString = edit.newText;
      if (edit.replaceAll) args.replaceAll = true;
      else delete args.replaceAll;
    }
    file.final = receipt.content;
  }

  async function noteFor(call: OpencodeToolCall, file: TouchedFile, fileBudget: number): Promise<string | undefined> {
    const found = findProjectRoot(file.absolute, { projectDir: options.directory });
    if (!found) return undefined; // Outside opencode's project: not ours to format.
    if (file.skip) return clip(`formatbox: ${shownPath(found.path)} was not formatted: too large (${file.skip})`, MAX_LINE_CHARS);
    let written: string;
    try {
      written = readFileSync(join(found.root, ...found.path.split('/')), 'utf8');
    } catch {
      return undefined; // Deleted or moved away by the tool: nothing to format.
    }
    // Written as rewritten before the write: the transcript's call already shows this text.
    if (file.final !== undefined && written === file.final) return undefined;
    const input = inputFor(call.tool, call.args, file.prior, written);
    try {
      const receipt = (file.prior === undefined
        ? await options.handler.handle({ root: found.root, method: 'format', path: found.path })
        : await options.handler.handle({ root: found.root, path: found.path, input, prior: file.prior })) as Receipt;
      return contextFor(receipt, input, written, file.prior, found.path, fileBudget, 'newString');
    } catch (error) {
      return clip(`formatbox: ${shownPath(found.path)} was not formatted: ${messageOf(error)}`, MAX_LINE_CHARS);
    }
  }
}

/** The files a call will touch, as the model named them (relative to the project directory, or absolute). */
export function pathsOf(tool: string, args: unknown): string[] {
  if (!args || typeof args !== 'object') return [];
  const raw = args as Record<string, unknown>;
  if (tool === 'edit' || tool === 'write') return typeof raw.filePath === 'string' && usablePath(raw.filePath) ? [raw.filePath] : [];
  return tool === 'apply_patch' && typeof raw.patchText === 'string' ? writtenPathsOfPatch(raw.patchText) : [];
}

function usablePath(path: string): boolean {
  return path !== '' && !path.includes('\0');
}

/**
 * The input formatbox reconciles against: the edit as the model sent it when it replays P to W
 * exactly; otherwise (a patch, opencode's whitespace-tolerant matching, line-ending conversion) a
 * write of W, so the model is told what the formatter changed in what was written.
 */
function inputFor(tool: string, args: unknown, prior: string | null | undefined, written: string): SingleFileInput {
  const raw = (args && typeof args === 'object' ? args : {}) as Record<string, unknown>;
  if (tool === 'edit' && typeof prior === 'string' && typeof raw.oldString === 'string' && typeof raw.newString === 'string') {
    const edit: EditInput = { oldText: raw.oldString, newText: raw.newString, ...(raw.replaceAll === true ? { replaceAll: true } : {}) };
    try {
      if (applyInput(prior, edit) === written) return edit;
    } catch {
      // Not a literal replacement of P: fall through to a write of W.
    }
  }
  return { content: written };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}
