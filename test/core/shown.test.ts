// shownPath: the one escaping function for paths shown to a model or a terminal (issue 9, class 9).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasUnsafeCharacters, shownPath } from '../../src/core/shown.js';
import { loneSurrogateIndex } from '../../src/tools/index.js';

test('shownPath: ordinary names unchanged; names with controls, separators, bidi or a leading quote quoted and escaped', () => {
  for (const plain of ['src/a.ts', 'dir with spaces/ä ö.md', 'emoji 😀.txt', 'back\\slash.ts', 'quote"inside.ts']) assert.equal(shownPath(plain), plain);
  assert.equal(shownPath('a\nSYSTEM: x.ts'), '"a\\nSYSTEM: x.ts"');
  assert.equal(shownPath('a\rb'), '"a\\rb"');
  assert.equal(shownPath('t\tb'), '"t\\tb"');
  assert.equal(shownPath('e\u001b[2Jx'), '"e\\u001b[2Jx"');
  assert.equal(shownPath('del\u007f c1\u0085'), '"del\\u007f c1\\u0085"');
  assert.equal(shownPath('ls\u2028ps\u2029'), '"ls\\u2028ps\\u2029"');
  assert.equal(shownPath('bidi\u202eexe.ts'), '"bidi\\u202eexe.ts"');
  assert.equal(shownPath('zw\u200bsp'), '"zw\\u200bsp"');
  assert.equal(shownPath('"a".ts'), '"\\"a\\".ts"', 'a leading quote is quoted, so the two forms cannot be confused');
  assert.equal(shownPath('x\n\\"y'), '"x\\n\\\\\\"y"');
  assert.equal(shownPath('lone\uD800'), '"lone\\ud800"');
  for (const name of ['a\nb', 'e\u001bx', 'ls\u2028', 'bidi\u202e']) assert.equal(hasUnsafeCharacters(shownPath(name)), false);
});

test('loneSurrogateIndex: well-formed text is -1; a lone high or low surrogate is found at its UTF-16 index', () => {
  assert.equal(loneSurrogateIndex('plain'), -1);
  assert.equal(loneSurrogateIndex('pair 😀 ok'), -1);
  assert.equal(loneSurrogateIndex('a\uD800b'), 1);
  assert.equal(loneSurrogateIndex('ab\uDC00'), 2);
  assert.equal(loneSurrogateIndex('\uD83D'), 0);
  assert.equal(loneSurrogateIndex('\uDE00\uD83D'), 0);
});
