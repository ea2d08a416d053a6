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
import { argsWithInput, editFromArgs, eventCwd, recordOf, writeFromArgs, type ToolArgNames } from '../shared/tool-args.js';

const NAMES: ToolArgNames = { oldText: 'old_str', newText: 'new_str', content: 'file_text' };

interface CopilotEvent {
  cwd?: unknown;
  toolName?: unknown;
  toolArgs?: unknown;
  toolResult?: { resultType?: unknown };
}

export async function copilotHook(raw: unknown, context: HookContext): Promise<Record<string, unknown> | undefined> {
  const event = recordOf(raw) as CopilotEvent | undefined;
  const args = event && argsOf(event.toolArgs);
  if (!event || !args) return undefined;
  const input = event.toolName === 'create' ? writeFromArgs(args, NAMES) : event.toolName === 'edit' ? editFromArgs(args, NAMES) : undefined;
  if (!input || typeof args.path !== 'string') return undefined;
  const cwd = eventCwd(event.cwd, context.cwd);
  if (event.toolResult === undefined) {
    const outcome = await formatBeforeWrite({ cwd, filePath: args.path, input, handler: context.handler, maxGrowthChars: context.maxDiffChars });
    if (outcome.kind !== 'rewrite') return undefined;
    return { modifiedArgs: argsWithInput(args, outcome.input, NAMES) };
  }
  if (event.toolResult?.resultType !== 'success') return undefined;
  const told = await formatAfterWrite({ cwd, filePath: args.path, input, handler: context.handler, budget: context.maxDiffChars, newTextName: NAMES.newText, escapesAngles: false });
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
  return recordOf(args);
}
