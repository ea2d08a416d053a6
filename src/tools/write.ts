/** The write tool: the whole file becomes `content`. */
import type { WriteInput } from '../core/types.js';
import { FormatboxError } from '../core/errors.js';

export function applyWrite(_prior: string | null, input: WriteInput): string {
  if (typeof input.content !== 'string') throw new FormatboxError('INVALID_REQUEST', 'content must be a string');
  return input.content;
}
