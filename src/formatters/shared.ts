/**
 * Small pure helpers shared by the in-process formatter adapters: line/column lookup and message
 * shaping. UTF-16 ⇄ UTF-8 offsets live in src/core/text.ts. Universal: no `node:` imports.
 */

/** 1-based line and column (column in UTF-16 units, as editors and Prettier count) of a UTF-16 offset in LF text. */
export function lineColumnAt(text: string, utf16Offset: number): { line: number; column: number } {
  const offset = Math.max(0, Math.min(utf16Offset, text.length));
  let line = 1;
  let lineStart = 0;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) {
    line += 1;
    lineStart = index + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** The first non-empty line of a (possibly multi-line, code-framed) message, trimmed. */
export function firstLine(message: string): string {
  const line = message.split('\n').find((candidate) => candidate.trim() !== '');
  return (line ?? message).trim();
}

/** A plain-object check for settings values that came from JSON. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
