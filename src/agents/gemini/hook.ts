/**
 * `formatbox hook gemini`: Gemini CLI's `BeforeTool` and `AfterTool` hooks for its `replace`
 * `{file_path, old_string, new_string, allow_multiple?}` and `write_file` `{file_path, content}` tools.
 *
 * Before the write, `hookSpecificOutput.tool_input` (the whole input: Gemini validates it as the
 * tool's parameters) is the model's edit rewritten to write the formatted text
 * (shared/hook-before-write.ts). Gemini's own tool result then shows the written code ("Here is the
 * updated code:"), so formatbox adds nothing. A BeforeTool hook grants nothing: Gemini asks for the
 * tool as it would have. Where the rewrite cannot be verified the edit passes through and
 * `AfterTool` formats the written file; Gemini escapes `<` and `>` in that context, so it uses no
 * angle-bracket markers and names the lines to reread where the text holds them.
 */
import type { HookContext } from '../module.js';
import { formatAfterWrite } from '../shared/after-write.js';
import { formatBeforeWrite } from '../shared/hook-before-write.js';
import { argsWithInput, editFromArgs, eventCwd, recordOf, writeFromArgs, type ToolArgNames } from '../shared/tool-args.js';

const NAMES: ToolArgNames = { oldText: 'old_string', newText: 'new_string', replaceAll: 'allow_multiple', content: 'content' };

interface GeminiEvent {
  hook_event_name?: unknown;
  cwd?: unknown;
  tool_name?: unknown;
  tool_input?: unknown;
}

export async function geminiHook(raw: unknown, context: HookContext): Promise<Record<string, unknown> | undefined> {
  const event = recordOf(raw) as GeminiEvent | undefined;
  const toolInput = recordOf(event?.tool_input);
  if (!event || !toolInput) return undefined;
  const input = event.tool_name === 'write_file' ? writeFromArgs(toolInput, NAMES) : event.tool_name === 'replace' ? editFromArgs(toolInput, NAMES) : undefined;
  if (!input || typeof toolInput.file_path !== 'string') return undefined;
  const cwd = eventCwd(event.cwd, context.cwd);
  if (event.hook_event_name === 'BeforeTool') {
    const outcome = await formatBeforeWrite({ cwd, filePath: toolInput.file_path, input, handler: context.handler, maxGrowthChars: context.maxDiffChars });
    if (outcome.kind !== 'rewrite') return undefined;
    return { hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: argsWithInput(toolInput, outcome.input, NAMES) } };
  }
  if (event.hook_event_name !== 'AfterTool') return undefined;
  const told = await formatAfterWrite({ cwd, filePath: toolInput.file_path, input, handler: context.handler, budget: context.maxDiffChars, newTextName: NAMES.newText, escapesAngles: true });
  return told ? { hookSpecificOutput: { hookEventName: 'AfterTool', additionalContext: told } } : undefined;
}
