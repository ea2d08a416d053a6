/**
 * A hook agent's edit and write tools, named by their argument keys: how the model's edit is read
 * from a hook's tool arguments, and how a rewritten edit is put back into them (every other argument
 * kept, since the agents validate the whole object as the tool's parameters). One mapping serves
 * every hook agent; each names its keys once.
 */
import type { EditInput, WriteInput } from '../../core/types.js';

export interface ToolArgNames {
  /** The edit tool's old text (`old_string`, `old_str`, `old_text`). */
  oldText: string;
  newText: string;
  /** The edit tool's replace-all flag, where it has one (`allow_multiple`, `replace_all`). */
  replaceAll?: string;
  /** The write tool's content (`content`, `file_text`; cline's `new_text`). */
  content: string;
}

/** The model's edit: a non-empty old text and a new text, both strings; otherwise none. */
export function editFromArgs(args: Record<string, unknown>, names: ToolArgNames): EditInput | undefined {
  const oldText = args[names.oldText];
  const newText = args[names.newText];
  if (typeof oldText !== 'string' || oldText === '' || typeof newText !== 'string') return undefined;
  return { oldText, newText, ...(names.replaceAll !== undefined && args[names.replaceAll] === true ? { replaceAll: true } : {}) };
}

/** The model's write: its content, when a string. */
export function writeFromArgs(args: Record<string, unknown>, names: ToolArgNames): WriteInput | undefined {
  const content = args[names.content];
  return typeof content === 'string' ? { content } : undefined;
}

/** `args` with the rewritten edit or content in place of the model's. */
export function argsWithInput(args: Record<string, unknown>, rewritten: EditInput | WriteInput, names: ToolArgNames): Record<string, unknown> {
  return 'content' in rewritten
    ? { ...args, [names.content]: rewritten.content }
    : { ...args, [names.oldText]: rewritten.oldText, [names.newText]: rewritten.newText };
}

/** A hook event's object, or undefined for anything else. */
export function recordOf(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The event's working directory when it names one, else the hook's own. */
export function eventCwd(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}
