/**
 * Format before the write: given the file as it is (P), the model's input and what the formatter
 * makes of P with that input applied (F), the input in the tool's own shape that writes F, so the
 * agent's own tool writes the final bytes and nothing is rewritten after it.
 *
 * It is the receipt's rewritten input (src/reconcile), accepted only when the formatter changed
 * nothing outside what the input covers (no `diff`) and only after replaying it: `replay(P, input')`
 * must equal F byte for byte. Anything else is undefined, and the caller lets the edit through as
 * the model sent it and formats after the write. Pure: no file system, no formatter.
 */
import type { SingleFileInput } from '../core/types.js';
import { reconcile } from '../reconcile/index.js';
import { applyInput } from '../tools/index.js';

/** The input that writes `final` over `prior` (null: a new file), or undefined when there is none that is certain. */
export function rewriteBeforeWrite(prior: string | null, input: SingleFileInput, final: string): SingleFileInput | undefined {
  if ('content' in input) return { content: final };
  if (prior === null) return undefined;
  let rewritten: SingleFileInput;
  try {
    const result = reconcile({ prior, input, final });
    if (!result.reconciled || result.diff !== undefined) return undefined;
    rewritten = result.input;
  } catch {
    return undefined;
  }
  try {
    return applyInput(prior, rewritten) === final ? rewritten : undefined;
  } catch {
    return undefined;
  }
}
