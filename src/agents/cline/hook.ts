/**
 * `formatbox hook cline`: cline's `PreToolUse` and `PostToolUse` hook scripts for its `editor` tool
 * `{path, old_text, new_text}` (a missing `old_text` creates the file from `new_text`). cline sends
 * `{hookName: 'tool_call' | 'tool_result', workspaceRoots, preToolUse | postToolUse}` and reads
 * `{overrideInput, contextModification}` back from stdout.
 *
 * Before the write, `overrideInput` (the whole input) is the model's edit rewritten to write the
 * formatted text (shared/hook-before-write.ts). cline's transcript keeps the model's own call and its
 * result does not show the text, so `contextModification` (added unescaped as hook context) tells
 * the model each changed edit's text on disk. A hook grants nothing: cline's approval is unchanged.
 * Where the rewrite cannot be verified, the edit passes through and PostToolUse formats the file.
 */
import type { EditInput } from '../../core/types.js';
import type { HookContext } from '../module.js';
import { formatAfterWrite } from '../shared/after-write.js';
import { formatBeforeWrite, rewriteNote } from '../shared/hook-before-write.js';
import { argsWithInput, editFromArgs, recordOf, writeFromArgs, type ToolArgNames } from '../shared/tool-args.js';

/** cline's `editor` writes a file when it has no `old_text`: its content is `new_text` too. */
const NAMES: ToolArgNames = { oldText: 'old_text', newText: 'new_text', content: 'new_text' };

interface ClineEvent {
  hookName?: unknown;
  workspaceRoots?: unknown;
  preToolUse?: { toolName?: unknown; parameters?: unknown };
  postToolUse?: { toolName?: unknown; parameters?: unknown; success?: unknown };
}

export async function clineHook(raw: unknown, context: HookContext): Promise<Record<string, unknown> | undefined> {
  const event = recordOf(raw) as ClineEvent | undefined;
  if (!event) return undefined;
  const pre = event.hookName === 'tool_call' ? event.preToolUse : undefined;
  const post = event.hookName === 'tool_result' ? event.postToolUse : undefined;
  const call = pre ?? post;
  const params = call?.toolName === 'editor' ? recordOf(call.parameters) : undefined;
  if (!params) return undefined;
  const input = inputOf(params);
  if (!input || typeof params.path !== 'string') return undefined;
  const roots = Array.isArray(event.workspaceRoots) ? event.workspaceRoots : [];
  const cwd = typeof roots[0] === 'string' && roots[0] !== '' ? roots[0] : context.cwd;
  if (pre) {
    const outcome = await formatBeforeWrite({ cwd, filePath: params.path, input, handler: context.handler, maxGrowthChars: context.maxDiffChars });
    if (outcome.kind !== 'rewrite') return undefined;
    const note = rewriteNote(outcome, input, NAMES.newText, context.maxDiffChars);
    return { overrideInput: argsWithInput(params, outcome.input, NAMES), ...(note ? { contextModification: note } : {}) };
  }
  if (post?.success !== true) return undefined;
  const told = await formatAfterWrite({ cwd, filePath: params.path, input, handler: context.handler, budget: context.maxDiffChars, newTextName: NAMES.newText, escapesAngles: false });
  return told ? { contextModification: told } : undefined;
}

function inputOf(params: Record<string, unknown>): EditInput | { content: string } | undefined {
  if (params.insert_line !== undefined && params.insert_line !== null) return undefined; // An insertion by line number: formatted after the write.
  return params.old_text === undefined || params.old_text === null ? writeFromArgs(params, NAMES) : editFromArgs(params, NAMES);
}
