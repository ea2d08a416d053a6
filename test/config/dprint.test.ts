// dprint.json read as data: which shipped plugin formats a language, with which settings; `extends`
// is never followed; the user's `{dprint: name}` choice selects a shipped plugin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadProjectConfig, normaliseUserConfig, selectFormatter } from '../../src/config/index.js';
import { createEngine } from '../../src/engine/engine.js';
import { createBuiltinAdapters } from '../../src/node/builtins.js';

const DPRINT_JSON = JSON.stringify({
  lineWidth: 40,
  markdown: { textWrap: 'always' },
  extends: 'https://example.com/shared-dprint.json',
  plugins: ['https://plugins.dprint.dev/markdown-0.17.8.wasm', 'https://plugins.dprint.dev/toml-0.6.2.wasm'],
});

test('dprint.json: the plugins it lists choose the formatter, with the global keys and the plugin section as settings', () => {
  const project = loadProjectConfig({ 'docs/dprint.json': DPRINT_JSON, '.prettierrc': '{}' }, { trust: 'untrusted' });
  const user = normaliseUserConfig({});
  const md = selectFormatter(project, user, 'docs/guide.md');
  assert.equal(md.kind, 'format');
  assert.equal(md.kind === 'format' && md.formatter, 'dprint:markdown');
  // Its code blocks go to the other plugins the config lists, with their settings (as the dprint CLI formats them).
  assert.deepEqual(md.kind === 'format' && md.settings, {
    lineWidth: 40,
    markdown: { textWrap: 'always' },
    $formatboxEmbedded: { plugins: { markdown: { lineWidth: 40, markdown: { textWrap: 'always' } }, toml: { lineWidth: 40 } }, unrun: [] },
  });
  const toml = selectFormatter(project, user, 'docs/book.toml');
  assert.equal(toml.kind === 'format' && toml.formatter, 'toml');
  assert.deepEqual(toml.kind === 'format' && toml.settings, { lineWidth: 40 });
  // Outside the dprint config's directory, and JSON (not listed): Prettier, as before.
  assert.equal((selectFormatter(project, user, 'README.md') as { formatter?: unknown }).formatter, 'prettier');
  assert.equal((selectFormatter(project, user, 'docs/a.json') as { formatter?: unknown }).formatter, 'prettier');
  assert.ok(project.ignored.some((i) => i.file === 'docs/dprint.json' && /^extends/.test(i.item) && /never followed/.test(i.reason)));
});

test("the user's {dprint: 'json'} runs the shipped JSON plugin; an unknown plugin name is skipped with the reason", async () => {
  const formatters = createBuiltinAdapters();
  const engine = createEngine({ formatters, config: { formatters: { json: { dprint: 'json' }, markdown: { dprint: 'asciidoc' } } } });
  const json = await engine.format({ path: 'a.json', text: '{"a":[1,2],"b":{"c":true}}' });
  assert.equal(json.status, 'formatted', json.line);
  assert.match(json.formatter?.name ?? '', /dprint-plugin-json/);
  assert.equal(json.content, '{ "a": [1, 2], "b": { "c": true } }\n');
  const unknown = await engine.format({ path: 'a.md', text: '#  x\n' });
  assert.equal(unknown.status, 'skipped');
  assert.match(unknown.line, /dprint:asciidoc is not available here/);
});
