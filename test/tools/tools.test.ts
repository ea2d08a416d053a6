// src/tools: applying edit / multiEdit / write inputs and patches (Codex apply_patch format, unified diffs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import {
  applyInput, applyPatchText, applyTracked, editedRegions, parsePatch, renderFilePatch, toolKind, wrapPatch, applyChunks,
} from '../../src/tools/index.js';
import { unifiedDiff, splitLines } from '../../src/core/diff.js';

const decoder = readFileSync('/usr/lib/python3.11/json/decoder.py', 'utf8');

test('tool kind from the input shape', () => {
  assert.equal(toolKind({ oldText: 'a', newText: 'b' }), 'edit');
  assert.equal(toolKind({ edits: [] }), 'multiEdit');
  assert.equal(toolKind({ content: '' }), 'write');
  assert.equal(toolKind({ patch: '' }), 'applyPatch');
  assert.throws(() => toolKind({} as never), { code: 'INVALID_REQUEST' });
});

test('edit: exact replacement; actionable errors', () => {
  assert.equal(applyInput('a b c', { oldText: 'b', newText: 'B' }), 'a B c');
  assert.throws(() => applyInput('x x x', { oldText: 'x', newText: 'y' }), {
    code: 'EDIT_NOT_APPLICABLE', message: 'oldText matches 3 times; add context or set replaceAll',
  });
  assert.equal(applyInput('x x x', { oldText: 'x', newText: 'y', replaceAll: true }), 'y y y');
  assert.throws(() => applyInput('abc', { oldText: 'z', newText: 'y' }), { code: 'EDIT_NOT_APPLICABLE', message: /^oldText not found/ });
  assert.throws(() => applyInput('abc', { oldText: '', newText: 'y' }), { code: 'EDIT_NOT_APPLICABLE', message: /oldText is empty/ });
  assert.equal(applyInput('', { oldText: '', newText: 'new file\n' }), 'new file\n');
});

test('edit: an LF oldText in a CRLF file is matched as CRLF and its newText gets CRLF', () => {
  const prior = 'a\r\nb\r\nc\r\n';
  assert.equal(applyInput(prior, { oldText: 'a\nb', newText: 'x\ny\nz' }), 'x\r\ny\r\nz\r\nc\r\n');
  // Found as-is: nothing is adapted.
  assert.equal(applyInput(prior, { oldText: 'b', newText: 'p\nq' }), 'a\r\np\nq\r\nc\r\n');
});

test('multiEdit: in order, all or nothing; overlapping or adjacent blocks refused; errors name the edit', () => {
  const prior = 'one two three\n';
  assert.equal(applyInput(prior, { edits: [{ oldText: 'one', newText: '1' }, { oldText: 'three', newText: '3' }] }), '1 two 3\n');
  // Touching blocks: which edit owns the text at the seam would be a guess, so they are refused.
  assert.throws(() => applyInput(prior, { edits: [{ oldText: 'one', newText: '1' }, { oldText: ' two', newText: '2' }] }), {
    code: 'EDIT_NOT_APPLICABLE', message: 'edits 1 and 2 are adjacent; merge them into one edit',
  });
  assert.throws(() => applyInput(prior, { edits: [{ oldText: ' two', newText: '2' }, { oldText: 'one', newText: '1' }] }), {
    code: 'EDIT_NOT_APPLICABLE', message: 'edits 1 and 2 are adjacent; merge them into one edit',
  });
  assert.throws(() => applyInput(prior, { edits: [{ oldText: 'one', newText: 'uno' }, { oldText: 'no t', newText: '' }] }), {
    code: 'EDIT_NOT_APPLICABLE', message: 'edits 1 and 2 overlap; merge them into one edit',
  });
  assert.throws(() => applyInput(prior, { edits: [{ oldText: 'one', newText: '1' }, { oldText: 'four', newText: '4' }] }), {
    message: /^edit 2: oldText not found/,
  });
  assert.throws(() => applyInput(prior, { edits: [] }), { code: 'EDIT_NOT_APPLICABLE' });
});

test('the same edit applied twice to the same text is applied once; a changed input object, text or edit is applied afresh', () => {
  const input = { edits: [{ oldText: 'def decode', newText: 'def decode_' }, { oldText: 'class JSONDecoder', newText: 'class Decoder' }] };
  const first = applyTracked(decoder, input);
  const again = applyTracked(decoder, { edits: input.edits.map((edit) => ({ ...edit })) });
  assert.equal(again, first);
  assert.equal(again.text, applyInput(decoder, input));
  // The caller changes its own input object: the result is that of the new input, and the first result did not change.
  input.edits[1]!.newText = 'class Other';
  const changed = applyTracked(decoder, input);
  assert.notEqual(changed, first);
  assert.match(changed.text, /class Other/);
  assert.match(first.text, /class Decoder/);
  assert.equal(first.effective[1]!.newText, 'class Decoder');
  assert.equal(applyTracked(`${decoder}\n`, input).text, `${changed.text}\n`);
  assert.throws(() => applyTracked(decoder, { oldText: 'return ', newText: 'x', replaceAll: false }), /matches \d+ times/);
  assert.equal(applyTracked(decoder, { oldText: 'return ', newText: 'x', replaceAll: true }).text, decoder.replaceAll('return ', 'x'));
});

test('editedRegions: where each replacement landed in W', () => {
  const prior = 'a x b x c';
  const input = { edits: [{ oldText: 'x', newText: 'yy', replaceAll: true }, { oldText: 'c', newText: 'CCC' }] };
  const written = applyInput(prior, input);
  const regions = editedRegions(prior, input);
  assert.deepEqual(regions.map((r) => written.slice(r.utf16Start, r.utf16End)), ['yy', 'yy', 'CCC']);
  assert.deepEqual(editedRegions('old', { content: 'new!' }), [{ utf16Start: 0, utf16End: 4 }]);
});

const files: Record<string, string> = {
  'src/app.py': 'import os\n\n\ndef main():\n    print("hi")\n    return 0\n\n\nif __name__ == "__main__":\n    main()\n',
  'src/old.py': 'x = 1\n',
  'src/crlf.txt': 'alpha\r\nbeta\r\ngamma\r\n',
};
const read = (path: string): string | undefined => files[path];

test('Codex patch: update with @@ context, add, delete, move; several files', () => {
  const patch = `*** Begin Patch
*** Update File: src/app.py
@@ def main():
-    print("hi")
+    print("hello")
*** Add File: src/new.py
+def f():
+    return 1
*** Delete File: src/old.py
*** Update File: src/crlf.txt
*** Move to: src/moved.txt
@@
 alpha
-beta
+BETA
*** End Patch`;
  const result = applyPatchText(patch, read);
  assert.equal(result.get('src/app.py'), (files['src/app.py'] as string).replace('"hi"', '"hello"'));
  assert.equal(result.get('src/new.py'), 'def f():\n    return 1\n');
  assert.equal(result.get('src/old.py'), null);
  assert.equal(result.get('src/crlf.txt'), null);
  assert.equal(result.get('src/moved.txt'), 'alpha\r\nBETA\r\ngamma\r\n', 'CRLF kept byte for byte, the new line gets CRLF');
});

test('Codex patch: fuzzy matching (trailing whitespace, indentation, Unicode punctuation), End of File, heredoc wrapper', () => {
  const prior = 'a = 1   \n    b = "x—y"\nlast\n';
  const patch = "<<'EOF'\n*** Begin Patch\n*** Update File: f.py\n@@\n a = 1\n-b = \"x-y\"\n+b = 2\n last\n*** End of File\n*** End Patch\nEOF\n";
  assert.equal(applyPatchText(patch, () => prior).get('f.py'), 'a = 1   \nb = 2\nlast\n');
});

test('Codex patch: actionable errors', () => {
  assert.throws(() => parsePatch('*** Update File: x\n'), { code: 'EDIT_NOT_APPLICABLE', message: /must start with/ });
  assert.throws(() => parsePatch('*** Begin Patch\n*** Update File: x\n@@\n-a\n'), { message: /must be '\*\*\* End Patch'/ });
  assert.throws(() => applyPatchText('*** Begin Patch\n*** Update File: src/app.py\n@@\n-nope\n+x\n*** End Patch', read), {
    code: 'EDIT_NOT_APPLICABLE', message: /src\/app\.py: chunk 1 not found/,
  });
  // Add File over an existing file overwrites it, as Codex does (the receipt says so); a unified diff refuses, as git apply does.
  assert.equal(applyPatchText('*** Begin Patch\n*** Add File: src/old.py\n+x\n*** End Patch', read).get('src/old.py'), 'x\n');
  assert.throws(() => applyPatchText('--- /dev/null\n+++ b/src/old.py\n@@ -0,0 +1 @@\n+x\n', read), { code: 'FILE_EXISTS' });
  assert.throws(() => applyPatchText('*** Begin Patch\n*** Delete File: nope.py\n*** End Patch', read), { code: 'FILE_NOT_FOUND' });
});

test('unified diffs: multi-file, /dev/null for add and delete, stated line numbers, no newline at EOF', () => {
  const app = files['src/app.py'] as string;
  const newApp = app.replace('return 0', 'return 1');
  const patch = unifiedDiff(app, newApp, { path: 'src/app.py' }) +
    '--- /dev/null\n+++ b/src/n.py\n@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n' +
    '--- a/src/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x = 1\n';
  const parsed = parsePatch(patch);
  assert.equal(parsed.format, 'unified');
  const result = applyPatchText(patch, read);
  assert.equal(result.get('src/app.py'), newApp);
  assert.equal(result.get('src/n.py'), 'a\nb');
  assert.equal(result.get('src/old.py'), null);
});

test('a git-style diff applies with its a/ b/ prefixes and diff --git headers', () => {
  const before = decoder;
  const after = before.replace('class JSONDecoder(object):', 'class JSONDecoder:');
  const patch = `diff --git a/json/decoder.py b/json/decoder.py\nindex 0000000..1111111 100644\n${unifiedDiff(before, after, { path: 'json/decoder.py' })}`;
  assert.equal(applyPatchText(patch, () => before).get('json/decoder.py'), after);
});

test('property: a patch rendered from random line edits of a real file applies back to the same text (both formats)', () => {
  const lines = splitLines(decoder).map((l) => l.replace(/\n$/, ''));
  fc.assert(
    fc.property(
      fc.array(fc.record({ at: fc.nat(), remove: fc.nat({ max: 4 }), add: fc.array(fc.constantFrom('x = 1', '', '    pass', 'return None'), { maxLength: 4 }) }), { minLength: 1, maxLength: 6 }),
      fc.constantFrom('codex' as const, 'unified' as const),
      fc.constantFrom(1, 3),
      (raw, format, context) => {
        // Disjoint regions, sorted.
        const regions: Array<{ priorStart: number; priorEnd: number; newLines: string[] }> = [];
        for (const r of raw) {
          const start = r.at % lines.length;
          const end = Math.min(lines.length, start + r.remove);
          if (regions.every((g) => end < g.priorStart || start > g.priorEnd)) regions.push({ priorStart: start, priorEnd: end, newLines: r.add });
        }
        regions.sort((a, b) => a.priorStart - b.priorStart);
        const expected: string[] = [];
        let cursor = 0;
        for (const g of regions) {
          expected.push(...lines.slice(cursor, g.priorStart), ...g.newLines);
          cursor = g.priorEnd;
        }
        expected.push(...lines.slice(cursor));
        const part = renderFilePatch(format, { kind: 'update', path: 'json/decoder.py', prior: decoder, regions }, context);
        const parsed = parsePatch(wrapPatch(format, [part]));
        const file = parsed.files[0];
        assert.ok(file && file.kind === 'update');
        const got = applyChunks(decoder, file.chunks, 'json/decoder.py').text;
        // Codex has no line numbers: a chunk whose lines occur twice may land on the first copy
        // (reconcile re-renders with more context then). Unified hunks carry their line.
        const haystack = '\n' + lines.join('\n') + '\n';
        const ambiguous = file.chunks.some((c) => {
          const block = '\n' + c.oldLines.join('\n') + '\n';
          return haystack.indexOf(block) !== haystack.lastIndexOf(block);
        });
        if (format === 'unified' || !ambiguous) assert.equal(got, expected.map((l) => l + '\n').join(''));
      },
    ),
    { numRuns: 500 },
  );
});
