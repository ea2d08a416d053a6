// The unified-diff dialect follows `git apply` (apply.c). Each rule, with a case of our own, checked
// against the real `git apply` on the same files (and against the expected result). The random
// differential test is test/tools/patch-git-apply.test.ts.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { applyPatchText, parsePatch } from '../../src/tools/index.js';
import { gitEnv, skipWithoutGit } from './git.js';

type Files = Record<string, string>;
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));


function ours(files: Files, patch: string): Files | string {
  try {
    const out: Files = { ...files };
    for (const [path, text] of applyPatchText(patch, (p) => files[p])) {
      if (text === null) delete out[path];
      else out[path] = text;
    }
    return out;
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
}

function theirs(files: Files, patch: string): Files | string {
  const dir = mkdtempSync(join(tmpdir(), 'fb-unified-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const zero = parsePatch(patch).unidiffZero === true;
  const result = spawnSync('git', ['apply', ...(zero ? ['--unidiff-zero'] : []), '-'], {
    cwd: dir, input: patch, encoding: 'utf8', env: gitEnv(),
  });
  if (result.status !== 0) return `refused: ${result.stderr.trim()}`;
  const out: Files = {};
  const walk = (abs: string): void => {
    for (const name of readdirSync(abs)) {
      const full = join(abs, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[relative(dir, full)] = readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  return out;
}

/** formatbox and git apply agree; returns the result (a tree, or a string starting with "refused"). */
function agree(files: Files, patch: string): Files | string {
  const a = ours(files, patch);
  const b = theirs(files, patch);
  if (typeof a === 'string' || typeof b === 'string') {
    assert.equal(typeof a, typeof b, `formatbox: ${JSON.stringify(a)}\ngit apply: ${JSON.stringify(b)}`);
  } else assert.deepEqual(a, b);
  return a;
}

const lines = (n: number, prefix = 'line'): string => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}\n`).join('');
const opts = { skip: skipWithoutGit() };

test('a hunk is sought from its stated line, forwards and backwards, and must match byte for byte', opts, () => {
  const patch = '--- a/f\n+++ b/f\n@@ -10,3 +10,3 @@\n line10\n-line11\n+ELEVEN\n line12\n';
  // Stated line, then two lines later, then earlier.
  assert.equal((agree({ f: lines(20) }, patch) as Files).f, lines(20).replace('line11\n', 'ELEVEN\n'));
  assert.equal((agree({ f: 'x\nx\n' + lines(20) }, patch) as Files).f, 'x\nx\n' + lines(20).replace('line11\n', 'ELEVEN\n'));
  assert.equal((agree({ f: lines(20).replace('line1\nline2\n', '') }, patch) as Files).f, lines(20).replace('line1\nline2\n', '').replace('line11\n', 'ELEVEN\n'));
  // No fuzz: trailing whitespace differs, refused.
  assert.match(agree({ f: lines(20).replace('line12\n', 'line12 \n') }, patch) as string, /^refused/);
});

test('a hunk starting at line 1 must match at the beginning; one without trailing context, at the end', opts, () => {
  const start = '--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-line1\n+ONE\n line2\n';
  assert.match(agree({ f: 'x\n' + lines(5) }, start) as string, /^refused/);
  const end = '--- a/f\n+++ b/f\n@@ -4,2 +4,2 @@\n line4\n-line5\n+FIVE\n';
  assert.equal((agree({ f: lines(5) }, end) as Files).f, lines(4) + 'FIVE\n');
  assert.match(agree({ f: lines(5) + 'more\n' }, end) as string, /^refused/);
});

test('the final newline is part of the match: "\\ No newline at end of file" must agree with the file', opts, () => {
  const patch = '--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n';
  assert.deepEqual(agree({ f: 'a\nb' }, patch), { f: 'a\nB' });
  assert.match(agree({ f: 'a\nb\n' }, patch) as string, /^refused/);
  // Adding the final newline.
  assert.deepEqual(agree({ f: 'a\nb' }, '--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n'), { f: 'a\nb\n' });
});

test('lines an earlier hunk wrote are not matched again', opts, () => {
  // The second hunk's lines occur only where the first hunk wrote them (and nowhere else).
  const patch = '--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n+x\n b\n@@ -1,2 +2,3 @@\n x\n+y\n b\n';
  assert.match(agree({ f: 'a\nb\n' }, patch) as string, /^refused/);
});

test('-U0 patches apply as git apply --unidiff-zero: insertions go where the header says', opts, () => {
  const patch = '--- a/f\n+++ b/f\n@@ -2,0 +3 @@\n+inserted\n';
  assert.equal(parsePatch(patch).unidiffZero, true);
  assert.deepEqual(agree({ f: lines(4) }, patch), { f: 'line1\nline2\ninserted\nline3\nline4\n' });
  assert.deepEqual(agree({ f: lines(4) }, '--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+top\n'), { f: 'top\n' + lines(4) });
});

test('files: an added file must not exist, a deletion must remove all of it, a rename must not overwrite', opts, () => {
  assert.match(agree({ f: 'x\n' }, '--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+y\n') as string, /^refused/);
  assert.match(agree({ f: 'x\ny\n' }, 'diff --git a/f b/f\ndeleted file mode 100644\n--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n') as string, /^refused/);
  assert.deepEqual(agree({ f: 'x\n' }, 'diff --git a/f b/f\ndeleted file mode 100644\n--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n'), {});
  const rename = 'diff --git a/f b/g\nsimilarity index 100%\nrename from f\nrename to g\n';
  assert.deepEqual(agree({ f: 'x\n' }, rename), { g: 'x\n' });
  assert.match(agree({ f: 'x\n', g: 'y\n' }, rename) as string, /^refused/);
  // An empty new file has no hunk at all.
  assert.deepEqual(agree({}, 'diff --git a/e b/e\nnew file mode 100644\nindex 0000000..e69de29\n'), { e: '' });
});

test('CRLF files: a patch carrying the CRs applies as git does; one without any CR applies too (git refuses) and writes CRLF', opts, () => {
  const file = 'a\r\nb\r\nc\r\n';
  assert.deepEqual(agree({ f: file }, '--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n'), { f: 'a\r\nB\r\nc\r\n' });
  const withoutCr = '--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n';
  assert.match(theirs({ f: file }, withoutCr) as string, /^refused/);
  assert.deepEqual(ours({ f: file }, withoutCr), { f: 'a\r\nB\r\nc\r\n' });
});

test('a line without newline ("\\ No newline") matches as git compares bytes: as a prefix of a file line that goes on with whitespace', opts, () => {
  // The hunk's last context line `end` has no newline, but the file goes on after it: git matches
  // `end` against `end\n` (a byte prefix, same whitespace-blind hash) and writes the hunk's bytes,
  // so that line loses its newline and joins the next one.
  const patch = '--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n head\n-gone\n+new\n end\n\\ No newline at end of file\n';
  assert.deepEqual(agree({ f: 'head\ngone\nend\nend' }, patch), { f: 'head\nnew\nendend' });
  // Trailing whitespace after the prefix still matches; other bytes do not.
  assert.deepEqual(agree({ f: 'head\ngone\nend \t\r\ntail\n' }, patch), { f: 'head\nnew\nendtail\n' });
  assert.match(agree({ f: 'head\ngone\nends\n' }, patch) as string, /^refused/);
  // -U0 (--unidiff-zero): the first line, a prefix of the whole one-line file, is where it applies,
  // although the exact line comes later.
  const zero = '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n';
  assert.deepEqual(agree({ f: 'x\nx' }, zero), { f: 'yx' });
  // With matching at the end required (no trailing context), the line must be the file's last.
  const end = '--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n';
  assert.match(agree({ f: 'a\nb\nb' }, end) as string, /^refused/);
});

test('a refusal names the hunk by its header as sent', () => {
  const message = ours({ f: 'a\nb\nc\n' }, '--- a/f\n+++ b/f\n@@ -1,3 +1,2 @@\n a\n-x\n c\n') as string;
  assert.match(message, /hunk 1 \(@@ -1,3 \+1,2 @@\) does not apply/);
});
