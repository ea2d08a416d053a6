/**
 * Tool input must be well-formed UTF-16. A lone surrogate, written to disk as UTF-8, becomes U+FFFD,
 * and the receipt (content, input) would no longer describe the disk: such input is refused.
 */
import { FormatboxError } from '../core/errors.js';
import type { ToolInput } from '../core/types.js';

/** UTF-16 index of the first lone surrogate in `text`, or -1 when it is well-formed. */
export function loneSurrogateIndex(text: string): number {
  const native = (text as { isWellFormed?: () => boolean }).isWellFormed;
  if (native && native.call(text)) return -1;
  const match = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.exec(text);
  return match ? match.index : -1;
}

/**
 * Refuses text fields that are not well-formed UTF-16 (a lone surrogate): written to disk as UTF-8
 * they would become U+FFFD, and the receipt (content, input) would no longer describe the disk.
 * INVALID_REQUEST with `details.reason: 'not-well-formed'`, the field and the index; nothing is written.
 */
export function assertWellFormedInput(input: ToolInput): void {
  const fields: Array<[string, unknown]> = [];
  for (const key of ['oldText', 'newText', 'content', 'patch'] as const) {
    if (key in input) fields.push([key, (input as unknown as Record<string, unknown>)[key]]);
  }
  const edits = (input as { edits?: unknown }).edits;
  if (Array.isArray(edits)) {
    edits.forEach((edit, i) => {
      if (edit && typeof edit === 'object') {
        fields.push([`edits[${i}].oldText`, (edit as Record<string, unknown>).oldText]);
        fields.push([`edits[${i}].newText`, (edit as Record<string, unknown>).newText]);
      }
    });
  }
  for (const [field, value] of fields) {
    if (typeof value !== 'string') continue;
    const index = loneSurrogateIndex(value);
    if (index < 0) continue;
    const unit = value.charCodeAt(index).toString(16).toUpperCase();
    throw new FormatboxError('INVALID_REQUEST', `${field} is not well-formed Unicode: a lone surrogate \\u${unit} at UTF-16 index ${index}; nothing was written (send the text as valid UTF-16)`, { reason: 'not-well-formed', field, utf16Index: index });
  }
}
