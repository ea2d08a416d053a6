/**
 * What `formatbox mcp` answers for one tool call, at any file size: a text part for clients that
 * show the model only text (opencode), and `structuredContent` for clients that show it the
 * structure (Codex). Both say what is on disk now and both are bounded by `maxDiffChars`:
 * - text: the receipt line once; each edit's new text as the formatter left it (delimited as the
 *   Claude Code hook does: agent-context.ts); then the other changes as a diff, or a reread hint.
 * - structured: the receipt without the file's `content` (only with `includeContent`), without
 *   `note` (the text part is the note) and with its `input` and `diff` only when they fit; a write's
 *   `input` is its whole file, so a write is answered with the diff from what was sent instead.
 */
import { unifiedDiff } from '../../core/diff.js';
import { shownPath } from '../../core/shown.js';
import type { Receipt, SingleFileInput, ToolInput } from '../../core/types.js';
import type { DoctorReport } from '../../node/index.js';
import { doctorLanguageLabel } from './doctor-label.js';
import type { PatchReceipt } from '../../reconcile/index.js';
import { rereadHint } from '../../reconcile/index.js';
import { changedEdits, clip, editBlock, editsHint, MAX_LINE_CHARS } from './context.js';
import { mcpReceipt, type McpReceipt } from './mcp-receipt.js';

interface McpReplyOptions {
  /** The budget for everything after the receipt line, in each part. */
  maxDiffChars: number;
  /** Put the file's final text (`content`) into the structured part. */
  includeContent: boolean;
}

interface McpReply {
  text: string;
  structured: Record<string, unknown>;
}

/** The reply for a tool call whose request carried `sent` (undefined for `format`). */
export function mcpReply(tool: string, sent: ToolInput | undefined, result: Receipt | PatchReceipt | DoctorReport, options: McpReplyOptions): McpReply {
  if (tool === 'doctor') {
    const report = result as DoctorReport;
    const text = report.languages.map((l) => `${doctorLanguageLabel(l)}: ${l.formatter ? `${l.formatter} (${l.because ?? ''}${l.languageFrom ? `; ${l.languageFrom}` : ''})` : `not formatted (${l.skipped ?? ''})`}`).join('\n');
    return { text, structured: report as unknown as Record<string, unknown> };
  }
  if ('receipts' in result) return patchReply(result, sent, options);
  const single = fileReply(result as Receipt, sent && 'patch' in sent ? undefined : (sent as SingleFileInput | undefined), options);
  return { text: single.text, structured: single.structured };
}

/** `hintInPlace`: whether a file formatted in place (no input of its own here) gets a reread hint. */
function fileReply(receipt: Receipt, sent: SingleFileInput | undefined, options: McpReplyOptions, hintInPlace = true): McpReply {
  const budget = options.maxDiffChars;
  const line = clip(receipt.line, MAX_LINE_CHARS);
  const isWrite = sent === undefined || 'content' in sent;
  // The note is the line, then its own bounded diff or hint (and a word on why an input was kept).
  const rest = receipt.note.startsWith(receipt.line) ? receipt.note.slice(receipt.line.length).replace(/^\n/, '') : receipt.note;
  const structured: McpReceipt = mcpReceipt(receipt);
  const parts: string[] = [];
  let hint: string | undefined;
  if (receipt.status === 'formatted' && sent !== undefined && 'content' in sent) {
    // The model's own content stands as the input; the diff is from it to the file on disk.
    const diff = unifiedDiff(sent.content, receipt.content, { path: receipt.path });
    if (diff.length <= budget) {
      parts.push(`the formatter changed:\n${diff.replace(/\n$/, '')}`);
      structured.diff = diff;
    } else {
      hint = rereadHint(receipt.path, sent.content, receipt.content) || rereadWhole(receipt.path);
    }
  } else if (receipt.status === 'formatted' && sent === undefined) {
    if (hintInPlace) hint = `formatted in place; reread ${shownPath(receipt.path)} before editing it`;
    else if (rest) parts.push(rest);
  } else if (!isWrite) {
    const edits = receipt.status === 'formatted' ? changedEdits(sent, receipt.input) : [];
    const blocks = edits.map((e) => editBlock(e.label, e.newText)).join('\n');
    const inputJson = JSON.stringify(receipt.input);
    const diffFits = receipt.diff === undefined || receipt.diff.length <= budget;
    if (blocks.length + (diffFits ? rest.length : 0) <= budget && inputJson.length + (receipt.diff?.length ?? 0) <= budget) {
      if (blocks) parts.push(blocks);
      if (rest) parts.push(rest);
      structured.input = receipt.input;
      if (receipt.diff !== undefined) structured.diff = receipt.diff;
    } else {
      const hints = [edits.length > 0 ? editsHint(receipt.path, receipt.content, edits) : '', receipt.diff ? diffHint(receipt.path, receipt.diff) : ''].filter(Boolean);
      hint = hints.join('\n') || rereadWhole(receipt.path);
    }
  } else if (rest) {
    parts.push(rest);
  }
  if (hint !== undefined) {
    hint = clip(hint, budget);
    parts.push(hint);
    structured.hint = hint;
  }
  if (options.includeContent) structured.content = receipt.content;
  return { text: [line, ...parts].join('\n'), structured };
}

/**
 * A patch: each file's line (and its changes outside the patch), then the rewritten patch, which is
 * the patch's text as it is on disk, when it fits; when it does not, each formatted file gets a
 * reread hint instead.
 */
function patchReply(result: PatchReceipt, sent: ToolInput | undefined, options: McpReplyOptions): McpReply {
  const rewritten = result.input.patch;
  const changed = !sent || !('patch' in sent) || sent.patch !== rewritten;
  const showPatch = changed && rewritten.length <= options.maxDiffChars;
  const share = Math.max(200, Math.floor((options.maxDiffChars - (showPatch ? rewritten.length : 0)) / Math.max(1, result.receipts.length)));
  const files = result.receipts.map((r) => fileReply(r, undefined, { ...options, maxDiffChars: share }, !showPatch && changed));
  const texts = files.map((f) => f.text);
  const structured: Record<string, unknown> = {
    reconciled: result.reconciled,
    ...(result.reason !== undefined ? { reason: result.reason } : {}),
    receipts: files.map((f) => f.structured),
    ms: result.ms,
  };
  if (showPatch) {
    texts.push(`the patch as it is on disk now (exactly the text between the <<< and >>> lines):\n<<<\n${rewritten.replace(/\n$/, '')}\n>>>`);
    structured.input = result.input;
  }
  return { text: texts.join('\n'), structured };
}

/** The line ranges of F a unified diff touches (its `+c,d` hunk headers), as a reread hint. */
function diffHint(path: string, diff: string): string {
  const ranges: string[] = [];
  for (const match of diff.matchAll(/^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/gm)) {
    const start = Number(match[1]);
    const count = match[2] === undefined ? 1 : Number(match[2]);
    ranges.push(count <= 1 ? `${start}` : `${start}-${start + count - 1}`);
  }
  if (ranges.length === 0 || ranges.length > 8) return `the formatter changed more than fits here; reread ${shownPath(path)}`;
  return `the formatter also changed lines ${ranges.join(', ')} of ${shownPath(path)}; reread them before editing there`;
}

function rereadWhole(path: string): string {
  return `the formatter changed more than fits here; reread ${shownPath(path)}`;
}
