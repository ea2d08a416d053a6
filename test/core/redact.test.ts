// redactSecrets: the one boundary registry text passes before it is shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redactSecrets } from '../../src/core/redact.js';

test('URLs lose their userinfo, query and fragment; host and path stay', () => {
  assert.equal(redactSecrets('http://user:pa55word@registry.example.com/npm/prettier: HTTP 401'), 'http://registry.example.com/npm/prettier: HTTP 401');
  assert.equal(redactSecrets('https://:tok@r.example/ and https://r.example/x?token=abc#frag done'), 'https://r.example/ and https://r.example/x done');
  assert.equal(redactSecrets('unreachable (Request cannot be constructed from a URL that includes credentials: http://a:b@h/p)'), 'unreachable (Request cannot be constructed from a URL that includes credentials: http://h/p)');
});

test('credential-named values and known secret values are masked; short values are not masked in running text', () => {
  assert.equal(redactSecrets('_authToken=npm_abcdef123 and password: "x y" and Authorization: Bearer abc.def'), '_authToken=*** and password: *** and Authorization: ***');
  assert.equal(redactSecrets('https://npm.fury.io/s3cr3t-t0ken/prettier: HTTP 404', ['s3cr3t-t0ken']), 'https://npm.fury.io/***/prettier: HTTP 404');
  assert.equal(redactSecrets('a short one: abc', ['abc']), 'a short one: abc');
});
