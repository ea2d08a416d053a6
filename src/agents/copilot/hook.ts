/**
 * `formatbox hook copilot`: GitHub Copilot CLI's `preToolUse` and `postToolUse` hooks for its `edit`
 * `{path, old_str, new_str}` and `create` `{path, file_text}` tools (camelCase payloads:
 * `{cwd, toolName, toolArgs}`, plus `toolResult` after the tool ran).
 *
 * Before the write, the answer's `modifiedArgs` (the whole argument object) is the model's edit
 * rewritten to write the formatted text (shared/hook-before-write.ts). Copilot's transcript then shows
 * the rewritten arguments as the model's own call, so the model is told nothing more. No
 * `permissionDecision` is given: Copilot asks the user exactly as it would have. Where the rewrite
 * cannot be verified, the edit passes through and `postToolUse` formats the written file, telling
 * the model through `additionalContext` (appended to the tool result, unescaped).
 */
import { formatAfterWrite } from '../shared/after-write.js';
import { formatBeforeWrite } from '../shared/hook-before-write.js';
import type { HookContext } from '../module.js';
import type { EditInput } from '../../core/types.js';

interface CopilotEvent {
  cwd?: unknown;
  toolName?: unknown;
  toolArgs?: unknown;
  toolResult?: { resultType?: unknown };
}

export async function copilotHook(raw: unknown, context: HookContext): Promise<Record<string, unknown> | undefined> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const event = raw as CopilotEvent;
  const args = argsOf(event.toolArgs);
  if (!args) return undefined;
  const input = inputOf(event.toolName, args);
  if (!input || typeof args.path !== 'string') return undefined;
  const cwd = typeof event.cwd === 'string' && event.cwd !== '' ? event.cwd : context.cwd;
  if (event.toolResult === undefined) {
    const outcome = await formatBeforeWrite({ cwd, filePath: args.path, input, handler: context.handler, maxGrowthChars: context.maxDiffChars });
    if (outcome.kind !== 'rewrite') return undefined;
    const rewritten = outcome.input;
    return { modifiedArgs: 'content' in rewritten ? { ...args, file_text: rewritten.content } : { ...args, old_str: (rewritten as EditInput).oldText, new_str: (rewritten as EditInput).newText } };
  }
  if (event.toolResult?.resultType !== 'success') return undefined;
  const told = await formatAfterWrite({ cwd, filePath: args.path, input, handler: context.handler, budget: context.maxDiffChars, newTextName: 'new_str', escapesAngles: false });
  return told ? { additionalContext: told } : undefined;
}

/** Copilot sends the arguments as an object (as a JSON string in some payloads). */
function argsOf(value: unknown): Record<string, unknown> | undefined {
  let args = value;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return undefined;
    }
  }
  return args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : undefined;
}

function inputOf(tool: unknown, args: Record<string, unknown>): EditInput | { content: string } | undefined {
  if (tool === 'create') return typeof args.file_text === 'string' ? { content: args.file_text } : undefined;
  if (tool === 'edit') return typeof args.old_str === 'string' && args.old_str !== '' && typeof args.new_str === 'string' ? { oldText: args.old_str, newText: args.new_str } : undefined;
  return undefined;
}
