/**
 * Format before the write, for the hook CLIs that run a command per tool call and whose pre-tool
 * hook may rewrite the tool's input (Copilot's `modifiedArgs`, Gemini's `tool_input`, cline's
 * `overrideInput`): the file as it is now (P) with the model's input applied gives W; the formatter
 * turns W into F; the answer is an input that, applied by the agent to P, writes F. The rewritten
 * edit keeps the model's span where the formatter changed nothing outside it (reconcile), else it is
 * the lines that differ, widened until their old text occurs once in P (before-write.ts's
 * `uniqueSpan`, shared with Claude Code and opencode). Every rewrite is checked by applying it to P:
 * anything that does not give F exactly, or that would put much more text into the transcript than
 * the model wrote, passes the edit through unchanged, and the post-tool hook formats after the write.
 */
import { closeSync, fstatSync, openSync, readSync, constants } from 'node:fs';
import { join } from 'node:path';
import { unifiedDiff } from '../../core/diff.js';
import { messageOf } from '../../core/errors.js';
import { shownPath, shownText } from '../../core/shown.js';
import type { EditInput, Receipt, SingleFileInput, WriteInput } from '../../core/types.js';
import { decideRoot } from '../../node/service/request-root.js';
import type { RequestHandler } from '../../node/service/requests.js';
import { reconcile, rereadHint } from '../../reconcile/index.js';
import { applyInput } from '../../tools/index.js';
import { uniqueSpan } from './before-write.js';
import { clip, editBlock, editsHint, MAX_LINE_CHARS } from './context.js';

/** Largest file read to format before its write; a larger one is formatted after the write. */
export const MAX_PRIOR_BYTES = 2 * 1024 * 1024;

export type BeforeWrite =
  /** Apply `input` instead of the model's: it writes F. `changed` lists the edits whose text differs from the model's. */
  | { kind: 'rewrite'; root: string; path: string; input: EditInput | WriteInput; final: string; changed: Array<{ label: string; newText: string }>; line: string }
  /** The formatter leaves W as it is: nothing to rewrite, nothing to say. */
  | { kind: 'unchanged' }
  /** Let the model's input through; the post-tool hook formats after the write (`why` is for logs and tests). */
  | { kind: 'pass'; why: string }
  /** The file is not in the session's project: not ours, say nothing before or after. */
  | { kind: 'outside' };

export interface BeforeWriteRequest {
  /** The session's working directory (where the agent runs). */
  cwd: string;
  /** The file the tool writes (absolute, or relative to `cwd`). */
  filePath: string;
  /** The model's input: one edit, or a whole-file write. */
  input: EditInput | { content: string };
  handler: RequestHandler;
  /** How much more text than the model wrote a rewrite may carry (the diff budget). */
  maxGrowthChars: number;
}

export async function formatBeforeWrite(request: BeforeWriteRequest): Promise<BeforeWrite> {
  const { filePath, input } = request;
  if (filePath === '' || filePath.includes('\0')) return { kind: 'pass', why: 'no usable path' };
  let decision;
  try {
    decision = decideRoot({ cwd: request.cwd, path: filePath });
  } catch (error) {
    return { kind: 'pass', why: messageOf(error) };
  }
  if (decision.outside || decision.path === undefined) return { kind: 'outside' };
  if (decision.noRoot) return { kind: 'pass', why: 'no project root' };
  const { root, path } = decision;
  const prior = readPrior(join(root, ...path.split('/')));
  if (prior === 'too-large') return { kind: 'pass', why: `larger than ${MAX_PRIOR_BYTES} bytes` };
  if (prior === 'unreadable') return { kind: 'pass', why: 'unreadable' };
  if (prior === undefined && !('content' in input)) return { kind: 'pass', why: 'an edit of a file that does not exist' };
  let written: string;
  try {
    written = applyInput(prior ?? '', input);
  } catch (error) {
    return { kind: 'pass', why: `the edit does not apply: ${messageOf(error)}` }; // The agent reports its own error.
  }
  let receipt: Receipt;
  try {
    receipt = (await request.handler.handle({ root, method: 'formatText', path, text: written })) as Receipt;
  } catch (error) {
    return { kind: 'pass', why: messageOf(error) };
  }
  if (receipt.status === 'unchanged' || receipt.status === 'skipped') return { kind: 'unchanged' };
  if (receipt.status !== 'formatted' || typeof receipt.content !== 'string') return { kind: 'pass', why: receipt.line };
  const final = receipt.content;
  if ('content' in input) {
    if (final.length > input.content.length + request.maxGrowthChars) return { kind: 'pass', why: 'the formatted file is much longer than the model wrote' };
    return { kind: 'rewrite', root, path, input: { content: final }, final, changed: [], line: receipt.line };
  }
  const rewritten = rewrittenEdit(prior!, input, final);
  if (!rewritten) return { kind: 'pass', why: 'no single edit of the file gives the formatted text' };
  const grown = rewritten.newText.length + rewritten.oldText.length - input.newText.length - input.oldText.length;
  if (grown > request.maxGrowthChars) return { kind: 'pass', why: `the rewritten edit is ${grown} characters longer than the model's` };
  const changed = rewritten.newText === input.newText && rewritten.oldText === input.oldText ? [] : [{ label: 'your edit', newText: rewritten.newText }];
  return { kind: 'rewrite', root, path, input: rewritten, final, changed, line: receipt.line };
}

/**
 * One edit that turns `prior` into `final`, checked by applying it: the model's edit as reconcile
 * rewrote it when that alone gives F, else the lines that differ between P and F, widened until
 * their old text occurs once in P. Undefined when neither checks out.
 */
export function rewrittenEdit(prior: string, input: EditInput, final: string): EditInput | undefined {
  const gives = (edit: EditInput): boolean => {
    try {
      return applyInput(prior, edit) === final;
    } catch {
      return false;
    }
  };
  try {
    const reconciled = reconcile({ prior, input, final });
    const edit = reconciled.input as EditInput;
    if (reconciled.reconciled && !reconciled.diff && typeof edit.oldText === 'string' && gives(edit)) return edit;
  } catch {
    // Fall through to the widened edit.
  }
  const span = uniqueSpan(prior, final);
  const widened = span && input.replaceAll === true ? { ...span, replaceAll: true } : span;
  return widened && gives(widened) ? widened : undefined;
}

/** The file's text (UTF-8), undefined when it does not exist; read without following a final symlink. */
function readPrior(absolute: string): string | undefined | 'too-large' | 'unreadable' {
  let fd: number;
  try {
    fd = openSync(absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : 'unreadable';
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return 'unreadable';
    if (stat.size > MAX_PRIOR_BYTES) return 'too-large';
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read).toString('utf8');
  } catch {
    return 'unreadable';
  } finally {
    closeSync(fd);
  }
}

/**
 * What to tell a model whose transcript keeps its own input after a rewrite (cline): the receipt
 * line and each changed edit's text on disk, or for a write the formatter's diff of what the model
 * wrote; a reread hint when that is over `budget`.
 */
export function rewriteNote(outcome: Extract<BeforeWrite, { kind: 'rewrite' }>, sent: EditInput | { content: string }, newTextName: string, budget: number): string | undefined {
  const head = clip(`formatbox: ${outcome.line}. The file on disk differs from what you wrote.`, MAX_LINE_CHARS);
  let body: string;
  if ('content' in sent) {
    if (sent.content === outcome.final) return undefined;
    body = `the formatter changed:\n${unifiedDiff(sent.content, outcome.final, { path: outcome.path }).replace(/\n$/, '')}`;
    if (body.length > budget) body = clip(rereadHint(outcome.path, sent.content, outcome.final) || `reread ${shownPath(outcome.path)} before editing it again`, budget);
  } else {
    if (outcome.changed.length === 0) return undefined;
    body = outcome.changed.map((edit) => editBlock(edit.label, edit.newText, newTextName)).join('\n');
    if (body.length > budget) body = clip(editsHint(outcome.path, outcome.final, outcome.changed), budget);
  }
  // Shown to the model: control characters and bidi overrides escaped, whatever their source.
  return shownText(`${head}\n${body}`, { multiline: true });
}
