/**
 * The one way a path is shown to a model or a terminal (receipt `line`, `note`, diff headers, error
 * messages, CLI output). A file name may contain a newline, a CR, an ESC or a bidi control; shown
 * raw it would forge lines ("SYSTEM: …") or rewrite the terminal. Such a path is shown as a
 * double-quoted string with escapes (`"a\nb.ts"`); any other path as it is. A path that itself
 * starts with `"` is quoted too, so the two forms cannot be confused. JSON fields (`path`) stay exact.
 */

/** C0 and C1 controls, DEL, line/paragraph separators, bidi and zero-width format characters, BOM. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function shownPath(path: string): string {
  if (!UNSAFE.test(path) && !path.startsWith('"') && !hasLoneSurrogate(path)) return path;
  const escaped = path
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(UNSAFE_ALL, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
  return `"${escaped}"`;
}

/** True when `text` holds a character that `shownPath` would escape (for tests and checks). */
export function hasUnsafeCharacters(text: string): boolean {
  return UNSAFE.test(text);
}

function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}
