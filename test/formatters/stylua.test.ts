// StyLua (@johnnymorganz/stylua, StyLua's own wasm build): version, stylua.toml read as data and
// honoured option by option, the nearest config and the name StyLua prefers, errors, ranges.
// No Lua sources ship on this machine and StyLua's own test suite is not in its npm package: the
// inputs are small fixtures of our own; expected outputs are StyLua's documented behaviour.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createEngine } from '../../src/engine/engine.js';
import { createBuiltinAdapters } from '../../src/node/builtins.js';
import { STYLUA_VERSION } from '../../src/formatters/stylua/adapter.js';

const formatters = createBuiltinAdapters();
const SOURCE = "local t = {1,2,3}\nlocal s = \"it's\"\nfunction f(a,b) return a+b end\nprint(\"x\")\nlocal function g() return 1 end\n";

async function format(stylua: string, text = SOURCE, path = 'a.lua') {
  const engine = createEngine({ formatters, projectFiles: { 'stylua.toml': stylua } });
  return engine.format({ path, text });
}

test('the adapter names the installed StyLua', () => {
  assert.equal(STYLUA_VERSION, JSON.parse(readFileSync('node_modules/@johnnymorganz/stylua/package.json', 'utf8')).version);
});

test('defaults: tabs, width 120, double quotes preferred', async () => {
  const outcome = await format('');
  assert.equal(outcome.formatter?.name, 'stylua');
  assert.equal(outcome.content, "local t = { 1, 2, 3 }\nlocal s = \"it's\"\nfunction f(a, b)\n\treturn a + b\nend\nprint(\"x\")\nlocal function g()\n\treturn 1\nend\n");
});

test('stylua.toml options are honoured', async () => {
  const spaces = await format('indent_type = "Spaces"\nindent_width = 3\n');
  assert.match(spaces.content, /\n {3}return a \+ b\n/);
  const single = await format('quote_style = "ForceSingle"\n');
  assert.match(single.content, /print\('x'\)/);
  const parens = await format('call_parentheses = "None"\n');
  assert.match(parens.content, /print "x"/);
  const collapse = await format('collapse_simple_statement = "FunctionOnly"\n');
  assert.match(collapse.content, /local function g\(\) return 1 end/);
  const narrow = await format('column_width = 20\n', 'local value = call(argument_one, argument_two, argument_three)\n');
  assert.equal(narrow.content, 'local value = call(\n\targument_one,\n\targument_two,\n\targument_three\n)\n');
  // StyLua writes its `line_endings` whatever the file had: Windows is CRLF, the default Unix is LF.
  const unix = (await format('')).content;
  const windows = await format('line_endings = "Windows"\n');
  assert.equal(windows.content, unix.replace(/\n/g, '\r\n'));
  const crlfFile = await format('', SOURCE.replace(/\n/g, '\r\n'));
  assert.equal(crlfFile.content, unix);
});

test('a value StyLua rejects refuses the file; an unknown key is reported and left out', async () => {
  const rejected = await format('indent_type = "Sideways"\nindent_width = 2\n');
  assert.equal(rejected.status, 'failed');
  assert.match(rejected.reason ?? '', /^invalid project config: stylua\.toml:1:1: indent_type: expected one of Tabs, Spaces/);
  assert.equal(rejected.content, SOURCE);
  const unknown = await format('indent_width = 2\nfoo = 1\n');
  assert.deepEqual(unknown.ignored?.map((i) => i.item), ['foo']);
  assert.match(unknown.content, /\treturn a \+ b/);
});

test('nearest config wins; stylua.toml wins over .stylua.toml in one directory; no config: not declared', async () => {
  const engine = createEngine({
    formatters,
    projectFiles: { 'stylua.toml': 'indent_type = "Spaces"\n', '.stylua.toml': 'indent_type = "Tabs"\n', 'sub/.stylua.toml': 'quote_style = "ForceSingle"\n' },
  });
  assert.match((await engine.format({ path: 'a.lua', text: SOURCE })).content, /\n {4}return/);
  const sub = await engine.format({ path: 'sub/b.lua', text: SOURCE });
  assert.match(sub.content, /print\('x'\)/);
  assert.match(sub.content, /\n\treturn/);
  const none = createEngine({ formatters });
  assert.equal(none.explain('a.lua').kind, 'skip');
});

test('a syntax error is a failed receipt with its position; a range formats the edited lines only', async () => {
  const bad = await format('', 'local = 1\n');
  assert.equal(bad.status, 'failed');
  assert.equal(bad.reason, '1:7: unexpected token `=`, expected either a variable name or `function`');
  const engine = createEngine({ formatters, projectFiles: { 'stylua.toml': '' } });
  const text = 'local a={1}\nlocal b={2}\nlocal c={3}\n';
  const ranged = await engine.format({ path: 'a.lua', text, range: { utf16Start: 18, utf16End: 19 } });
  assert.equal(ranged.content, 'local a={1}\nlocal b = { 2 }\nlocal c={3}\n');
});

test('untrusted mode clamps a huge indent_width and says so; trusted mode keeps it', async () => {
  const text = 'if a then\n\tb()\nend\n';
  const untrusted = await createEngine({ formatters, projectFiles: { 'stylua.toml': 'indent_type = "Spaces"\nindent_width = 5000\n' } }).format({ path: 'a.lua', text });
  assert.equal(untrusted.content, `if a then\n${' '.repeat(16)}b()\nend\n`);
  assert.match(untrusted.ignored?.find((i) => i.item.startsWith('indent_width'))?.reason ?? '', /clamped from 5000 to 16 in untrusted mode/);
  const trusted = await createEngine({ formatters, trust: 'trusted', projectFiles: { 'stylua.toml': 'indent_type = "Spaces"\nindent_width = 40\n' } }).format({ path: 'a.lua', text });
  assert.equal(trusted.content, `if a then\n${' '.repeat(40)}b()\nend\n`);
});
