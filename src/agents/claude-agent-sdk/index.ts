/**
 * `formatbox/claude-agent-sdk`: hooks for `@anthropic-ai/claude-agent-sdk`'s `query()`, in the host's
 * own process (no formatbox process is started):
 *
 *   const formatbox = formatboxHooks({ root: process.cwd() });
 *   for await (const message of query({ prompt, options: { hooks: formatbox.hooks } })) …
 *   await formatbox.close();
 *
 * Edit, MultiEdit and Write are formatted **before the write**: PreToolUse computes F from the file
 * and the model's input (the runtime's `beforeWrite`, nothing written) and returns the input that
 * writes F (`updatedInput`, the whole input), checked to replay to F (shared/before-write.ts).
 * Claude Code's own tool then writes the final bytes.
 * The model's tool call keeps the text it sent, so PostToolUse tells it what is on disk for its edit
 * (`additionalContext`, as the Claude Code hook does), once the file is checked to be F.
 * Where no certain rewrite exists (P unreadable or too large, a CRLF or BOM file, no verified
 * rewrite), the edit goes through as sent and PostToolUse formats after the write.
 *
 * Permissions: the hooks never answer `permissionDecision`, so they grant nothing. In the SDK a
 * rewrite needs no `allow`: under `default` the user's `canUseTool` is asked with the rewritten
 * input, as it would have been with the original.
 * A hook never fails the tool: a problem is one bounded line of context.
 */
import { messageOf } from '../../core/errors.js';
import { shownText } from '../../core/shown.js';
import type { EditInput, Receipt, SingleFileInput } from '../../core/types.js';
import { applyInput } from '../../tools/index.js';
import { rewrittenInput } from '../shared/before-write.js';
import { clip, MAX_LINE_CHARS } from '../shared/context.js';
import { createSdkProject, inputOf, type SdkProjectOptions } from '../shared/sdk-project.js';

/** The parts of the SDK's PreToolUse/PostToolUse hook input these hooks read. */
export interface ClaudeToolHookInput {
  hook_event_name: string;
  tool_name?: string;
  tool_input?: unknown;
  tool_response?: unknown;
  tool_use_id?: string;
  cwd?: string;
}

/** What a hook returns (a subset of the SDK's `SyncHookJSONOutput`). */
export type ClaudeHookOutput =
  | Record<string, never>
  | { hookSpecificOutput: { hookEventName: 'PreToolUse'; updatedInput: Record<string, unknown> } }
  | { hookSpecificOutput: { hookEventName: 'PostToolUse'; additionalContext: string } };

/** The SDK's `HookCallback`: any hook input (this adapter checks the fields it reads itself). */
export type ClaudeHookCallback = (input: unknown, toolUseID?: string, options?: { signal: AbortSignal }) => Promise<ClaudeHookOutput>;

export interface ClaudeAgentSdkHooks {
  /** Pass as `options.hooks` of `query()` (or merge with your own matchers per event). */
  hooks: {
    PreToolUse: Array<{ matcher: string; hooks: ClaudeHookCallback[] }>;
    PostToolUse: Array<{ matcher: string; hooks: ClaudeHookCallback[] }>;
  };
  /** Stops the formatter workers (the runtime is created on the first edit). */
  close(): Promise<void>;
}

export type ClaudeAgentSdkOptions = SdkProjectOptions;

/** The tools whose writes are formatted (Claude Code 2.1 has no MultiEdit; newer versions may). */
const MATCHER = 'Edit|MultiEdit|Write';
const TOOLS = new Set(['Edit', 'MultiEdit', 'Write']);
/** Calls prepared and not yet finished, kept at most (one whose PostToolUse never came is dropped). */
const MAX_PENDING_CALLS = 64;

/** What PreToolUse learned about one call, for its PostToolUse. */
interface Prepared {
  path: string;
  /** P; null: the file did not exist. */
  prior: string | null;
  /** The model's input, in formatbox's shape. */
  input: SingleFileInput;
  written: string;
  /** The formatter's answer for W. */
  receipt: Receipt;
  /** Set when the rewrite that writes F was handed to the tool. */
  rewritten?: SingleFileInput;
}

export function formatboxHooks(options: ClaudeAgentSdkOptions = {}): ClaudeAgentSdkHooks {
  const project = createSdkProject(options);
  const pending = new Map<string, Prepared>();

  async function preToolUse(event: ClaudeToolHookInput): Promise<ClaudeHookOutput> {
    if (event.hook_event_name !== 'PreToolUse' || !TOOLS.has(event.tool_name ?? '') || !event.tool_use_id || !isRecord(event.tool_input)) return {};
    const path = project.projectPath(event.tool_input.file_path, event.cwd);
    const input = path && toolInput(event.tool_name!, event.tool_input);
    if (!path || !input) return {};
    const prior = project.readPrior(path);
    // A CRLF or BOM file: Claude Code's tools keep its line endings themselves; format after the write.
    if (prior === undefined || (prior !== null && (prior.includes('\r') || prior.startsWith('\uFEFF')))) return {};
    let written: string;
    try {
      written = applyInput(prior ?? '', input);
    } catch {
      return {}; // The tool will say why the edit does not apply.
    }
    const receipt = await project.runtime().beforeWrite({ path, input });
    const prepared: Prepared = { path, prior, input, written, receipt };
    remember(event.tool_use_id, prepared);
    if (receipt.status !== 'formatted' || receipt.content.includes('\r')) return {};
    const rewritten = rewrittenInput(prior, input, receipt);
    if (!rewritten) return {};
    prepared.rewritten = rewritten;
    return { hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { ...event.tool_input, ...claudeShape(rewritten) } } };
  }

  async function postToolUse(event: ClaudeToolHookInput): Promise<ClaudeHookOutput> {
    if (event.hook_event_name !== 'PostToolUse' || !TOOLS.has(event.tool_name ?? '') || !isRecord(event.tool_input)) return {};
    const prepared = event.tool_use_id ? pending.get(event.tool_use_id) : undefined;
    if (event.tool_use_id) pending.delete(event.tool_use_id);
    const path = prepared?.path ?? project.projectPath(event.tool_input.file_path, event.cwd);
    const onDisk = path === undefined ? undefined : project.readNow(path);
    if (path === undefined || onDisk === undefined) return {};
    if (prepared?.rewritten && onDisk === prepared.receipt.content) {
      // The tool wrote F: tell the model how its own input now reads on disk (the receipt says it as after a write).
      return context(project.contextOf(prepared.receipt, prepared.input, prepared.written, prepared.prior, path));
    }
    if (prepared && !prepared.rewritten && onDisk === prepared.written && prepared.receipt.status !== 'formatted') {
      // Already asked: unchanged needs no word, a failure is said once without formatting again.
      return context(project.contextOf(prepared.receipt, prepared.input, onDisk, prepared.prior, path));
    }
    // Format after the write: the edit went through as the model sent it (or as rewritten, and the file is not F).
    const input = prepared?.rewritten ?? prepared?.input ?? toolInput(event.tool_name!, event.tool_input);
    if (!input) return {};
    const prior = prepared ? prepared.prior : priorFromResponse(event.tool_response);
    return context(await project.formatAfterWrite(path, input, prior, onDisk));
  }

  function remember(id: string, prepared: Prepared): void {
    pending.set(id, prepared);
    while (pending.size > MAX_PENDING_CALLS) pending.delete(pending.keys().next().value as string);
  }

  /** A hook must never fail the tool: anything unforeseen becomes one line of context (or nothing before the write). */
  const guarded = (run: (event: ClaudeToolHookInput) => Promise<ClaudeHookOutput>, event: 'PreToolUse' | 'PostToolUse'): ClaudeHookCallback =>
    async (input) => {
      try {
        return await run(input as ClaudeToolHookInput);
      } catch (error) {
        return event === 'PreToolUse' ? {} : context(shownText(clip(`formatbox: not formatted: ${messageOf(error)}`, MAX_LINE_CHARS)));
      }
    };

  return {
    hooks: {
      PreToolUse: [{ matcher: MATCHER, hooks: [guarded(preToolUse, 'PreToolUse')] }],
      PostToolUse: [{ matcher: MATCHER, hooks: [guarded(postToolUse, 'PostToolUse')] }],
    },
    async close() {
      pending.clear();
      await project.close();
    },
  };
}

function context(text: string | undefined): ClaudeHookOutput {
  return text ? { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: text } } : {};
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The model's input in formatbox's shape. */
function toolInput(tool: string, raw: Record<string, unknown>): SingleFileInput | undefined {
  return inputOf(tool === 'Write' ? 'write' : tool === 'Edit' ? 'edit' : 'multiEdit', raw);
}

/** formatbox's input back in Claude Code's names: the fields that replace the model's. */
function claudeShape(input: SingleFileInput): Record<string, unknown> {
  const edit = (e: EditInput) => ({ old_string: e.oldText, new_string: e.newText, replace_all: e.replaceAll === true });
  if ('content' in input) return { content: input.content };
  if ('edits' in input) return { edits: input.edits.map(edit) };
  return edit(input);
}

/** P from the tool's response: `originalFile` (checked against the file by formatAfterWrite); null for a created file. */
function priorFromResponse(response: unknown): string | null | undefined {
  if (!isRecord(response)) return undefined;
  if (typeof response.originalFile === 'string') return response.originalFile;
  return response.type === 'create' ? null : undefined;
}
