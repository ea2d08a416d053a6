/**
 * What an agent's model is told after an edit, shared by every agent's hook and the MCP server so
 * all say it the same way: each edit's new text as the formatter left it, in a delimited block the
 * model can copy into its next edit, and a reread hint when that does not fit the budget.
 */
import { unifiedDiff } from '../../core/diff.js';
import { shownPath } from '../../core/shown.js';
import type { EditInput, Receipt, SingleFileInput, ToolInput } from '../../core/types.js';
import { rereadHint } from '../../reconcile/index.js';
import { applyInput } from '../../tools/index.js';

/** Longest receipt line or failure line kept in what the model is told. */
export const MAX_LINE_CHARS = 500;

/**
 * One edit's new text as it is on disk, between marker lines, so its first and last characters
 * (a trailing newline included) are unambiguous: the text is everything between the line after
 * `<<<` and the newline before `>>>`. `newTextName` is the agent's own name for an edit's new text.
 */
export function editBlock(label: string, text: string, newTextName = 'new_string'): string {
  return `${label}: ${newTextName} is now on disk as (exactly the text between the <<< and >>> lines):\n<<<\n${text}\n>>>`;
}

/** The edits whose text the formatter changed: their label and their text on disk now. */
export function changedEdits(sent: SingleFileInput, now: ToolInput): Array<{ label: string; newText: string }> {
  if ('content' in sent) return [];
  const sentEdits = 'edits' in sent ? sent.edits : [sent as EditInput];
  const nowEdits = 'edits' in now ? (now as { edits: EditInput[] }).edits : 'oldText' in now ? [now as EditInput] : [];
  const changed: Array<{ label: string; newText: string }> = [];
  sentEdits.forEach((edit, i) => {
    const after = nowEdits[i];
    if (!after || (after.newText === edit.newText && after.oldText === edit.oldText)) return;
    changed.push({ label: sentEdits.length > 1 ? `edit ${i + 1}` : 'your edit', newText: after.newText });
  });
  return changed;
}

/** Where `text` is in `final` (1-based lines), for a hint when the text itself does not fit. */
function linesOf(final: string, text: string): [number, number] | undefined {
  const at = text === '' ? -1 : final.indexOf(text);
  if (at < 0) return undefined;
  const first = countNewlines(final, 0, at) + 1;
  return [first, first + countNewlines(text, 0, text.length - (text.endsWith('\n') ? 1 : 0))];
}

/** A hint naming where the edits' text is on disk, for when the blocks are over the budget. */
export function editsHint(path: string, final: string, edits: Array<{ newText: string }>): string {
  const ranges = edits.map((e) => linesOf(final, e.newText)).filter((r): r is [number, number] => r !== undefined);
  if (ranges.length === 0) return `your edit is on disk as the formatter left it; reread ${shownPath(path)} before editing it again`;
  const named = ranges.map(([s, e]) => (s === e ? `${s}` : `${s}-${e}`)).join(', ');
  return `your edit is on disk as the formatter left it (too long to show here); reread lines ${named} of ${shownPath(path)} before editing them again`;
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

/**
 * The context for the model: one receipt line, then at most `budget` characters: each changed
 * edit's new text in a delimited block, then the other changes as a diff. When that does not fit,
 * a reread hint (which lines changed) replaces it. `newTextName` is the agent's name for an edit's new
 * text (Claude Code's `new_string`; opencode's `newString`).
 */
export function contextFor(receipt: Receipt, input: SingleFileInput, written: string, prior: string | null | undefined, path: string, budget: number, newTextName = 'new_string'): string | undefined {
  if (receipt.status === 'failed' || receipt.status === 'timeout' || receipt.status === 'refused') {
    return clip(`formatbox: ${receipt.line} (your edit is on disk as written)`, MAX_LINE_CHARS);
  }
  if (receipt.status !== 'formatted') return undefined;
  const head = clip(`formatbox: ${receipt.line}. The file on disk differs from what you wrote.`, MAX_LINE_CHARS);
  const parts: string[] = [];
  if (typeof prior === 'string' && !('content' in input)) {
    for (const edit of changedEdits(input, receipt.input)) parts.push(editBlock(edit.label, edit.newText, newTextName));
    if (receipt.diff) parts.push(...changesBetween(replayedOrUndefined(prior, receipt.input as SingleFileInput) ?? written, receipt.content, path, 'other formatter changes'));
  } else {
    parts.push(...changesBetween(written, receipt.content, path, 'the formatter changed'));
  }
  let body = parts.join('\n');
  if (body.length > budget) body = clip(rereadHint(path, written, receipt.content) || `the formatter changed more than fits here; reread ${shownPath(path)}`, budget);
  return body === '' ? head : `${head}\n${body}`;
}

function replayedOrUndefined(prior: string, input: SingleFileInput): string | undefined {
  try {
    return applyInput(prior, input);
  } catch {
    return undefined;
  }
}

/**
 * What changed from `before` to `after`, for the model: a change of line endings or of the BOM in
 * one line each (never a diff of every line), then a diff of whatever else changed.
 */
function changesBetween(before: string, after: string, path: string, title: string): string[] {
  const parts: string[] = [];
  const was = lineEndingsOf(before);
  const now = lineEndingsOf(after);
  if (was !== now && was !== 'none' && now !== 'none') parts.push(`the formatter changed the line endings from ${was} to ${now} (every line)`);
  const hadBom = before.startsWith('\uFEFF');
  if (hadBom !== after.startsWith('\uFEFF')) parts.push(hadBom ? 'the formatter removed the byte order mark' : 'the formatter added a byte order mark');
  const plain = (text: string) => text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (plain(before) !== plain(after)) parts.push(`${title}:\n${unifiedDiff(plain(before), plain(after), { path }).replace(/\n$/, '')}`);
  return parts;
}

function lineEndingsOf(text: string): 'CRLF' | 'LF' | 'CR' | 'mixed' | 'none' {
  const crlf = text.split('\r\n').length - 1;
  const lf = text.split('\n').length - 1 - crlf;
  const cr = text.split('\r').length - 1 - crlf;
  const kinds = [crlf > 0, lf > 0, cr > 0].filter(Boolean).length;
  if (kinds === 0) return 'none';
  if (kinds > 1) return 'mixed';
  return crlf > 0 ? 'CRLF' : lf > 0 ? 'LF' : 'CR';
}
