/**
 * `formatbox/openai-agents`: formatbox as the `Editor` of the OpenAI Agents SDK's
 * `applyPatchTool({editor})`, and `edit`/`write` function tools, each answering the model with what
 * is on disk now (edit-tools.ts):
 *
 *   import { createRuntime } from 'formatbox/node';
 *   import { formatboxTools } from 'formatbox/openai-agents';
 *   const { applyPatch, edit, write } = formatboxTools(createRuntime({ root: process.cwd() }));
 *   const agent = new Agent({ name: 'coder', tools: [applyPatch, edit, write] });
 *
 * Each apply_patch operation (a V4A diff for one file, as the Responses API sends it) becomes a
 * Codex patch for that file, applied all or nothing, formatted and reconciled; the Editor's `output`,
 * which the SDK sends to the model, is the receipt line and the patch as it is on disk. Where there
 * is no file system, `formatboxTools({ engine, files })` runs over the universal engine and a file
 * port. Universal: no `node:` import in this graph; `@openai/agents` is the user's own.
 */
import { applyPatchTool, tool, type ApplyPatchResult, type ApplyPatchTool, type Editor, type FunctionTool } from '@openai/agents';
import { FormatboxError } from '../../core/errors.js';
import type { Engine } from '../../engine/engine.js';
import { EDIT_TOOL_SPECS, portBackend, runEditTool, type EditBackend, type FilePort } from '../shared/edit-tools.js';

export { portBackend, portPath } from '../shared/edit-tools.js';
export type { EditBackend, FilePort } from '../shared/edit-tools.js';

export interface FormatboxAgentTools {
  /** `applyPatchTool({ editor })` with formatbox's editor. */
  applyPatch: ApplyPatchTool;
  edit: FunctionTool;
  write: FunctionTool;
  /** The editor alone, for an `applyPatchTool` of your own (approvals, another name). */
  editor: Editor;
}

export interface FormatboxAgentToolsOptions {
  /** The budget for what each result says after its receipt line. Default: the engine's (2,000). */
  maxDiffChars?: number;
}

type Backend = EditBackend | { engine: Engine; files: FilePort };
const backendOf = (backend: Backend): EditBackend => ('engine' in backend ? portBackend(backend) : backend);

/** formatbox as an apply_patch `Editor`: each operation applied, formatted, and answered with what is on disk. */
export function formatboxEditor(backend: Backend, options: FormatboxAgentToolsOptions = {}): Editor {
  const edits = backendOf(backend);
  const apply = async (header: string[], diff?: string): Promise<ApplyPatchResult> => {
    let patch: string;
    try {
      patch = codexPatch(header, diff);
    } catch (error) {
      return { status: 'failed', output: `formatbox: ${(error as Error).message}` };
    }
    const result = await runEditTool(edits, 'apply_patch', { patch }, options);
    return { status: result.isError ? 'failed' : 'completed', output: result.text };
  };
  return {
    createFile: (operation) => apply([`*** Add File: ${operation.path}`], operation.diff),
    updateFile: (operation) => {
      const moveTo = (operation as { moveTo?: unknown }).moveTo;
      return apply([`*** Update File: ${operation.path}`, ...(typeof moveTo === 'string' ? [`*** Move to: ${moveTo}`] : [])], operation.diff);
    },
    deleteFile: (operation) => apply([`*** Delete File: ${operation.path}`]),
  };
}

/** The apply_patch tool (formatbox's editor) and `edit`/`write` function tools over `backend`. */
export function formatboxTools(backend: Backend, options: FormatboxAgentToolsOptions = {}): FormatboxAgentTools {
  const edits = backendOf(backend);
  const editor = formatboxEditor(edits, options);
  const functionTool = (name: 'edit' | 'write'): FunctionTool =>
    tool({
      name,
      description: EDIT_TOOL_SPECS[name].description,
      parameters: EDIT_TOOL_SPECS[name].parameters as never,
      strict: false,
      // A refused or failed call is said to the model as the result: the run goes on.
      execute: async (args: unknown) => (await runEditTool(edits, name, args, options)).text,
    }) as unknown as FunctionTool;
  return { applyPatch: applyPatchTool({ editor }), edit: functionTool('edit'), write: functionTool('write'), editor };
}

/**
 * One operation as a Codex patch. The model's path and diff are untrusted: a line break in a path,
 * or a diff line that would start another file's operation, would reach files the operation does
 * not name, so both are refused.
 */
function codexPatch(header: string[], diff?: string): string {
  if (header.some((line) => /[\r\n\0]/.test(line))) throw new FormatboxError('INVALID_REQUEST', 'a path with a line break or NUL is not a path');
  const body = diff === undefined ? [] : diff.replace(/\n$/, '').split('\n');
  if (body.some((line) => line.startsWith('*** ') && line.trim() !== '*** End of File')) {
    throw new FormatboxError('INVALID_REQUEST', 'the diff holds a patch header line (*** …); one operation is one file');
  }
  return ['*** Begin Patch', ...header, ...body, '*** End Patch', ''].join('\n');
}
