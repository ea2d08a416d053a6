/**
 * The multiEdit tool: `{edits: [{oldText, newText, replaceAll?}, …]}` applied in order, each to the
 * result of the previous ones, all or nothing. Errors name the edit ("edit 2: oldText not found …").
 */
import type { MultiEditInput } from '../core/types.js';
import { FormatboxError } from '../core/errors.js';
import { applyEdits } from './edit.js';

export function applyMultiEdit(prior: string, input: MultiEditInput): string {
  if (!Array.isArray(input.edits)) throw new FormatboxError('INVALID_REQUEST', 'edits must be an array of {oldText, newText}');
  return applyEdits(prior, input.edits, { multi: true }).text;
}
