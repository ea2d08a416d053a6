/**
 * `formatbox hook claude-code`: a PostToolUse hook for Claude Code's Edit, MultiEdit and Write, and
 * its PreToolUse hook for the same tools (before-write.ts: the edit formatted before it is written,
 * where the session's permission mode lets it through anyway). This file is the PostToolUse half.
 *
 * Claude Code has already written W when the hook runs. The hook formats the file in-process,
 * reconciles against the file before the edit (P: the tool response's `originalFile` when present,
 * else recovered by undoing the edit when that is unambiguous), and tells the model what is on disk
 * now through `hookSpecificOutput.additionalContext`: each edit's new text as the formatter left it,
 * and a bounded diff (or a reread hint) for changes elsewhere. Nothing is printed when the formatter
 * changed nothing. A hook never fails the edit: problems become a short context line, exit code 0.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { messageOf } from '../../core/errors.js';
import { shownPath, shownText } from '../../core/shown.js';
import type { EditInput, Receipt, SingleFileInput } from '../../core/types.js';
import { decideRoot, type RootDecision } from '../../node/service/request-root.js';
import { applyInput, occurrences } from '../../tools/index.js';
import type { HookContext } from '../module.js';
import { clip, contextFor, MAX_LINE_CHARS } from '../shared/context.js';
import { claudeCodeBeforeWrite, type BeforeWriteOutput } from './before-write.js';

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

/**
 * The hook's answer for one event, or undefined when there is nothing to tell the model. Never
 * throws for a bad event: anything that is not an Edit, MultiEdit or Write event is ignored.
 */
export async function claudeCodeHook(raw: unknown, context: HookContext): Promise<HookOutput | BeforeWriteOutput | undefined> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const event = raw as ClaudeCodeHookInput;
  const before = event.hook_event_name === 'PreToolUse';
  if (event.hook_event_name !== undefined && event.hook_event_name !== 'PostToolUse' && !before) return undefined;
  if (typeof event.tool_name !== 'string' || !TOOLS.has(event.tool_name) || !event.tool_input || typeof event.tool_input !== 'object' || Array.isArray(event.tool_input)) return undefined;
  const filePath = event.tool_input.file_path;
  if (typeof filePath !== 'string' || filePath === '' || filePath.includes('\0')) return undefined;
  if (before) {
    const input = toolInput(event.tool_name, event.tool_input);
    return input ? claudeCodeBeforeWrite(event, input, context) : undefined;
  }
  // The containment rule (request-root.ts): CLAUDE_PROJECT_DIR, else the project the session's cwd
  // is in; a file outside it is not ours (silence), a root that may not be one is said.
  let decision: RootDecision;
  try {
    decision = decideRoot({ cwd: event.cwd || context.cwd, path: filePath, ...(context.projectDir ? { root: context.projectDir } : {}) });
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
  const budget = context.maxDiffChars;
  const { handler } = context;
  try {
    const receipt = (prior === undefined
      ? await handler.handle({ root, method: 'format', path })
      : await handler.handle({ root, path, input, prior })) as Receipt;
    const told = contextFor(receipt, input, written, prior, path, budget);
    // Shown to the model: control characters and bidi overrides escaped, whatever their source.
    return told ? { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: shownText(told, { multiline: true }) } } : undefined;
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
