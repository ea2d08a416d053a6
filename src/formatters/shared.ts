/**
 * Small pure helpers shared by the in-process formatter adapters (Prettier, Biome):
 * offset conversion between UTF-16 code units (JS strings) and UTF-8 bytes (wasm
 * formatters), line/column lookup, and message shaping. Universal: no `node:` imports.
 */

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** UTF-8 length of the code point that starts at `utf16Index`, and how many UTF-16 units it spans. */
function codePointAt(text: string, utf16Index: number): { bytes: number; units: number } {
  const unit = text.charCodeAt(utf16Index);
  if (unit < 0x80) return { bytes: 1, units: 1 };
  if (unit < 0x800) return { bytes: 2, units: 1 };
  if (isHighSurrogate(unit) && isLowSurrogate(text.charCodeAt(utf16Index + 1))) return { bytes: 4, units: 2 };
  // Other BMP code points, and lone surrogates (which TextEncoder writes as U+FFFD, 3 bytes).
  return { bytes: 3, units: 1 };
}

/**
 * Converts a UTF-16 offset into `text` to the UTF-8 byte offset of the same position.
 * An offset inside a surrogate pair is moved back to the start of the pair. Offsets are clamped to the text.
 */
export function utf16OffsetToUtf8Offset(text: string, utf16Offset: number): number {
  const target = Math.max(0, Math.min(utf16Offset, text.length));
  let utf16Index = 0;
  let byteOffset = 0;
  while (utf16Index < target) {
    const { bytes, units } = codePointAt(text, utf16Index);
    if (utf16Index + units > target) break;
    utf16Index += units;
    byteOffset += bytes;
  }
  return byteOffset;
}

/**
 * Converts a UTF-8 byte offset into `text` (as encoded by TextEncoder) to a UTF-16 offset.
 * A byte offset inside a multi-byte sequence is moved back to the start of the code point.
 */
export function utf8OffsetToUtf16Offset(text: string, byteOffset: number): number {
  let utf16Index = 0;
  let bytesSoFar = 0;
  while (utf16Index < text.length) {
    const { bytes, units } = codePointAt(text, utf16Index);
    if (bytesSoFar + bytes > byteOffset) break;
    utf16Index += units;
    bytesSoFar += bytes;
  }
  return utf16Index;
}

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
