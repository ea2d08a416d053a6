// A unified diff's header names the file: a project-relative path as git does (`a/…`, `b/…`), an
// absolute one (init's user-level configs, ~/.claude/settings.json) as diff -u does, never `a//tmp/…`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unifiedDiff } from '../../src/core/diff.js';

test('diff headers: a/ and b/ for a relative path, the path itself when absolute', () => {
  assert.match(unifiedDiff('a\n', 'b\n', { path: 'src/x.ts' }), /^--- a\/src\/x\.ts\n\+\+\+ b\/src\/x\.ts\n@@ /);
  const absolute = unifiedDiff('{}\n', '{ "x": 1 }\n', { path: '/tmp/home/.claude/settings.json' });
  assert.match(absolute, /^--- \/tmp\/home\/\.claude\/settings\.json\n\+\+\+ \/tmp\/home\/\.claude\/settings\.json\n@@ /);
  assert.doesNotMatch(absolute, /[ab]\/\//);
});
