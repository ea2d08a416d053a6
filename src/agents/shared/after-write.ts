/**
 * Format after the write, for an agent's post-tool hook: the agent has written W; formatbox formats
 * it in place and says what is on disk now. P is recovered by undoing the edit where that is
 * unambiguous (the agents here do not send the file before the edit), so the model gets each edit's
 * text as the formatter left it; else the formatter's diff. A file the pre-tool hook already wrote
 * formatted is unchanged here, and nothing is said.
 *
 * Some agents (Gemini CLI, Qwen Code) escape `<` and `>` in hook context (`&lt;`): text shown to
 * their models uses no angle-bracket markers, and text that itself holds `<` or `>` is not shown
 * (the model would copy the escapes); those lines are named for a reread instead.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { messageOf } from '../../core/errors.js';
import { shownPath, shownText } from '../../core/shown.js';
import type { EditInput, Receipt, SingleFileInput } from '../../core/types.js';
import { decideRoot } from '../../node/service/request-root.js';
import type { RequestHandler } from '../../node/service/requests.js';
import { rereadHint } from '../../reconcile/index.js';
import { applyInput, occurrences } from '../../tools/index.js';
import { changedEdits, clip, contextFor, editsHint, MAX_LINE_CHARS } from './context.js';

export interface AfterWriteRequest {
  cwd: string;
  filePath: string;
  /** The input the agent applied (after any rewrite by the pre-tool hook). */
  input: EditInput | { content: string };
  handler: RequestHandler;
  budget: number;
  /** The agent's name for an edit's new text (`new_str`, `new_string`, `new_text`). */
  newTextName: string;
  /** The agent escapes `<` and `>` in what the hook tells the model. */
  escapesAngles: boolean;
}

/** What to tell the model after the write, or undefined when there is nothing to say. */
export async function formatAfterWrite(request: AfterWriteRequest): Promise<string | undefined> {
  const { filePath, input } = request;
  if (filePath === '' || filePath.includes('\0')) return undefined;
  let root: string;
  let path: string;
  try {
    const decision = decideRoot({ cwd: request.cwd, path: filePath });
    if (decision.outside || decision.path === undefined) return undefined;
    if (decision.noRoot) return `formatbox: ${shownPath(filePath)} was not formatted: no project root found (no VCS root and no formatter config above it)`;
    ({ root, path } = decision as { root: string; path: string });
  } catch (error) {
    return clip(shownText(`formatbox: ${shownPath(filePath)} was not formatted: ${messageOf(error)}`), MAX_LINE_CHARS);
  }
  let written: string;
  try {
    written = readFileSync(join(root, ...path.split('/')), 'utf8');
  } catch {
    return undefined; // Gone already (or never written: the tool failed).
  }
  const prior = 'content' in input ? undefined : undoneEdit(input, written);
  try {
    const receipt = (prior === undefined
      ? await request.handler.handle({ root, method: 'format', path })
      : await request.handler.handle({ root, path, input, prior })) as Receipt;
    const told = request.escapesAngles
      ? contextWithoutAngles(receipt, input, written, prior, path, request.budget, request.newTextName)
      : contextFor(receipt, input, written, prior, path, request.budget, request.newTextName);
    return told === undefined ? undefined : shownText(told, { multiline: true });
  } catch (error) {
    return clip(shownText(`formatbox: ${shownPath(path)} was not formatted: ${messageOf(error)}`), MAX_LINE_CHARS);
  }
}

/** P from W by undoing one edit: when its new text occurs once in W and redoing the edit gives W back. */
function undoneEdit(edit: EditInput, written: string): string | undefined {
  if (edit.replaceAll || edit.newText === '' || occurrences(written, edit.newText, 2).length !== 1) return undefined;
  const prior = written.replace(edit.newText, () => edit.oldText);
  try {
    return applyInput(prior, edit) === written ? prior : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `contextFor` for an agent that escapes `<` and `>`: each changed edit's text between `BEGIN` and
 * `END` marker lines when it holds neither character, else the lines to reread; a diff only when it
 * holds neither either.
 */
export function contextWithoutAngles(receipt: Receipt, input: SingleFileInput, written: string, prior: string | undefined, path: string, budget: number, newTextName: string): string | undefined {
  if (receipt.status === 'failed' || receipt.status === 'timeout' || receipt.status === 'refused') {
    return clip(`formatbox: ${receipt.line} (your edit is on disk as written)`, MAX_LINE_CHARS);
  }
  if (receipt.status !== 'formatted') return undefined;
  const head = clip(`formatbox: ${receipt.line}. The file on disk differs from what you wrote.`, MAX_LINE_CHARS);
  const angled = (text: string) => /[<>]/.test(text);
  const parts: string[] = [];
  const unshown: Array<{ newText: string }> = [];
  if (typeof prior === 'string' && !('content' in input)) {
    for (const edit of changedEdits(input, receipt.input)) {
      if (angled(edit.newText)) unshown.push(edit);
      else parts.push(plainBlock(edit.label, edit.newText, newTextName));
    }
    if (unshown.length > 0) parts.push(editsHint(path, receipt.content, unshown));
    if (receipt.diff) parts.push(angled(receipt.diff) ? rereadHint(path, written, receipt.content) : `other formatter changes:\n${receipt.diff.replace(/\n$/, '')}`);
  } else {
    parts.push(rereadHint(path, written, receipt.content) || `reread ${shownPath(path)} before editing it again`);
  }
  let body = parts.filter((part) => part !== '').join('\n');
  if (body.length > budget) body = clip(rereadHint(path, written, receipt.content) || `the formatter changed more than fits here; reread ${shownPath(path)}`, budget);
  return body === '' ? head : `${head}\n${body}`;
}

/** An edit's text between marker lines that no escaping touches: everything after the `BEGIN` line up to the newline before `END`. */
export function plainBlock(label: string, text: string, newTextName: string): string {
  return `${label}: ${newTextName} is now on disk as (exactly the text between the BEGIN and END lines):\nBEGIN\n${text}\nEND`;
}
