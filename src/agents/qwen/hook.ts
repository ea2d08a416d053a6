/**
 * `formatbox hook qwen`: Qwen Code's `PostToolUse` hook for its `edit` `{file_path, old_string,
 * new_string, replace_all?}` and `write_file` `{file_path, content}` tools.
 *
 * Qwen Code lets a hook rewrite a tool's input only from a `PermissionRequest` hook that answers
 * `allow` (its PreToolUse output has no input field). That hook runs only where Qwen would ask the
 * user, so a rewrite there would also skip the user's approval: formatbox never does it. Qwen Code
 * is formatted after the write: the hook formats the written file and tells the model through
 * `additionalContext`, which Qwen escapes (`<` as `&lt;`): no angle-bracket markers, and text that
 * holds `<` or `>` is named for a reread instead of shown (shared/after-write.ts).
 */
import type { EditInput } from '../../core/types.js';
import type { HookContext } from '../module.js';
import { formatAfterWrite } from '../shared/after-write.js';

interface QwenEvent {
  hook_event_name?: unknown;
  cwd?: unknown;
  tool_name?: unknown;
  tool_input?: unknown;
}

export async function qwenHook(raw: unknown, context: HookContext): Promise<Record<string, unknown> | undefined> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const event = raw as QwenEvent;
  if (event.hook_event_name !== 'PostToolUse') return undefined;
  const args = event.tool_input;
  if (!args || typeof args !== 'object' || Array.isArray(args)) return undefined;
  const toolInput = args as Record<string, unknown>;
  const input = inputOf(event.tool_name, toolInput);
  if (!input || typeof toolInput.file_path !== 'string') return undefined;
  const cwd = typeof event.cwd === 'string' && event.cwd !== '' ? event.cwd : context.cwd;
  const told = await formatAfterWrite({ cwd, filePath: toolInput.file_path, input, handler: context.handler, budget: context.maxDiffChars, newTextName: 'new_string', escapesAngles: true });
  return told ? { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: told } } : undefined;
}

function inputOf(tool: unknown, args: Record<string, unknown>): EditInput | { content: string } | undefined {
  if (tool === 'write_file') return typeof args.content === 'string' ? { content: args.content } : undefined;
  if (tool !== 'edit' || typeof args.old_string !== 'string' || args.old_string === '' || typeof args.new_string !== 'string') return undefined;
  return { oldText: args.old_string, newText: args.new_string, ...(args.replace_all === true ? { replaceAll: true } : {}) };
}
