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
import type { HookContext } from '../module.js';
import { formatAfterWrite } from '../shared/after-write.js';
import { editFromArgs, eventCwd, recordOf, writeFromArgs, type ToolArgNames } from '../shared/tool-args.js';

const NAMES: ToolArgNames = { oldText: 'old_string', newText: 'new_string', replaceAll: 'replace_all', content: 'content' };

interface QwenEvent {
  hook_event_name?: unknown;
  cwd?: unknown;
  tool_name?: unknown;
  tool_input?: unknown;
}

export async function qwenHook(raw: unknown, context: HookContext): Promise<Record<string, unknown> | undefined> {
  const event = recordOf(raw) as QwenEvent | undefined;
  if (event?.hook_event_name !== 'PostToolUse') return undefined;
  const toolInput = recordOf(event.tool_input);
  if (!toolInput) return undefined;
  const input = event.tool_name === 'write_file' ? writeFromArgs(toolInput, NAMES) : event.tool_name === 'edit' ? editFromArgs(toolInput, NAMES) : undefined;
  if (!input || typeof toolInput.file_path !== 'string') return undefined;
  const told = await formatAfterWrite({ cwd: eventCwd(event.cwd, context.cwd), filePath: toolInput.file_path, input, handler: context.handler, budget: context.maxDiffChars, newTextName: NAMES.newText, escapesAngles: true });
  return told ? { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: told } } : undefined;
}
