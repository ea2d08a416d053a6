/**
 * `formatbox/ai-sdk`: ready-made `edit`, `write` and `apply_patch` tools for the Vercel AI SDK (`ai`),
 * each answering the model with what is on disk now (edit-tools.ts). In Node, over a runtime:
 *
 *   import { createRuntime } from 'formatbox/node';
 *   import { formatboxTools } from 'formatbox/ai-sdk';
 *   const tools = formatboxTools(createRuntime({ root: process.cwd() }));
 *   await generateText({ model, tools, stopWhen: stepCountIs(20), prompt });
 *
 * Where there is no file system (Cloudflare `agents` on workerd, a browser), over the universal
 * engine and the caller's files: `formatboxTools({ engine, files })`, `files` being a `FilePort`.
 * Universal: no `node:` import in this graph (the build checks it); `ai` is the user's own.
 */
import { jsonSchema, tool, type Tool } from 'ai';
import type { Engine } from '../../engine/engine.js';
import { EDIT_TOOL_SPECS, portBackend, runEditTool, type EditBackend, type EditToolName, type FilePort } from '../shared/edit-tools.js';

export { portBackend, portPath, EDIT_TOOL_SPECS, runEditTool } from '../shared/edit-tools.js';
export type { EditBackend, EditToolResult, FilePort } from '../shared/edit-tools.js';

export interface EditArgs {
  path: string;
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}
export interface WriteArgs {
  path: string;
  content: string;
}
export interface PatchArgs {
  patch: string;
}

/** A type, not an interface, so that it is assignable to the AI SDK's `ToolSet` (an index signature). */
export type FormatboxTools = {
  edit: Tool<EditArgs, string>;
  write: Tool<WriteArgs, string>;
  apply_patch: Tool<PatchArgs, string>;
};

export interface FormatboxToolsOptions {
  /** The budget for what each result says after its receipt line. Default: the engine's (2,000). */
  maxDiffChars?: number;
}

/**
 * The three tools over `backend`: a `Runtime` from `formatbox/node` (or anything with its `edit`,
 * `write` and `applyPatch`), or `{engine, files}`. A call the backend refuses or cannot apply
 * throws, so the AI SDK hands the model a tool error naming why; the session goes on.
 */
export function formatboxTools(backend: EditBackend | { engine: Engine; files: FilePort }, options: FormatboxToolsOptions = {}): FormatboxTools {
  const edits: EditBackend = 'engine' in backend ? portBackend(backend) : backend;
  const make = <Args>(name: EditToolName): Tool<Args, string> =>
    tool({
      description: EDIT_TOOL_SPECS[name].description,
      inputSchema: jsonSchema<Args>(EDIT_TOOL_SPECS[name].parameters as Parameters<typeof jsonSchema>[0]),
      execute: async (args: Args): Promise<string> => {
        const result = await runEditTool(edits, name, args, options);
        if (result.isError) throw new Error(result.text);
        return result.text;
      },
    });
  return { edit: make<EditArgs>('edit'), write: make<WriteArgs>('write'), apply_patch: make<PatchArgs>('apply_patch') };
}
