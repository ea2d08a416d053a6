// Conformance of the Codex dialect with OpenAI Codex's apply_patch (codex-rs/apply-patch in the
// public openai/codex repository): one case of our own per behaviour of its published scenarios
// (tests/fixtures/scenarios) and of its parser and library unit tests. Codex's fixtures are not
// copied; each case names the behaviour it reproduces. Where formatbox deliberately differs, the
// case says so and README.md ("apply_patch and unified diffs") gives the reason.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyPatchText, parsePatch } from '../../src/tools/index.js';
import { seekSequence } from '../../src/tools/apply-patch.js';
import { createRuntime, type Runtime } from '../../src/node/index.js';

type Files = Record<string, string>;

/** Applies a patch to in-memory files; returns the files after it (absent files dropped). */
function apply(files: Files, patch: string): Files {
  const result = applyPatchText(patch, (path) => files[path]);
  const out: Files = { ...files };
  for (const [path, content] of result) {
    if (content === null) delete out[path];
    else out[path] = content;
  }
  return out;
}

const wrap = (body: string): string => `*** Begin Patch\n${body}\n*** End Patch\n`;

// --- Scenarios ------------------------------------------------------------------------------

test('scenario: Add File creates a file, its lines each ending in a newline', () => {
  assert.deepEqual(apply({}, wrap('*** Add File: notes/todo.md\n+# Todo\n+\n+- write tests')), { 'notes/todo.md': '# Todo\n\n- write tests\n' });
});

test('scenario: several operations in one patch (add, delete, update)', () => {
  const files = { 'gone.txt': 'bye\n', 'keep.txt': 'alpha\nbeta\n' };
  const after = apply(files, wrap('*** Add File: deep/dir/new.txt\n+fresh\n*** Delete File: gone.txt\n*** Update File: keep.txt\n@@\n alpha\n-beta\n+BETA'));
  assert.deepEqual(after, { 'deep/dir/new.txt': 'fresh\n', 'keep.txt': 'alpha\nBETA\n' });
});

test('scenario: several chunks in one Update', () => {
  const files = { 'm.txt': 'one\ntwo\nthree\nfour\nfive\n' };
  assert.equal(apply(files, wrap('*** Update File: m.txt\n@@\n one\n-two\n+TWO\n@@\n four\n-five\n+FIVE'))['m.txt'], 'one\nTWO\nthree\nfour\nFIVE\n');
});

test('scenario: Move to a new directory, other files untouched', () => {
  const after = apply({ 'a/name.txt': 'x\n', 'a/other.txt': 'o\n' }, wrap('*** Update File: a/name.txt\n*** Move to: b/c/name.txt\n@@\n-x\n+y'));
  assert.deepEqual(after, { 'a/other.txt': 'o\n', 'b/c/name.txt': 'y\n' });
});

test('scenario: an empty patch is refused and nothing changes', () => {
  assert.throws(() => parsePatch('*** Begin Patch\n*** End Patch\n'), { code: 'EDIT_NOT_APPLICABLE', message: /changes no file/ });
});

test('scenario: a chunk whose lines are not in the file is refused', () => {
  assert.throws(() => apply({ 'f.txt': 'a\nb\n' }, wrap('*** Update File: f.txt\n@@\n-nothere\n+x')), { code: 'EDIT_NOT_APPLICABLE', message: /chunk 1 not found/ });
});

test('scenario: deleting a missing file is refused', () => {
  assert.throws(() => apply({}, wrap('*** Delete File: none.txt')), { code: 'FILE_NOT_FOUND' });
});

test('scenario: an Update without chunks is refused', () => {
  assert.throws(() => parsePatch(wrap('*** Update File: f.txt')), { code: 'EDIT_NOT_APPLICABLE', message: /no chunks/ });
});

test('scenario: updating a missing file is refused', () => {
  assert.throws(() => apply({}, wrap('*** Update File: none.txt\n@@\n-a\n+b')), { code: 'FILE_NOT_FOUND' });
});

test('scenario: Move to an existing destination overwrites it', () => {
  const after = apply({ 'old.txt': 'from\n', 'new.txt': 'was here\n' }, wrap('*** Update File: old.txt\n*** Move to: new.txt\n@@\n-from\n+moved'));
  assert.deepEqual(after, { 'new.txt': 'moved\n' });
});

test('scenario: Add File over an existing file overwrites it', () => {
  assert.deepEqual(apply({ 'dup.txt': 'old\n' }, wrap('*** Add File: dup.txt\n+new')), { 'dup.txt': 'new\n' });
});

test('scenario: an invalid file header is refused', () => {
  assert.throws(() => parsePatch(wrap('*** Frobnicate File: f.txt')), { code: 'EDIT_NOT_APPLICABLE', message: /not a valid hunk header/ });
});

test('scenario: an Update gives a file without final newline one when it rewrites its last line (Codex adds it always: formatbox keeps it missing elsewhere)', () => {
  assert.equal(apply({ 'n.txt': 'a\nb' }, wrap('*** Update File: n.txt\n@@\n a\n-b\n+B'))['n.txt'], 'a\nB\n');
  // Difference: Codex would also add it here; formatbox keeps the file's state.
  assert.equal(apply({ 'n.txt': 'a\nb\nc' }, wrap('*** Update File: n.txt\n@@\n-a\n+A\n b'))['n.txt'], 'A\nb\nc');
});

test('scenario: a failure after a success leaves nothing changed (Codex keeps the partial change: formatbox is all or nothing)', () => {
  assert.throws(() => apply({}, wrap('*** Add File: made.txt\n+hi\n*** Update File: missing.txt\n@@\n-a\n+b')), { code: 'FILE_NOT_FOUND' });
});

test('scenario: a pure-addition chunk appends at the end of the file', () => {
  assert.equal(apply({ 'p.txt': 'one\ntwo\n' }, wrap('*** Update File: p.txt\n@@\n+three\n+four'))['p.txt'], 'one\ntwo\nthree\nfour\n');
  // ...before a final blank line, as Codex puts it.
  assert.equal(apply({ 'p.txt': 'one\n\n' }, wrap('*** Update File: p.txt\n@@\n+two'))['p.txt'], 'one\ntwo\n\n');
});

test('scenario: whitespace around file headers and around the Begin/End markers is tolerated', () => {
  assert.equal(apply({ 'w.txt': 'old\n' }, '*** Begin Patch\n  *** Update File: w.txt\n@@\n-old\n+new\n*** End Patch\n')['w.txt'], 'new\n');
  assert.equal(apply({ 'w.txt': 'one\n' }, ' *** Begin Patch\n*** Update File: w.txt\n@@\n-one\n+two\n*** End Patch \n')['w.txt'], 'two\n');
  assert.equal(apply({ 'w.txt': 'one\n' }, '*** Begin Patch \n*** Update File: w.txt\n@@\n-one\n+two\n *** End Patch\n')['w.txt'], 'two\n');
});

test('scenario: non-ASCII text is matched and written as is', () => {
  const files = { 'u.txt': 'grüße\n日本語\nemoji 🎉\n' };
  assert.equal(apply(files, wrap('*** Update File: u.txt\n@@\n grüße\n-日本語\n+中文\n emoji 🎉'))['u.txt'], 'grüße\n中文\nemoji 🎉\n');
});

test('scenario: Delete File removes the file, others stay', () => {
  assert.deepEqual(apply({ 'x.txt': 'x\n', 'y.txt': 'y\n' }, wrap('*** Delete File: x.txt')), { 'y.txt': 'y\n' });
});

test('scenario: a chunk that only removes lines', () => {
  assert.equal(apply({ 'd.txt': 'a\nb\nc\nd\n' }, wrap('*** Update File: d.txt\n@@\n a\n-b\n-c\n d'))['d.txt'], 'a\nd\n');
});

test('scenario: *** End of File anchors a chunk at the end, even when its lines also occur earlier', () => {
  const files = { 't.txt': 'end\nmiddle\nend\n' };
  assert.equal(apply(files, wrap('*** Update File: t.txt\n@@\n-end\n+END\n*** End of File'))['t.txt'], 'end\nmiddle\nEND\n');
  // Only the end is tried: lines found elsewhere but not at the end do not match.
  assert.throws(() => apply({ 't.txt': 'end\nlast\n' }, wrap('*** Update File: t.txt\n@@\n-end\n+END\n*** End of File')), { code: 'EDIT_NOT_APPLICABLE' });
});

// --- The behaviours issue 15 found missing ---------------------------------------------------

test('blank lines between *** Update File: and @@, between chunks and after *** End of File are skipped', () => {
  const files = { 'b.txt': 'a\nb\nc\nd\n', 'z.txt': 'z\n' };
  const patch = wrap('*** Update File: b.txt\n\n@@\n-a\n+A\n@@\n c\n-d\n+D\n*** End of File\n\n*** Update File: z.txt\n\n\n@@\n-z\n+Z');
  assert.deepEqual(apply(files, patch), { 'b.txt': 'A\nb\nc\nD\n', 'z.txt': 'Z\n' });
  // A blank line between chunks is an empty context line of the chunk before it (as in Codex): a
  // trailing one may stand for the end of the file.
  assert.equal(apply({ 'b.txt': 'a\nb\n' }, wrap('*** Update File: b.txt\n@@\n-a\n+A\n\n@@\n-b\n+B'))['b.txt'], 'A\nB\n');
});

test('a pure-addition chunk followed by other chunks keeps the search position; replacements are sorted', () => {
  const files = { 'p.txt': 'line1\nline2\nline3\n' };
  const patch = wrap('*** Update File: p.txt\n@@\n+after-context\n+second-line\n@@\n line1\n-line2\n-line3\n+line2-replacement');
  assert.equal(apply(files, patch)['p.txt'], 'line1\nline2-replacement\nafter-context\nsecond-line\n');
});

test('lone CR and mixed CR/LF/CRLF files: each kept line keeps its ending, written lines take the dominant one', () => {
  assert.equal(apply({ 'cr.txt': 'a\rb\rc\r' }, wrap('*** Update File: cr.txt\n@@\n a\n-b\n+B\n+B2\n c'))['cr.txt'], 'a\rB\rB2\rc\r');
  const mixed = 'one\r\ntwo\nthree\rfour\r\nfive\r\n';
  assert.equal(apply({ 'm.txt': mixed }, wrap('*** Update File: m.txt\n@@\n two\n-three\n+THREE\n four'))['m.txt'], 'one\r\ntwo\nTHREE\r\nfour\r\nfive\r\n');
  // A patch sent with CRLF line endings parses the same.
  assert.equal(apply({ 'cr.txt': 'a\rb\r' }, '*** Begin Patch\r\n*** Update File: cr.txt\r\n@@\r\n-b\r\n+c\r\n*** End Patch\r\n')['cr.txt'], 'a\rc\r');
});

test('the same path twice: Add then Update, Move then Update of the destination, Update then Delete, in order', () => {
  assert.deepEqual(apply({}, wrap('*** Add File: n.txt\n+one\n+two\n*** Update File: n.txt\n@@\n-two\n+TWO')), { 'n.txt': 'one\nTWO\n' });
  assert.deepEqual(apply({ 'a.txt': 'x\ny\n' }, wrap('*** Update File: a.txt\n*** Move to: b.txt\n@@\n-x\n+X\n*** Update File: b.txt\n@@\n-y\n+Y')), { 'b.txt': 'X\nY\n' });
  assert.deepEqual(apply({ 'a.txt': 'x\n' }, wrap('*** Update File: a.txt\n@@\n-x\n+y\n*** Delete File: a.txt')), {});
  // In order: an Update before the Add of the same path finds no file.
  assert.throws(() => apply({}, wrap('*** Update File: n.txt\n@@\n-a\n+b\n*** Add File: n.txt\n+a')), { code: 'FILE_NOT_FOUND' });
});

// --- Parser unit tests -----------------------------------------------------------------------

test('parser: first and last markers are required, with their messages', () => {
  assert.throws(() => parsePatch('*** Begin Patch\nbad'), { message: /last line of the patch must be '\*\*\* End Patch'/ });
  assert.throws(() => parsePatch('*** Begin Patch\n*** Update File: t.py\n*** End Patch'), { message: /no chunks/ });
});

test('parser: Add, Delete and Update with Move and @@ context in one patch', () => {
  const parsed = parsePatch(wrap('*** Add File: p/add.py\n+abc\n+def\n*** Delete File: p/delete.py\n*** Update File: p/update.py\n*** Move to: p/update2.py\n@@ def f():\n-    pass\n+    return 123'));
  assert.equal(parsed.format, 'codex');
  const [add, del, upd] = parsed.files;
  assert.deepEqual(add && { kind: add.kind, path: add.path, lines: add.kind === 'add' ? add.lines : [] }, { kind: 'add', path: 'p/add.py', lines: ['abc', 'def'] });
  assert.deepEqual(del && { kind: del.kind, path: del.path }, { kind: 'delete', path: 'p/delete.py' });
  assert.ok(upd && upd.kind === 'update');
  assert.equal(upd.moveTo, 'p/update2.py');
  assert.deepEqual(upd.chunks, [{ context: 'def f():', oldLines: ['    pass'], newLines: ['    return 123'], endOfFile: false }]);
});

test('parser: an Update chunk followed by another file header ends there; the first chunk may omit @@', () => {
  const parsed = parsePatch(wrap('*** Update File: file.py\n@@\n+line\n*** Add File: other.py\n+content'));
  assert.equal(parsed.files.length, 2);
  const first = parsed.files[0];
  assert.ok(first?.kind === 'update');
  assert.deepEqual(first.chunks[0], { oldLines: [], newLines: ['line'], endOfFile: false });
  const noHeader = parsePatch(wrap('*** Update File: file2.py\n import foo\n+bar')).files[0];
  assert.ok(noHeader?.kind === 'update');
  assert.deepEqual(noHeader.chunks[0], { oldLines: ['import foo'], newLines: ['import foo', 'bar'], endOfFile: false });
});

test('parser: heredoc wrappers <<EOF, <<\'EOF\', <<"EOF" are taken off; mismatched quotes are not', () => {
  const body = '*** Begin Patch\n*** Update File: f.py\n import foo\n+bar\n*** End Patch';
  for (const open of ['<<EOF', "<<'EOF'", '<<"EOF"']) assert.equal(parsePatch(`${open}\n${body}\nEOF\n`).files.length, 1);
  assert.throws(() => parsePatch(`<<"EOF'\n${body}\nEOF\n`), { code: 'EDIT_NOT_APPLICABLE' });
  assert.throws(() => parsePatch('<<EOF\n*** Begin Patch\n*** Update File: f.py\nEOF\n'), { message: /End Patch/ });
});

test('parser: chunk errors: a second chunk without @@, an empty chunk, a bad line, End of File alone', () => {
  assert.throws(() => parsePatch(wrap('*** Update File: f\n@@\n-a\n+b\nbad')), { message: /expected a chunk to start with '@@'/ });
  assert.throws(() => parsePatch(wrap('*** Update File: f\n@@')), { message: /does not contain any lines/ });
  assert.throws(() => parsePatch(wrap('*** Update File: f\n@@\nbad')), { message: /unexpected line in a chunk/ });
  assert.throws(() => parsePatch(wrap('*** Update File: f\n@@\n*** End of File')), { message: /does not contain any lines/ });
});

test('parser: an empty line inside a chunk is an empty context line; End of File after a pure addition', () => {
  const chunk = (parsePatch(wrap('*** Update File: f\n@@ ctx\n\n context\n-remove\n+add\n context2')).files[0] as { chunks: unknown[] }).chunks[0];
  assert.deepEqual(chunk, { context: 'ctx', oldLines: ['', 'context', 'remove', 'context2'], newLines: ['', 'context', 'add', 'context2'], endOfFile: false });
  const eof = (parsePatch(wrap('*** Update File: f\n@@\n+line\n*** End of File')).files[0] as { chunks: unknown[] }).chunks[0];
  assert.deepEqual(eof, { oldLines: [], newLines: ['line'], endOfFile: true });
});

test('library: interleaved chunks (replace, replace with context, append at End of File)', () => {
  const files = { 'i.txt': 'a\nb\nc\nd\ne\nf\n' };
  assert.equal(apply(files, wrap('*** Update File: i.txt\n@@\n a\n-b\n+B\n@@\n c\n d\n-e\n+E\n@@\n f\n+g\n*** End of File'))['i.txt'], 'a\nB\nc\nd\nE\nf\ng\n');
});

test('library: CRLF files stay CRLF; a CR inside a CRLF line is kept', () => {
  assert.equal(apply({ 'c.txt': 'a\r\nb\r\nc\r\n' }, wrap('*** Update File: c.txt\n@@\n a\n-b\n+B\n@@\n c\n+d\n*** End of File'))['c.txt'], 'a\r\nB\r\nc\r\nd\r\n');
  // Difference: formatbox reads a lone CR as a line end, so "foo\r\r\n" is two lines ("foo", "").
  assert.equal(apply({ 'c.txt': 'foo\r\r\nbar\r\n' }, wrap('*** Update File: c.txt\n@@\n+BAZ\n*** End of File'))['c.txt'], 'foo\r\r\nbar\r\nBAZ\r\n');
});

test('library: Unicode dashes and non-breaking hyphens in the file match ASCII in the patch', () => {
  const files = { 'u.py': 'import asyncio  # local import \u2013 avoids top\u2011level dep\n' };
  assert.equal(apply(files, wrap('*** Update File: u.py\n@@\n-import asyncio  # local import - avoids top-level dep\n+import asyncio  # HELLO'))['u.py'], 'import asyncio  # HELLO\n');
});

test('seek_sequence: exact, trailing whitespace, surrounding whitespace, pattern longer than the input', () => {
  assert.equal(seekSequence(['foo', 'bar', 'baz'], ['bar', 'baz'], 0, false), 1);
  assert.equal(seekSequence(['foo   ', 'bar\t\t'], ['foo', 'bar'], 0, false), 0);
  assert.equal(seekSequence(['    foo   ', '   bar\t'], ['foo', 'bar'], 0, false), 0);
  assert.equal(seekSequence(['just one line'], ['too', 'many', 'lines'], 0, false), -1);
  // An exact match later wins over a loose one earlier (each level scans the whole range first).
  assert.equal(seekSequence(['x ', 'x'], ['x'], 0, false), 1);
});

test('formatbox keeps context lines\' own bytes when they matched loosely (Codex rewrites them as sent)', () => {
  const files = { 'k.py': 'a = 1   \n\tb = 2\nc = 3\n' };
  assert.equal(apply(files, wrap('*** Update File: k.py\n@@\n a = 1\n b = 2\n-c = 3\n+c = 4'))['k.py'], 'a = 1   \n\tb = 2\nc = 4\n');
});

// --- Through the runtime: the receipt says what was replaced --------------------------------

const roots: string[] = [];
const runtimes: Runtime[] = [];
after(async () => {
  await Promise.all(runtimes.map((r) => r.close()));
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function project(files: Files): { root: string; rt: Runtime } {
  const root = mkdtempSync(join(tmpdir(), 'fb-codex-'));
  roots.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  const rt = createRuntime({ root });
  runtimes.push(rt);
  return { root, rt };
}

test('runtime: Add File over an existing file and Move onto one overwrite, and the note says what was replaced and its size', async () => {
  const { root, rt } = project({ 'notes.txt': 'twelve bytes', 'from.txt': 'moving\n', 'to.txt': 'in the way\n' });
  const added = await rt.applyPatch({ patch: wrap('*** Add File: notes.txt\n+fresh') });
  assert.equal(readFileSync(join(root, 'notes.txt'), 'utf8'), 'fresh\n');
  assert.match(added.note, /replaced: notes\.txt already existed \(12 bytes\) and was overwritten/);
  const moved = await rt.applyPatch({ patch: wrap('*** Update File: from.txt\n*** Move to: to.txt\n@@\n-moving\n+moved') });
  assert.equal(existsSync(join(root, 'from.txt')), false);
  assert.equal(readFileSync(join(root, 'to.txt'), 'utf8'), 'moved\n');
  assert.match(moved.note, /replaced: to\.txt already existed \(11 bytes\)/);
});

test('runtime: the same path twice is applied in order and written once', async () => {
  const { root, rt } = project({ 'a.txt': 'x\ny\n' });
  const receipt = await rt.applyPatch({ patch: wrap('*** Update File: a.txt\n*** Move to: b.txt\n@@\n-x\n+X\n*** Update File: b.txt\n@@\n-y\n+Y\n*** Add File: c.txt\n+1\n*** Update File: c.txt\n@@\n-1\n+2') });
  assert.equal(existsSync(join(root, 'a.txt')), false);
  assert.equal(readFileSync(join(root, 'b.txt'), 'utf8'), 'X\nY\n');
  assert.equal(readFileSync(join(root, 'c.txt'), 'utf8'), '2\n');
  assert.equal(receipt.receipts.length, 4);
  assert.equal(receipt.receipts[0]?.status, 'skipped', 'the Move is changed again by the next operation');
  // The receipt's patch replays to the disk.
  const replay = applyPatchText(receipt.input.patch, (path) => (path === 'a.txt' ? 'x\ny\n' : undefined));
  assert.equal(replay.get('b.txt'), 'X\nY\n');
  assert.equal(replay.get('c.txt'), '2\n');
});

test('runtime: deleting a directory is refused and the directory stays (Codex scenario: delete of a directory fails)', async () => {
  const { root, rt } = project({ 'dir/foo.txt': 'foo\n' });
  await assert.rejects(rt.applyPatch({ patch: wrap('*** Delete File: dir') }), { code: 'PATH_REFUSED' });
  assert.equal(readFileSync(join(root, 'dir/foo.txt'), 'utf8'), 'foo\n');
});

test('runtime: Add File and Move to create missing parent directories', async () => {
  const { root, rt } = project({ 'old/name.txt': 'n\n' });
  await rt.applyPatch({ patch: wrap('*** Add File: deep/er/new.txt\n+hi\n*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-n\n+m') });
  assert.equal(readFileSync(join(root, 'deep/er/new.txt'), 'utf8'), 'hi\n');
  assert.equal(readFileSync(join(root, 'renamed/dir/name.txt'), 'utf8'), 'm\n');
  assert.equal(existsSync(join(root, 'old/name.txt')), false);
});
