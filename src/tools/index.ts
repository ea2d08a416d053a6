/**
 * Tool inputs ⇄ edits. An input's shape says which tool it is: `oldText` → edit, `edits` → multiEdit,
 * `content` → write, `patch` → applyPatch. `applyInput(P, input)` is W; reconcile replays with it.
 */
import { FormatboxError } from '../core/errors.js';
import type { EditInput, SingleFileInput, ToolInput, Utf16Range } from '../core/types.js';
import { applyEdits, type AppliedEdits } from './edit.js';
import { applyWrite } from './write.js';
import { assertWellFormedInput } from './well-formed.js';

export { assertWellFormedInput, loneSurrogateIndex } from './well-formed.js';

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

/** The edits of an edit or multiEdit input. */
function editsOf(input: SingleFileInput): EditInput[] {
  const kind = toolKind(input);
  if (kind === 'edit') return [input as EditInput];
  if (kind === 'multiEdit') {
    const edits = (input as { edits: unknown }).edits;
    if (!Array.isArray(edits)) throw new FormatboxError('INVALID_REQUEST', 'edits must be an array of {oldText, newText}');
    return edits as EditInput[];
  }
  throw new FormatboxError('INVALID_REQUEST', `a ${kind} input has no edits`);
}

/**
 * Applies an edit/multiEdit and tells where each replacement landed in W. The result is shared
 * (see `lastApplied`): read it, never change it.
 */
export function applyTracked(prior: string, input: SingleFileInput): AppliedEdits {
  const kind = toolKind(input);
  if (kind === 'write') {
    const text = applyWrite(prior, input as { content: string });
    return { text, sites: [{ edit: 0, start: 0, end: text.length }], effective: [] };
  }
  const edits = editsOf(input);
  const multi = kind === 'multiEdit';
  if (lastApplied && lastApplied.multi === multi && lastApplied.prior === prior && sameEdits(lastApplied.edits, edits)) return lastApplied.applied;
  const applied = applyEdits(prior, edits, { multi });
  // Copies: the result must not change when a caller later changes its own input objects.
  applied.effective = applied.effective.map((edit) => ({ ...edit }));
  lastApplied = { prior, multi, edits: edits.map((edit) => ({ oldText: edit.oldText, newText: edit.newText, replaceAll: edit.replaceAll })), applied };
  return applied;
}

/**
 * The last edit applied, kept by value (a copy of the edits, so a caller that changes its input
 * object afterwards gets a fresh result): the Node runtime applies an edit to write W, and the
 * engine applies the same edit to the same text for the receipt (a scan of the whole file each).
 */
let lastApplied: { prior: string; multi: boolean; edits: EditInput[]; applied: AppliedEdits } | undefined;

function sameEdits(a: readonly EditInput[], b: readonly EditInput[]): boolean {
  return a.length === b.length && a.every((edit, i) => edit.oldText === b[i]!.oldText && edit.newText === b[i]!.newText && edit.replaceAll === b[i]!.replaceAll);
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
  parsePatch, applyParsedPatch, applyPatchText, finalStates, applyChunks, renderFilePatch, wrapPatch, seekSequence,
  type ParsedPatch, type FilePatch, type PatchChunk, type PatchedFile, type AppliedChunk, type RenderFile, type RenderRegion,
} from './apply-patch.js';
