// src/core/text.ts: BOM, EOL profiles and restoration, UTF-8/UTF-16 offsets, sha256.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  byteToUtf16Offset, detectEol, fileRecord, lineOfOffset, normaliseEol, normaliseForFormatter, rangeToNormalised,
  restoreText, sha256Hex, splitBom, utf16ToByteOffset, utf8ByteLength,
} from '../../src/core/text.js';

test('BOM split and restore', () => {
  assert.deepEqual(splitBom('\uFEFFabc'), { bom: true, body: 'abc' });
  assert.deepEqual(splitBom('abc'), { bom: false, body: 'abc' });
  assert.equal(restoreText('\uFEFFa\r\n', 'b\n'), '\uFEFFb\r\n');
  // A formatter that keeps the BOM itself does not get a second one.
  assert.equal(restoreText('\uFEFFa\n', '\uFEFFb\n'), '\uFEFFb\n');
});

test('EOL profiles', () => {
  assert.equal(detectEol('a').kind, 'none');
  assert.equal(detectEol('a\nb\n').kind, 'lf');
  assert.equal(detectEol('a\r\nb\r\n').kind, 'crlf');
  assert.equal(detectEol('a\rb\r').kind, 'cr');
  const mixed = detectEol('a\r\nb\r\nc\n');
  assert.equal(mixed.kind, 'mixed');
  assert.equal(mixed.dominant, '\r\n');
  assert.deepEqual(mixed.counts, { lf: 1, crlf: 2, cr: 0 });
  assert.equal(normaliseEol('a\r\nb\rc\n'), 'a\nb\nc\n');
});

test('restoring endings: uniform files get their ending everywhere; mixed files keep unchanged lines', () => {
  assert.equal(restoreText('a\r\nb\r\n', 'a\nx\ny\nb\n'), 'a\r\nx\r\ny\r\nb\r\n');
  assert.equal(restoreText('a\rb\r', 'a\nb\nc\n'), 'a\rb\rc\r');
  // Mixed: line 'b' kept LF, 'd' kept CRLF; the new line takes the dominant CRLF.
  assert.equal(restoreText('a = 1\r\nb\nc=3\r\nd\r\n', 'a = 1\nb\nc = 3\nnew\nd\n'), 'a = 1\r\nb\nc = 3\r\nnew\r\nd\r\n');
  // Without a final newline.
  assert.equal(restoreText('x\r\ny\nz', 'x\ny\nz'), 'x\r\ny\nz');
});

test('property: normalise then restore without formatting changes gives the original bytes back', () => {
  const line = fc.stringMatching(/^[a-z =;'"\t]{0,8}$/);
  const eol = fc.constantFrom('\n', '\r\n', '\r');
  fc.assert(
    fc.property(fc.boolean(), fc.array(fc.tuple(line, eol), { maxLength: 12 }), line, (bom, rows, last) => {
      const original = (bom ? '\uFEFF' : '') + rows.map(([l, e]) => l + e).join('') + last;
      const prepared = normaliseForFormatter(original);
      assert.ok(!prepared.text.includes('\r'));
      assert.equal(restoreText(original, prepared.text), original);
    }),
    { numRuns: 2000 },
  );
});

test('range mapping into the normalised text', () => {
  const original = '\uFEFFa\r\nbc\r\nd';
  const { text } = normaliseForFormatter(original);
  const range = rangeToNormalised(original, { utf16Start: original.indexOf('bc'), utf16End: original.indexOf('d') });
  assert.equal(text.slice(range.utf16Start, range.utf16End), 'bc\n');
});

test('property: UTF-8/UTF-16 offsets agree with TextEncoder on any string, lone surrogates included', () => {
  const encoder = new TextEncoder();
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.nat(), (text, at) => {
      const offset = text.length === 0 ? 0 : at % (text.length + 1);
      assert.equal(utf8ByteLength(text), encoder.encode(text).length);
      const bytes = utf16ToByteOffset(text, offset);
      const inPair = offset > 0 && offset < text.length && /[\uD800-\uDBFF]/.test(text[offset - 1] as string) && /[\uDC00-\uDFFF]/.test(text[offset] as string);
      if (!inPair) {
        assert.equal(bytes, encoder.encode(text.slice(0, offset)).length);
        assert.equal(byteToUtf16Offset(text, bytes), offset);
      }
    }),
    { numRuns: 3000 },
  );
  assert.equal(utf16ToByteOffset('a€😀b', 4), 8);
  assert.equal(byteToUtf16Offset('a€😀b', 8), 4);
  assert.equal(byteToUtf16Offset('a€😀b', 5), 2, 'inside a character: that character');
});

test('sha256 and the file record are those of the UTF-8 bytes, BOM included', async () => {
  const text = '\uFEFFconst π = "😀";\r\n';
  const bytes = Buffer.from(text, 'utf8');
  assert.equal(await sha256Hex(text), createHash('sha256').update(bytes).digest('hex'));
  assert.deepEqual(await fileRecord(text), { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length });
});

test('lineOfOffset counts LF, CRLF and CR', () => {
  assert.equal(lineOfOffset('a\r\nb\rc\nd', 7), 4);
  assert.equal(lineOfOffset('a\r\nb', 2), 1);
});
