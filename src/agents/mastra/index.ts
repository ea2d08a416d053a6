/**
 * `formatbox/mastra`: an output processor for `@mastra/core` agents whose workspace tools write files
 * (`mastra_workspace_edit_file`, `mastra_workspace_write_file`), in the host's own process:
 *
 *   const formatbox = formatboxProcessor({ root: '/path/to/workspace' });
 *   const agent = new Agent({ …, workspace, outputProcessors: [formatbox] });
 *   …
 *   await formatbox.close();
 *
 * `processOutputStep` (after the model's answer, before its tools run) records each file a call will
 * touch as it is then (P). `processToolResult` (after the tool wrote W) formats the file in the
 * project's formatter, reconciles against P, and appends to the tool's result what the model must
 * know to copy text that is really on disk (the Claude Code hook's context), through
 * `messageList.updateToolInvocation`. A failure is one bounded line; the tool's result always stands.
 * Mastra runs no tool-input rewrite hook, so this is the format after the write only.
 */
import { messageOf } from '../../core/errors.js';
import { shownText } from '../../core/shown.js';
import { clip, MAX_LINE_CHARS } from '../shared/context.js';
import { createSdkProject, inputOf, type SdkProjectOptions } from '../shared/sdk-project.js';

export interface FormatboxMastraOptions extends SdkProjectOptions {
  /**
   * The tool names to format after, as the model sees them. Default: Mastra's workspace tools. Set
   * these when the workspace renames them (`tools: { mastra_workspace_edit_file: { name } }`).
   */
  editTools?: string[];
  writeTools?: string[];
}

/** The parts of Mastra's processor arguments this processor reads. */
interface ToolCallInfo {
  toolName: string;
  toolCallId: string;
  args: unknown;
}
interface MessageListPort {
  updateToolInvocation(part: { type: 'tool-invocation'; toolInvocation: { state: 'result'; toolCallId: string; toolName: string; args: unknown; result: unknown } }): boolean;
}

export interface FormatboxMastraProcessor {
  readonly id: 'formatbox';
  readonly name: 'formatbox';
  processOutputStep(args: { toolCalls?: ToolCallInfo[]; messageList: MessageListPort }): Promise<never>;
  processToolResult(args: { toolName: string; toolCallId: string; args: unknown; result: unknown; messageList: MessageListPort }): Promise<void>;
  /** Stops the formatter workers (the runtime is created on the first edit). */
  close(): Promise<void>;
}

/** Calls recorded and not yet finished, kept at most. */
const MAX_PENDING_CALLS = 64;

export function formatboxProcessor(options: FormatboxMastraOptions = {}): FormatboxMastraProcessor {
  const project = createSdkProject(options);
  const edits = new Set(options.editTools ?? ['mastra_workspace_edit_file']);
  const writes = new Set(options.writeTools ?? ['mastra_workspace_write_file']);
  const priors = new Map<string, string | null | undefined>();
  const kindOf = (tool: string) => (edits.has(tool) ? 'edit' : writes.has(tool) ? 'write' : undefined);
  const pathOf = (args: unknown) => (typeof args === 'object' && args !== null ? project.projectPath((args as Record<string, unknown>).path) : undefined);

  return {
    id: 'formatbox',
    name: 'formatbox',
    // Mastra's type for this method returns messages; the message list passed in is the unchanged answer.
    async processOutputStep({ toolCalls, messageList }) {
      for (const call of toolCalls ?? []) {
        const path = kindOf(call.toolName) && pathOf(call.args);
        if (!path) continue;
        priors.set(call.toolCallId, project.readPrior(path));
        while (priors.size > MAX_PENDING_CALLS) priors.delete(priors.keys().next().value as string);
      }
      return messageList as never;
    },

    async processToolResult({ toolName, toolCallId, args, result, messageList }) {
      const kind = kindOf(toolName);
      const prior = priors.get(toolCallId);
      priors.delete(toolCallId);
      const path = kind && pathOf(args);
      const input = path ? inputOf(kind!, args as Record<string, unknown>) : undefined;
      if (!path || !input) return;
      let note: string | undefined;
      try {
        const written = project.readNow(path);
        if (written === undefined) return;
        note = await project.formatAfterWrite(path, input, prior, written);
      } catch (error) {
        note = shownText(clip(`formatbox: ${path} was not formatted: ${messageOf(error)}`, MAX_LINE_CHARS));
      }
      if (!note) return;
      const told = typeof result === 'string' ? `${result.replace(/\n+$/, '')}\n\n${note}` : { result, formatbox: note };
      messageList.updateToolInvocation({ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId, toolName, args, result: told } });
    },

    async close() {
      priors.clear();
      await project.close();
    },
  };
}
