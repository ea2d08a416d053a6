/**
 * The edit and multiEdit tools: exact string replacement, applied the way agent harnesses do it.
 * Pure. The Node runtime uses the same functions for real edits, and reconcile uses them to replay.
 *
 * Rules (shared by edit and multiEdit, whose edits apply in order, each to the previous result):
 * - `oldText` must occur exactly once unless `replaceAll` is set (then at least once).
 * - `oldText: ''` is allowed only on an empty file (it creates the content).
 * - In a CRLF file, an `oldText` written with LF that is not found as-is is retried with CRLF,
 *   and its `newText` then gets CRLF too (harnesses show CRLF files with LF).
 * - In a multiEdit, an edit may not overlap or touch the text an earlier edit wrote ("edits 1 and 2 overlap",
 *   "edits 1 and 2 are adjacent").
 */
import { FormatboxError } from '../core/errors.js';
import type { EditInput } from '../core/types.js';

/** Where one replacement landed in the written text W (UTF-16 offsets), and which edit made it. */
export interface EditSite {
  /** Index of the edit in the (multi)edit. */
  edit: number;
  start: number;
  end: number;
}

export interface AppliedEdits {
  /** W: the prior with every edit applied. */
  text: string;
  /** Every replacement site, sorted by position in W. Sites never overlap (they may touch). */
  sites: EditSite[];
  /** The edits as applied: differs from the input only when CRLF was adapted. */
  effective: EditInput[];
}

/** Non-overlapping occurrences of `needle` in `haystack`, left to right. */
export function occurrences(haystack: string, needle: string, limit = Infinity): number[] {
  const found: number[] = [];
  if (needle === '') return found;
  let at = haystack.indexOf(needle);
  while (at !== -1 && found.length < limit) {
    found.push(at);
    at = haystack.indexOf(needle, at + needle.length);
  }
  return found;
}

function notApplicable(message: string, details?: Record<string, unknown>): FormatboxError {
  return new FormatboxError('EDIT_NOT_APPLICABLE', message, details);
}

function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

/**
 * Applies edits in order and records where each replacement landed.
 * Throws FormatboxError('EDIT_NOT_APPLICABLE') with a short, actionable message.
 */
export function applyEdits(prior: string, edits: readonly EditInput[], options: { multi: boolean }): AppliedEdits {
  if (edits.length === 0) throw notApplicable('edits is empty; give at least one {oldText, newText}');
  let text = prior;
  let sites: EditSite[] = [];
  const effective: EditInput[] = [];
  for (const [index, raw] of edits.entries()) {
    const label = options.multi ? `edit ${index + 1}: ` : '';
    if (!raw || typeof raw.oldText !== 'string' || typeof raw.newText !== 'string') {
      throw new FormatboxError('INVALID_REQUEST', `${label}oldText and newText must be strings`);
    }
    let edit: EditInput = raw;
    if (edit.oldText === '') {
      if (text !== '') {
        throw notApplicable(`${label}oldText is empty; quote the text to replace (or use write to replace the whole file)`);
      }
      text = edit.newText;
      sites = [{ edit: index, start: 0, end: edit.newText.length }];
      effective.push(edit);
      continue;
    }
    let found = occurrences(text, edit.oldText);
    if (found.length === 0 && edit.oldText.includes('\n') && !edit.oldText.includes('\r') && text.includes('\r\n')) {
      const adapted = { ...edit, oldText: toCrlf(edit.oldText), newText: toCrlf(edit.newText) };
      const again = occurrences(text, adapted.oldText);
      if (again.length > 0) {
        edit = adapted;
        found = again;
      }
    }
    if (found.length === 0) throw notApplicable(`${label}oldText not found; reread the file and copy the text exactly`);
    if (found.length > 1 && !edit.replaceAll) {
      throw notApplicable(`${label}oldText matches ${found.length} times; add context or set replaceAll`, { matches: found.length });
    }
    // Map existing sites through this edit's replacements; refuse overlaps with earlier edits' text.
    const delta = edit.newText.length - edit.oldText.length;
    const next: EditSite[] = [];
    let f = 0;
    let shift = 0;
    for (const site of sites) {
      while (f < found.length && (found[f] as number) + edit.oldText.length <= site.start) {
        // Touching blocks are refused too: which edit owns the text at the seam would be a guess.
        if (options.multi && (found[f] as number) + edit.oldText.length === site.start) {
          throw notApplicable(`edits ${site.edit + 1} and ${index + 1} are adjacent; merge them into one edit`);
        }
        f++;
        shift += delta;
      }
      const at = found[f];
      if (at !== undefined && at < site.end && at + edit.oldText.length > site.start) {
        throw notApplicable(`edits ${site.edit + 1} and ${index + 1} overlap; merge them into one edit`);
      }
      if (at !== undefined && options.multi && at === site.end) {
        throw notApplicable(`edits ${site.edit + 1} and ${index + 1} are adjacent; merge them into one edit`);
      }
      next.push({ edit: site.edit, start: site.start + shift, end: site.end + shift });
    }
    for (const [k, at] of found.entries()) {
      const start = at + k * delta;
      next.push({ edit: index, start, end: start + edit.newText.length });
    }
    next.sort((x, y) => x.start - y.start || x.end - y.end);
    const parts: string[] = [];
    let cursor = 0;
    for (const at of found) {
      parts.push(text.slice(cursor, at), edit.newText);
      cursor = at + edit.oldText.length;
    }
    parts.push(text.slice(cursor));
    text = parts.join('');
    sites = next;
    effective.push(edit);
  }
  return { text, sites, effective };
}

/** The edit tool: W = prior with `{oldText, newText, replaceAll?}` applied. */
export function applyEdit(prior: string, input: EditInput): string {
  return applyEdits(prior, [input], { multi: false }).text;
}
