/**
 * `formatbox hook claude-code`: a PostToolUse hook for Claude Code's Edit, MultiEdit and Write.
 *
 * Claude Code has already written W when the hook runs. The hook formats the file in-process,
 * reconciles against the file before the edit (P: the tool response's `originalFile` when present,
 * else recovered by undoing the edit when that is unambiguous), and tells the model what is on disk
 * now through `hookSpecificOutput.additionalContext`: each edit's new text as the formatter left it,
 * and a bounded diff (or a reread hint) for changes elsewhere. Nothing is printed when the formatter
 * changed nothing. A hook never fails the edit: problems become a short context line, exit code 0.
 */
import { shownPath, shownText } from '../core/shown.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decideRoot, type RootDecision } from './request-root.js';
import { unifiedDiff } from '../core/diff.js';
import { resolveLimits } from '../config/limits.js';
import { messageOf } from '../core/errors.js';
import type { EditInput, Receipt, SingleFileInput } from '../core/types.js';
import { rereadHint } from '../reconcile/index.js';
import { applyInput, occurrences } from '../tools/index.js';
import type { RequestHandler } from './requests.js';
import { changedEdits, clip, editBlock, MAX_LINE_CHARS } from './agent-context.js';
import { codexPatchHook, isCodexPatchEvent } from './hook-codex.js';

/** What Claude Code sends on stdin (the fields formatbox reads). */
export interface ClaudeCodeHookInput {
  hook_event_name?: string;
  cwd?: string;
  tool_name?: string;
  tool_input?: Record<string, unknown>;
  tool_response?: Record<string, unknown>;
}

export interface HookOutput {
  hookSpecificOutput: { hookEventName: 'PostToolUse'; additionalContext: string };
}

const TOOLS = new Set(['Edit', 'MultiEdit', 'Write']);

interface HookOptions {
  /** The budget for everything after the receipt line (edit blocks, diff, hints). Default: DEFAULT_LIMITS.maxDiffChars. */
  maxDiffChars?: number;
}

/**
 * The hook's answer for one event, or undefined when there is nothing to tell the model. Never
 * throws for a bad event: anything that is not an Edit, MultiEdit or Write event is ignored.
 */
export async function claudeCodeHook(event: ClaudeCodeHookInput, handler: RequestHandler, env: NodeJS.ProcessEnv = process.env, options: HookOptions = {}): Promise<HookOutput | undefined> {
  if (!event || typeof event !== 'object' || Array.isArray(event)) return undefined;
  if (event.hook_event_name !== undefined && event.hook_event_name !== 'PostToolUse') return undefined;
  // Codex's hooks speak this wire format too; its apply_patch is handled apart (hook-codex.ts).
  if (isCodexPatchEvent(event)) return codexPatchHook({ cwd: process.cwd(), ...event }, handler, resolveLimits(undefined, { maxDiffChars: options.maxDiffChars }).maxDiffChars);
  if (typeof event.tool_name !== 'string' || !TOOLS.has(event.tool_name) || !event.tool_input || typeof event.tool_input !== 'object') return undefined;
  const filePath = event.tool_input.file_path;
  if (typeof filePath !== 'string' || filePath === '' || filePath.includes('\0')) return undefined;
  // The containment rule (request-root.ts): CLAUDE_PROJECT_DIR, else the project the session's cwd
  // is in; a file outside it is not ours (silence), a root that may not be one is said.
  let decision: RootDecision;
  try {
    decision = decideRoot({ cwd: event.cwd || process.cwd(), path: filePath, ...(env.CLAUDE_PROJECT_DIR ? { root: env.CLAUDE_PROJECT_DIR } : {}) });
  } catch (error) {
    return { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: clip(shownText(`formatbox: ${shownPath(filePath)} was not formatted: ${messageOf(error)}`), MAX_LINE_CHARS) } };
  }
  if (decision.outside || decision.path === undefined) return undefined;
  if (decision.noRoot) {
    return { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: `formatbox: ${shownPath(filePath)} was not formatted: no project root found (no CLAUDE_PROJECT_DIR containing it, no VCS root and no formatter config above it)` } };
  }
  const { root, path } = decision;
  const absolute = join(root, ...path.split('/'));

  const input = toolInput(event.tool_name, event.tool_input);
  if (!input) return undefined;
  let written: string;
  try {
    written = readFileSync(absolute, 'utf8');
  } catch {
    return undefined; // Gone already; nothing to format.
  }
  const prior = priorOf(event, input, written);
  const budget = resolveLimits(undefined, { maxDiffChars: options.maxDiffChars }).maxDiffChars;
  try {
    const receipt = (prior === undefined
      ? await handler.handle({ root, method: 'format', path })
      : await handler.handle({ root, path, input, prior })) as Receipt;
    const context = contextFor(receipt, input, written, prior, path, budget);
    // Shown to the model: control characters and bidi overrides escaped, whatever their source.
    return context ? { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: shownText(context, { multiline: true }) } } : undefined;
  } catch (error) {
    return { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: clip(shownText(`formatbox: ${shownPath(path)} was not formatted: ${messageOf(error)}`), MAX_LINE_CHARS) } };
  }
}

function toolInput(tool: string, raw: Record<string, unknown>): SingleFileInput | undefined {
  const edit = (e: Record<string, unknown>): EditInput | undefined =>
    typeof e.old_string === 'string' && typeof e.new_string === 'string'
      ? { oldText: e.old_string, newText: e.new_string, ...(e.replace_all === true ? { replaceAll: true } : {}) }
      : undefined;
  if (tool === 'Write') return typeof raw.content === 'string' ? { content: raw.content } : undefined;
  if (tool === 'Edit') return edit(raw);
  if (!Array.isArray(raw.edits)) return undefined;
  const edits = raw.edits.map((e) => (e && typeof e === 'object' ? edit(e as Record<string, unknown>) : undefined));
  return edits.every((e): e is EditInput => e !== undefined) ? { edits } : undefined;
}

/**
 * P: `tool_response.originalFile` when Claude Code sends it (and it replays to W); a Write of a new
 * file has none (null); else the edit undone, when each new text occurs once in W and redoing the
 * edit gives W back. Undefined when P cannot be known: the hook then formats W as it is.
 */
function priorOf(event: ClaudeCodeHookInput, input: SingleFileInput, written: string): string | null | undefined {
  const replays = (prior: string): boolean => {
    try {
      return applyInput(prior, input) === written;
    } catch {
      return false;
    }
  };
  const original = event.tool_response?.originalFile;
  if (typeof original === 'string' && replays(original)) return original;
  if ('content' in input) return event.tool_response?.type === 'create' ? null : typeof original === 'string' ? original : undefined;
  const edits = 'edits' in input ? input.edits : [input as EditInput];
  let prior = written;
  for (const edit of [...edits].reverse()) {
    if (edit.replaceAll || edit.newText === '' || occurrences(prior, edit.newText, 2).length !== 1) return undefined;
    prior = prior.replace(edit.newText, () => edit.oldText);
  }
  return replays(prior) ? prior : undefined;
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
    if (receipt.diff) parts.push(`other formatter changes:\n${receipt.diff.replace(/\n$/, '')}`);
  } else {
    parts.push(`the formatter changed:\n${unifiedDiff(written, receipt.content, { path }).replace(/\n$/, '')}`);
  }
  let body = parts.join('\n');
  if (body.length > budget) body = clip(rereadHint(path, written, receipt.content) || `the formatter changed more than fits here; reread ${shownPath(path)}`, budget);
  return body === '' ? head : `${head}\n${body}`;
}
