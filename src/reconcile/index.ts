/**
 * Reconciliation: the product's heart. `replay(P, receipt.input)`, then `receipt.diff`, equals F.
 * - `reconcile` (pure, one file) rewrites an edit/multiEdit/write input against the formatted text.
 * - `reconcilePatchFile` does the same for one file of a patch (line-based).
 * - `afterEdit` formats through an injected `format` and builds the `Receipt` / `PatchReceipt`.
 */
export { reconcile, type ReconcileRequest, type ReconcileResult } from './reconcile.js';
export { reconcilePatchFile, replayPart, type PatchFileResult } from './patch.js';
export { afterEdit, type AfterEditDeps, type AfterEditRequest, type PatchReceipt, type Report } from './after-edit.js';
export { renderNote, rereadHint, changedLineRanges } from './note.js';
export { formatterHunks, type Hunk } from './hunks.js';
