/**
 * Tool inputs ⇄ edits. An input's shape says which tool it is: `oldText` → edit, `edits` → multiEdit,
 * `content` → write, `patch` → applyPatch. `applyInput(P, input)` is W; reconcile replays with it.
 */
import { FormatboxError } from '../core/errors.js';
import type { EditInput, SingleFileInput, ToolInput, Utf16Range } from '../core/types.js';
import { applyEdits, type AppliedEdits } from './edit.js';
import { applyWrite } from './write.js';

export type ToolKind = 'edit' | 'multiEdit' | 'write' | 'applyPatch';

export function toolKind(input: ToolInput): ToolKind {
  if (input === null || typeof input !== 'object') throw new FormatboxError('INVALID_REQUEST', 'input must be an object');
  assertWellFormedInput(input);
  if ('patch' in input) return 'applyPatch';
  if ('edits' in input) return 'multiEdit';
  if ('oldText' in input) return 'edit';
  if ('content' in input) return 'write';
  throw new FormatboxError('INVALID_REQUEST', 'input must have oldText (edit), edits (multiEdit), content (write) or patch (applyPatch)');
}

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

/** The edits of an edit or multiEdit input. */
export function editsOf(input: SingleFileInput): EditInput[] {
  const kind = toolKind(input);
  if (kind === 'edit') return [input as EditInput];
  if (kind === 'multiEdit') {
    const edits = (input as { edits: unknown }).edits;
    if (!Array.isArray(edits)) throw new FormatboxError('INVALID_REQUEST', 'edits must be an array of {oldText, newText}');
    return edits as EditInput[];
  }
  throw new FormatboxError('INVALID_REQUEST', `a ${kind} input has no edits`);
}

/** Applies an edit/multiEdit and tells where each replacement landed in W. */
export function applyTracked(prior: string, input: SingleFileInput): AppliedEdits {
  const kind = toolKind(input);
  if (kind === 'write') {
    const text = applyWrite(prior, input as { content: string });
    return { text, sites: [{ edit: 0, start: 0, end: text.length }], effective: [] };
  }
  return applyEdits(prior, editsOf(input), { multi: kind === 'multiEdit' });
}

/**
 * W: the prior with a single-file input applied. Throws FormatboxError('EDIT_NOT_APPLICABLE')
 * ("oldText matches 3 times; add context or set replaceAll", "oldText not found; …", "edits 1 and 2 overlap; …").
 */
export function applyInput(prior: string, input: SingleFileInput): string {
  if (toolKind(input) === 'applyPatch') throw new FormatboxError('INVALID_REQUEST', 'applyInput takes one file; use applyPatchText for a patch');
  return applyTracked(prior, input).text;
}

/**
 * The regions of W that the input wrote (UTF-16 offsets in W), sorted; a write covers the whole file.
 * Used for `scope: 'edit'`.
 */
export function editedRegions(prior: string, input: SingleFileInput): Utf16Range[] {
  return applyTracked(prior, input).sites.map((site) => ({ utf16Start: site.start, utf16End: site.end }));
}

export { applyEdit, applyEdits, occurrences, type AppliedEdits, type EditSite } from './edit.js';
export { applyMultiEdit } from './multi-edit.js';
export { applyWrite } from './write.js';
export {
  parsePatch, applyParsedPatch, applyPatchText, applyChunks, renderFilePatch, wrapPatch, seekSequence,
  type ParsedPatch, type FilePatch, type PatchChunk, type PatchedFile, type AppliedChunk, type RenderFile, type RenderRegion,
} from './apply-patch.js';
