// The shfmt adapter (sh-syntax's wasm hosted by src/formatters/shfmt/adapter.ts): version, errors as values,
// shfmt's variant choice and EditorConfig keys, and how project mode selects it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SH_SYNTAX_PACKAGE_VERSION, shfmtFormatter, shfmtOptions } from '../../src/formatters/shfmt/adapter.js';
import { createEngine } from '../../src/engine/engine.js';
import { createBuiltinAdapters } from '../../src/node/builtins.js';

const shfmt = shfmtFormatter({ wasm: async () => readFileSync('node_modules/sh-syntax/main.wasm') });

test('the adapter names the installed sh-syntax version', async () => {
  assert.equal(SH_SYNTAX_PACKAGE_VERSION, JSON.parse(readFileSync('node_modules/sh-syntax/package.json', 'utf8')).version);
  assert.deepEqual(await shfmt.info(), { name: 'sh-syntax', version: SH_SYNTAX_PACKAGE_VERSION, via: 'wasm' });
});

test('a syntax error is a value with its position; the next call still works', async () => {
  const bad = await shfmt.format({ path: 'a.sh', language: 'shell', text: 'if then fi\n', settings: {} });
  assert.deepEqual(bad, { kind: 'error', message: '1:1: `if` must be followed by a statement list' });
  const good = await shfmt.format({ path: 'a.sh', language: 'shell', text: 'echo  hi\n', settings: {} });
  assert.deepEqual(good, { kind: 'ok', text: 'echo hi\n', lineEnding: 'lf' });
});

test('line endings are shfmt\'s: a CRLF script comes out LF, as shfmt writes it', async () => {
  const engine = createEngine({ formatters: createBuiltinAdapters(), config: { mode: 'always' } });
  const outcome = await engine.format({ path: 'a.sh', text: 'if x;then\r\necho a\r\nfi\r\n' });
  assert.equal(outcome.content, 'if x; then\n\techo a\nfi\n');
});

test('variant and options as shfmt derives them', () => {
  assert.equal(shfmtOptions({}, 'a.sh', '#!/bin/sh\n').variant, 'posix');
  assert.equal(shfmtOptions({}, 'a.sh', 'echo\n').variant, 'bash');
  assert.equal(shfmtOptions({}, 'a.sh', '#!/usr/bin/env bash\n').variant, 'bash');
  assert.equal(shfmtOptions({}, 't.bats', '').variant, 'bats');
  assert.equal(shfmtOptions({ shell_variant: 'mksh' }, 'a.sh', '#!/bin/sh\n').variant, 'mksh');
  assert.equal(shfmtOptions({ indent_style: 'space' }, 'a.sh', '').indent, 8);
  assert.equal(shfmtOptions({ indent_style: 'space', indent_size: 3 }, 'a.sh', '').indent, 3);
  assert.equal(shfmtOptions({ indent_style: 'tab', indent_size: 3 }, 'a.sh', '').indent, 0);
  assert.equal(shfmtOptions({ switch_case_indent: 'true' }, 'a.sh', '').switchCaseIndent, true);
});

test('project mode: a shell section of .editorconfig declares shfmt; [*] alone gets the EditorConfig normaliser', async () => {
  const formatters = createBuiltinAdapters();
  const shellSection = createEngine({ formatters, projectFiles: { '.editorconfig': '[*]\nindent_style = space\n\n[*.sh]\nindent_size = 2\n' } });
  const explained = shellSection.explain('bin/run.sh');
  assert.equal(explained.kind === 'format' && explained.formatter, 'shfmt');
  const outcome = await shellSection.format({ path: 'bin/run.sh', text: 'if x;then\necho a\nfi\n' });
  assert.equal(outcome.content, 'if x; then\n  echo a\nfi\n');
  const generic = createEngine({ formatters, projectFiles: { '.editorconfig': '[*]\ntrim_trailing_whitespace = true\n' } });
  const other = generic.explain('bin/run.sh');
  assert.equal(other.kind === 'format' && other.formatter, 'editorconfig');
  const none = createEngine({ formatters });
  assert.equal(none.explain('bin/run.sh').kind, 'skip');
  const always = createEngine({ formatters, config: { mode: 'always' } });
  const chosen = always.explain('bin/run.sh');
  assert.equal(chosen.kind === 'format' && chosen.formatter, 'shfmt');
});
