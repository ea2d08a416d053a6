/**
 * Claude Code's PreToolUse hook for Edit, MultiEdit and Write: the edit is formatted before Claude
 * Code writes it. The hook computes F (the file as the edit and then the formatter would leave it,
 * nothing written: the `beforeWrite` request), and answers with `updatedInput`, the whole tool input
 * rewritten so that Claude Code's own tool writes F (shared/before-write.ts, verified against F), and
 * `additionalContext` with each edit's text as it will be on disk: the transcript keeps the model's
 * original tool_use, so without it the model's next edit would copy text that is not there.
 *
 * It never grants a permission: it rewrites only where the session's permission mode already lets
 * the edit through without asking (`acceptEdits`, `bypassPermissions`); in any other mode (or for a
 * CRLF or BOM file, whose line endings Claude Code's tools handle themselves) it says nothing, the
 * edit is written as the model sent it, and the PostToolUse hook formats it after the write.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { resolveLimits } from '../../config/limits.js';
import { shownText } from '../../core/shown.js';
import type { EditInput, Receipt, SingleFileInput } from '../../core/types.js';
import { decideRoot } from '../../node/service/request-root.js';
import { applyInput } from '../../tools/index.js';
import type { HookContext } from '../module.js';
import { rewrittenInput } from '../shared/before-write.js';
import { changedEdits, clip, contextFor, MAX_LINE_CHARS } from '../shared/context.js';
import type { ClaudeCodeHookInput } from './hook.js';

/** The permission modes in which Claude Code writes an edit without asking the user. */
const MODES_THAT_ALLOW_EDITS = new Set(['acceptEdits', 'bypassPermissions']);

export interface BeforeWriteOutput {
  hookSpecificOutput: { hookEventName: 'PreToolUse'; updatedInput: Record<string, unknown>; additionalContext?: string };
}

/** The PreToolUse answer, or undefined: let the edit through as it is (formatted after the write). */
export async function claudeCodeBeforeWrite(event: ClaudeCodeHookInput & { permission_mode?: unknown }, input: SingleFileInput, context: HookContext): Promise<BeforeWriteOutput | undefined> {
  if (typeof event.permission_mode !== 'string' || !MODES_THAT_ALLOW_EDITS.has(event.permission_mode)) return undefined;
  const raw = event.tool_input!;
  const filePath = raw.file_path as string;
  let root: string;
  let path: string;
  try {
    const decision = decideRoot({ cwd: event.cwd || context.cwd, path: filePath, ...(context.projectDir ? { root: context.projectDir } : {}) });
    if (decision.outside || decision.noRoot || decision.path === undefined) return undefined;
    ({ root, path } = decision as { root: string; path: string });
  } catch {
    return undefined; // The PostToolUse hook says why.
  }
  const prior = readPrior(join(root, ...path.split('/')));
  if (prior === undefined || (prior === null && !('content' in input))) return undefined;
  if (prior !== null && (prior.includes('\r') || prior.startsWith('\uFEFF'))) return undefined;
  let receipt: Receipt;
  try {
    receipt = (await context.handler.handle({ root, method: 'beforeWrite', path, input })) as Receipt;
  } catch {
    return undefined; // Written as sent; the PostToolUse hook formats it, or says why not.
  }
  if (receipt.content.includes('\r')) return undefined;
  const rewritten = rewrittenInput(prior, input, receipt);
  if (!rewritten) return undefined;
  const updatedInput = claudeCodeShape(raw, rewritten);
  const written = applyInput(prior ?? '', input);
  const told = shortContext(receipt, input, rewritten, context.maxDiffChars) ?? contextFor(receipt, input, written, prior, path, context.maxDiffChars);
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      updatedInput,
      // Shown to the model: control characters and bidi overrides escaped, whatever their source.
      ...(told ? { additionalContext: shownText(told, { multiline: true }) } : {}),
    },
  };
}

/** P: the file's text, null when it does not exist, undefined when it cannot be used (too large, unreadable). */
function readPrior(absolute: string): string | null | undefined {
  try {
    if (statSync(absolute).size > resolveLimits(undefined).maxInputBytes) return undefined;
    return readFileSync(absolute, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
}

/** The rewritten input in Claude Code's own field names: the whole input, every other field kept. */
function claudeCodeShape(raw: Record<string, unknown>, input: SingleFileInput): Record<string, unknown> {
  const edit = (e: EditInput) => ({ old_string: e.oldText, new_string: e.newText, ...(e.replaceAll ? { replace_all: true } : {}) });
  if ('content' in input) return { ...raw, content: input.content };
  if ('edits' in input) return { ...raw, edits: input.edits.map(edit) };
  const { replace_all: _replaceAll, ...rest } = raw;
  return { ...rest, ...edit(input as EditInput) };
}

/**
 * The fewest words that let the model copy the text on disk: Claude Code's tool result already says
 * the edit was applied, so only each changed edit's new text, between `<<<` and `>>>` lines (the
 * text is exactly what lies between them). Undefined when the rewrite is not the edits alone (a
 * write, or changes outside them: then the full context says more).
 */
function shortContext(receipt: Receipt, sent: SingleFileInput, rewritten: SingleFileInput, budget: number): string | undefined {
  if ('content' in sent || 'content' in rewritten) return undefined;
  const sentEdits = 'edits' in sent ? sent.edits : [sent as EditInput];
  const nowEdits = 'edits' in rewritten ? rewritten.edits : [rewritten as EditInput];
  if (sentEdits.length !== nowEdits.length || nowEdits.some((edit, i) => edit.oldText !== sentEdits[i]!.oldText)) return undefined;
  const changed = changedEdits(sent, rewritten);
  if (changed.length === 0) return undefined;
  const by = receipt.formatter ? `${receipt.formatter.name} ${receipt.formatter.version}` : 'the formatter';
  const head = clip(`formatbox (${by}): ${changed.length > 1 ? 'each new_string' : 'new_string'} is on disk as the text between <<< and >>>:`, MAX_LINE_CHARS);
  const blocks = changed.map((edit) => `${changed.length > 1 ? `${edit.label}:\n` : ''}<<<\n${edit.newText}\n>>>`).join('\n');
  return blocks.length <= budget ? `${head}\n${blocks}` : undefined;
}
