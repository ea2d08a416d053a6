// The UTF-16 ⇄ UTF-8 offset helpers used at the Biome boundary, checked against TextEncoder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { lineColumnAt } from '../../src/formatters/shared.js';
import { byteToUtf16Offset as utf8OffsetToUtf16Offset, utf16ToByteOffset as utf16OffsetToUtf8Offset } from '../../src/core/text.js';

const encoder = new TextEncoder();

test('fixed cases: ASCII, 2-byte, 3-byte and 4-byte (surrogate pair) characters', () => {
  const text = 'aé€🎉z';
  // UTF-16 units: a(1) é(1) €(1) 🎉(2) z(1); UTF-8 bytes: 1 2 3 4 1.
  const utf16Offsets = [0, 1, 2, 3, 5, 6];
  const byteOffsets = [0, 1, 3, 6, 10, 11];
  utf16Offsets.forEach((utf16, index) => {
    assert.equal(utf16OffsetToUtf8Offset(text, utf16), byteOffsets[index]);
    assert.equal(utf8OffsetToUtf16Offset(text, byteOffsets[index]!), utf16);
  });
  // Inside the surrogate pair / inside a multi-byte sequence: moved back to the code point's start.
  assert.equal(utf16OffsetToUtf8Offset(text, 4), 6);
  assert.equal(utf8OffsetToUtf16Offset(text, 8), 3);
  // Clamped past the end.
  assert.equal(utf16OffsetToUtf8Offset(text, 99), 11);
  assert.equal(utf8OffsetToUtf16Offset(text, 99), 6);
});

test('property: the byte offset equals the UTF-8 length of the prefix, and converts back', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 60 }), fc.nat(70), (text, raw) => {
      const utf16 = Math.min(raw, text.length);
      const code = text.charCodeAt(utf16 - 1);
      const splitsPair = utf16 > 0 && code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(utf16) & 0xfc00) === 0xdc00;
      const bytes = utf16OffsetToUtf8Offset(text, utf16);
      const boundary = splitsPair ? utf16 - 1 : utf16;
      assert.equal(bytes, encoder.encode(text.slice(0, boundary)).length);
      assert.equal(utf8OffsetToUtf16Offset(text, bytes), boundary);
    }),
    { numRuns: 500 },
  );
});

test('lineColumnAt is 1-based', () => {
  assert.deepEqual(lineColumnAt('ab\ncd\n', 0), { line: 1, column: 1 });
  assert.deepEqual(lineColumnAt('ab\ncd\n', 2), { line: 1, column: 3 });
  assert.deepEqual(lineColumnAt('ab\ncd\n', 3), { line: 2, column: 1 });
  assert.deepEqual(lineColumnAt('ab\ncd\n', 6), { line: 3, column: 1 });
});
