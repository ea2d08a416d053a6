import type { Utf16Range } from './types.js';

/**
 * Formatters see BOM-free, LF-only text; files keep their own BOM and line endings.
 * `prepareForFormatter` records what was removed, `restoreAfterFormatter` puts it back
 * (Prettier's core.js does the same bookkeeping). Lines the formatter left as they were keep
 * their own ending in mixed files; new lines take the file's dominant ending.
 */
export interface PreparedText {
  /** LF-only, BOM-free text for the formatter. */
  text: string;
  bom: boolean;
  /** Line endings of the original, in order (one per line that had one). */
  endings: string[];
  /** Original lines (without endings), aligned with `endings`. */
  lines: string[];
  dominant: '\n' | '\r\n' | '\r';
  uniform: boolean;
  /** The requested range mapped into `text`. */
  range?: Utf16Range;
}

const LINE_BREAK = /\r\n|\r|\n/g;

export function prepareForFormatter(original: string, range?: Utf16Range): PreparedText {
  const bom = original.charCodeAt(0) === 0xfeff;
  const body = bom ? original.slice(1) : original;
  const lines: string[] = [];
  const endings: string[] = [];
  let last = 0;
  for (const match of body.matchAll(LINE_BREAK)) {
    lines.push(body.slice(last, match.index));
    endings.push(match[0]);
    last = match.index! + match[0].length;
  }
  lines.push(body.slice(last));
  const counts = { '\n': 0, '\r\n': 0, '\r': 0 } as Record<string, number>;
  for (const ending of endings) counts[ending]!++;
  const dominant = (['\n', '\r\n', '\r'] as const).reduce((best, e) => (counts[e]! > counts[best]! ? e : best), '\n' as '\n' | '\r\n' | '\r');
  const uniform = endings.every((e) => e === dominant);
  const text = uniform && dominant === '\n' ? body : lines.join('\n');
  const prepared: PreparedText = { text, bom, endings, lines, dominant, uniform };
  if (range) {
    prepared.range = { utf16Start: mapOffset(body, range.utf16Start - (bom ? 1 : 0)), utf16End: mapOffset(body, range.utf16End - (bom ? 1 : 0)) };
  }
  return prepared;
}

/** Offset in the original body → offset in its LF-normalised form (each removed `\r` of a CRLF shifts by one). */
function mapOffset(body: string, offset: number): number {
  const clamped = Math.max(0, Math.min(offset, body.length));
  let removed = 0;
  for (let i = 0; i < clamped; i++) {
    if (body.charCodeAt(i) === 13 && body.charCodeAt(i + 1) === 10) removed++;
  }
  return clamped - removed;
}

/** How far ahead to look for an unchanged original line when restoring mixed endings. */
const ALIGN_WINDOW = 64;

export function restoreAfterFormatter(prepared: PreparedText, formatted: string): string {
  let body: string;
  if (prepared.uniform) {
    body = prepared.dominant === '\n' ? formatted : formatted.replace(/\n/g, prepared.dominant);
  } else {
    const out = formatted.split('\n');
    const { lines, endings, dominant } = prepared;
    let cursor = 0;
    const parts: string[] = [];
    for (let i = 0; i < out.length; i++) {
      const line = out[i]!;
      if (i === out.length - 1) {
        parts.push(line);
        break;
      }
      let ending: string = dominant;
      for (let j = cursor; j < Math.min(lines.length, cursor + ALIGN_WINDOW); j++) {
        if (lines[j] === line && endings[j] !== undefined) {
          ending = endings[j]!;
          cursor = j + 1;
          break;
        }
      }
      parts.push(line, ending);
    }
    body = parts.join('');
  }
  return prepared.bom ? '\uFEFF' + body : body;
}

/** Length of a string in UTF-8 bytes, without allocating. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
