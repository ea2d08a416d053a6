/** A file's bytes as the text a tool works on, and tool errors that name the file. */
import { FormatboxError, isFormatboxError, messageOf } from '../../core/errors.js';
import type { FileSnapshot } from '../fs/read.js';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The bytes as UTF-8 text (a BOM kept); undefined when they are not UTF-8. */
export function decode(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** P as text: UTF-8, or (for a `write` replacing a file that is not UTF-8) its bytes as latin1. */
export function priorText(snapshot: FileSnapshot, tool: 'edit' | 'multiEdit' | 'write', shown: string): string {
  const decoded = decode(snapshot.bytes);
  if (decoded !== undefined) return decoded;
  if (tool !== 'write') throw new FormatboxError('EDIT_NOT_APPLICABLE', `${shown} is not UTF-8 text; edit works on UTF-8 files only (use write to replace it)`);
  return new TextDecoder('latin1').decode(snapshot.bytes);
}

/** Tool errors name the file, so the agent knows which call to fix. */
export function withPath<T>(path: string | undefined, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (!isFormatboxError(error)) throw new FormatboxError('EDIT_NOT_APPLICABLE', messageOf(error));
    if (path === undefined || error.message.includes(path)) throw error;
    throw new FormatboxError(error.code, `${path}: ${error.message}`, error.details);
  }
}
