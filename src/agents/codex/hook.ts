/**
 * `formatbox hook codex`: a PostToolUse hook for Codex's own `apply_patch`.
 *
 * Codex's hooks speak Claude Code's wire format: the event names the tool (`apply_patch`), carries
 * the raw patch as `tool_input.command` and the session's `cwd`, and Codex adds the reply's
 * `hookSpecificOutput.additionalContext` to the next model request. The patch is already applied
 * when the hook runs and the files' text before it is not sent, so each file the patch wrote is
 * formatted as it is (W → F), and the model is told what the formatter changed: the receipt line and
 * a bounded diff (or a reread hint), the files of one patch sharing the budget.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { messageOf } from '../../core/errors.js';
import { shownPath } from '../../core/shown.js';
import type { Receipt } from '../../core/types.js';
import { findProjectRoot } from '../../node/project-root.js';
import { writtenPathsOfPatch } from '../../tools/patch/paths.js';
import type { ClaudeCodeHookInput, HookOutput } from '../claude-code/hook.js';
import type { HookContext } from '../module.js';
import { contextFor, MAX_LINE_CHARS } from '../shared/context.js';

/**
 * The hook's answer for a Codex event, or undefined when there is nothing to say: only a PostToolUse
 * of apply_patch is formatted (Codex writes with nothing else).
 */
export async function codexPatchHook(raw: unknown, context: HookContext): Promise<HookOutput | undefined> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const event = raw as ClaudeCodeHookInput;
  if (event.hook_event_name !== undefined && event.hook_event_name !== 'PostToolUse') return undefined;
  if (event.tool_name !== 'apply_patch' || typeof event.tool_input?.command !== 'string') return undefined;
  const { handler } = context;
  const budget = context.maxDiffChars;
  const cwd = event.cwd || context.cwd;
  const paths = writtenPathsOfPatch(String(event.tool_input?.command ?? ''));
  if (paths.length === 0) return undefined;
  // The session's project: the root a file in its cwd would have. Codex may write elsewhere (its
  // writable roots include /tmp); such files are not this session's project, and are left alone.
  const session = findProjectRoot(resolve(cwd, '.formatbox-session-probe'), { cwd });
  const projectDir = session?.root ?? cwd;
  const perFile = Math.floor(budget / paths.length);
  const notes: string[] = [];
  for (const path of paths) {
    const found = findProjectRoot(resolve(cwd, path), { cwd, projectDir });
    if (!found) continue; // Outside the session's project: not ours.
    let written: string;
    try {
      written = readFileSync(resolve(found.root, found.path), 'utf8');
    } catch {
      continue; // Gone already.
    }
    try {
      const receipt = (await handler.handle({ root: found.root, method: 'format', path: found.path })) as Receipt;
      const note = contextFor(receipt, { content: written }, written, undefined, found.path, perFile);
      if (note) notes.push(note);
    } catch (error) {
      const line = `formatbox: ${shownPath(found.path)} was not formatted: ${messageOf(error)}`;
      notes.push(line.length <= MAX_LINE_CHARS ? line : `${line.slice(0, MAX_LINE_CHARS - 1)}…`);
    }
  }
  return notes.length > 0 ? { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: notes.join('\n\n') } } : undefined;
}
