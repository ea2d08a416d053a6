/**
 * Formatting before the write, for agents whose hooks may rewrite an edit before their tool runs
 * (Claude Code's PreToolUse `updatedInput`, opencode's `tool.execute.before`): from P (the file as
 * it is), the model's input and the `beforeWrite` receipt (F: what writing the input and formatting
 * would leave on disk), the input in the tool's own shape that makes the agent's tool write F.
 *
 * The receipt's rewritten input is used when it alone yields F (the formatter changed text only
 * inside the edits); otherwise one edit covering every change, widened line by line until its old
 * text occurs once in P. Every candidate is checked by applying it to P: an input that does not give
 * F byte for byte is never returned, and the agent's edit then goes through as the model wrote it
 * (formatted after the write).
 */
import type { EditInput, Receipt, SingleFileInput } from '../../core/types.js';
import { applyInput, occurrences } from '../../tools/index.js';

/**
 * The input that writes F, or undefined: nothing to rewrite (the formatter would change nothing, or
 * did not run) or no verified rewrite (then format after the write). `prior` null: a new file.
 */
export function rewrittenInput(prior: string | null, input: SingleFileInput, receipt: Receipt): SingleFileInput | undefined {
  if (receipt.status !== 'formatted' || typeof receipt.content !== 'string') return undefined;
  const final = receipt.content;
  if ('content' in input) return { content: final };
  if (prior === null) return undefined;
  const candidates: SingleFileInput[] = [];
  const reconciled = receipt.input as SingleFileInput | undefined;
  if (reconciled && !receipt.diff && !('content' in reconciled) && !('patch' in reconciled)) candidates.push(reconciled);
  const span = uniqueSpan(prior, final);
  if (span) candidates.push('edits' in input ? { edits: [span] } : span);
  return candidates.find((candidate) => yields(prior, candidate, final) && sameShape(input, candidate));
}

function yields(prior: string, input: SingleFileInput, final: string): boolean {
  try {
    return applyInput(prior, input) === final;
  } catch {
    return false;
  }
}

function sameShape(sent: SingleFileInput, candidate: SingleFileInput): boolean {
  return ('edits' in sent) === ('edits' in candidate) && ('oldText' in sent) === ('oldText' in candidate);
}

/**
 * One edit turning `prior` into `final`: the changed span (after the common prefix and before the
 * common suffix) taken out to whole lines, then a line more on each side until its old text occurs
 * exactly once in `prior`. Undefined when the texts are equal or no such span exists.
 */
export function uniqueSpan(prior: string, final: string): EditInput | undefined {
  if (prior === final) return undefined;
  let head = 0;
  const shorter = Math.min(prior.length, final.length);
  while (head < shorter && prior.charCodeAt(head) === final.charCodeAt(head)) head++;
  let tail = 0;
  while (tail < shorter - head && prior.charCodeAt(prior.length - 1 - tail) === final.charCodeAt(final.length - 1 - tail)) tail++;
  // [start, priorEnd) in prior becomes [start, finalEnd) in final; the common suffix has the same length in both.
  let start = lineStart(prior, head);
  let priorEnd = lineEnd(prior, prior.length - tail);
  for (;;) {
    const oldText = prior.slice(start, priorEnd);
    if (oldText !== '' && occurrences(prior, oldText, 2).length === 1) {
      const finalEnd = final.length - (prior.length - priorEnd);
      return { oldText, newText: final.slice(start, finalEnd) };
    }
    if (start === 0 && priorEnd === prior.length) return undefined;
    start = start === 0 ? 0 : lineStart(prior, start - 1);
    priorEnd = priorEnd === prior.length ? priorEnd : lineEnd(prior, priorEnd + 1);
  }
}

/** The offset of the start of the line holding `at`. */
function lineStart(text: string, at: number): number {
  return text.lastIndexOf('\n', at - 1) + 1;
}

/** The offset just after the newline ending the line holding `at` (the text's end on its last line). */
function lineEnd(text: string, at: number): number {
  if (at > 0 && text[at - 1] === '\n') return at;
  const newline = text.indexOf('\n', at);
  return newline === -1 ? text.length : newline + 1;
}
