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

/**
 * The one way any other text is shown (a receipt's line and reason, a formatter's message, a config
 * value, doctor's reasons, MCP text): every control character, bidi override and zero-width format
 * character is written as an escape (`\u001b`), so a message quoting file content cannot forge lines
 * or rewrite a terminal. `multiline` keeps newlines, CRLFs and tabs (a note, a diff); else they are escaped too.
 */
export function shownText(text: string, options: { multiline?: boolean } = {}): string {
  if (!UNSAFE.test(text) && !hasLoneSurrogate(text)) return text;
  return text
    .replace(UNSAFE_ALL, (c, offset: number) => (options.multiline && (c === '\n' || c === '\t' || (c === '\r' && text[offset + 1] === '\n')) ? c : NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/** Longest quoted value of a config file kept in a message; a longer one is cut (it may be a secret the file holds). */
const MAX_QUOTED_CONFIG_CHARS = 24;
/** Longest message about a config file. */
const MAX_CONFIG_MESSAGE_CHARS = 400;

/**
 * A message about a config file (the tool's own or formatbox's), as shown: each quoted value cut to
 * a short excerpt, the whole bounded, then escaped (`shownText`). A config file's text reaches a
 * model, a terminal or a log only through this.
 */
export function shownConfigMessage(message: string): string {
  // The first line: tools follow it with the offending line of the file and a caret.
  const first = message.split('\n').find((line) => line.trim() !== '') ?? '';
  const cut = first
    .replace(/(["'`])([^"'`\n]{0,2000}?)\1/g, (whole, quote: string, inner: string) =>
      inner.length <= MAX_QUOTED_CONFIG_CHARS ? whole : `${quote}${excerpt(inner)}${quote}`,
    )
    // A quote the tool cut off before it closed, and an unquoted long token (not a path): values too.
    .replace(/(["'`])([^"'`\s]{25,})/g, (_, quote: string, inner: string) => `${quote}${excerpt(inner)}`)
    .replace(/(?<![…\w])[^\s"'`/…]{33,}/g, (token) => excerpt(token));
  const bounded = cut.length <= MAX_CONFIG_MESSAGE_CHARS ? cut : `${cut.slice(0, MAX_CONFIG_MESSAGE_CHARS - 1)}…`;
  return shownText(bounded);
}

function excerpt(value: string): string {
  return `${value.slice(0, 8)}…(${value.length} characters)`;
}
