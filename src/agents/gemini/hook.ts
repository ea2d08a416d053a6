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
import type { EditInput } from '../../core/types.js';
import type { HookContext } from '../module.js';
import { formatAfterWrite } from '../shared/after-write.js';
import { formatBeforeWrite } from '../shared/hook-before-write.js';

interface GeminiEvent {
  hook_event_name?: unknown;
  cwd?: unknown;
  tool_name?: unknown;
  tool_input?: unknown;
}

export async function geminiHook(raw: unknown, context: HookContext): Promise<Record<string, unknown> | undefined> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const event = raw as GeminiEvent;
  const args = event.tool_input;
  if (!args || typeof args !== 'object' || Array.isArray(args)) return undefined;
  const toolInput = args as Record<string, unknown>;
  const input = inputOf(event.tool_name, toolInput);
  if (!input || typeof toolInput.file_path !== 'string') return undefined;
  const cwd = typeof event.cwd === 'string' && event.cwd !== '' ? event.cwd : context.cwd;
  if (event.hook_event_name === 'BeforeTool') {
    const outcome = await formatBeforeWrite({ cwd, filePath: toolInput.file_path, input, handler: context.handler, maxGrowthChars: context.maxDiffChars });
    if (outcome.kind !== 'rewrite') return undefined;
    const rewritten = outcome.input;
    const tool_input = 'content' in rewritten
      ? { ...toolInput, content: rewritten.content }
      : { ...toolInput, old_string: (rewritten as EditInput).oldText, new_string: (rewritten as EditInput).newText };
    return { hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input } };
  }
  if (event.hook_event_name !== 'AfterTool') return undefined;
  const told = await formatAfterWrite({ cwd, filePath: toolInput.file_path, input, handler: context.handler, budget: context.maxDiffChars, newTextName: 'new_string', escapesAngles: true });
  return told ? { hookSpecificOutput: { hookEventName: 'AfterTool', additionalContext: told } } : undefined;
}

function inputOf(tool: unknown, args: Record<string, unknown>): EditInput | { content: string } | undefined {
  if (tool === 'write_file') return typeof args.content === 'string' ? { content: args.content } : undefined;
  if (tool !== 'replace' || typeof args.old_string !== 'string' || args.old_string === '' || typeof args.new_string !== 'string') return undefined;
  return { oldText: args.old_string, newText: args.new_string, ...(args.allow_multiple === true ? { replaceAll: true } : {}) };
}
