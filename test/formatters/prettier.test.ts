// Unit tests for the Prettier adapter, against the real prettier/standalone and its built-in plugins.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { prettierFormatter } from '../../src/formatters/prettier/adapter.js';
import type { AdapterRequest, AdapterResult } from '../../src/core/types.js';

const prettier = prettierFormatter();

function request(path: string, text: string, extra: Partial<AdapterRequest> = {}): AdapterRequest {
  const language = extra.language ?? languageFor(path);
  return { path, language, text, settings: {}, ...extra };
}

function languageFor(path: string): string {
  const extension = path.slice(path.lastIndexOf('.') + 1);
  const table: Record<string, string> = {
    ts: 'typescript', js: 'javascript', json: 'json', md: 'markdown', yaml: 'yaml', css: 'css',
    vue: 'vue', graphql: 'graphql', html: 'html', mdx: 'mdx', scss: 'scss', less: 'less', json5: 'json5',
  };
  return table[extension] ?? 'unknown';
}

function okText(result: AdapterResult): string {
  assert.equal(result.kind, 'ok', JSON.stringify(result));
  return (result as { text: string }).text;
}

test('info() reports the installed prettier version, via js', async () => {
  const installed = JSON.parse(readFileSync('node_modules/prettier/package.json', 'utf8')).version;
  assert.deepEqual(await prettier.info(), { name: 'prettier', version: installed, via: 'js' });
  assert.equal(prettier.name, 'prettier');
  assert.equal(prettier.supportsRange, true);
});

test('formats TypeScript with Prettier defaults', async () => {
  const text = 'const  x : number=1\nfunction f( a,b ){return a+b}\n';
  assert.equal(
    okText(await prettier.format(request('src/a.ts', text))),
    'const x: number = 1;\nfunction f(a, b) {\n  return a + b;\n}\n',
  );
});

test('infers the parser from the path the way the CLI does', async () => {
  // package.json uses json-stringify (always expanded, like JSON.stringify); other .json files keep short objects.
  const json = '{"a":[1,2]}\n';
  assert.equal(okText(await prettier.format(request('sub/package.json', json))), '{\n  "a": [\n    1,\n    2\n  ]\n}\n');
  assert.equal(okText(await prettier.format(request('sub/data.json', json))), '{ "a": [1, 2] }\n');
  assert.equal(okText(await prettier.format(request('a.md', '*  one\n*  two\n'))), '- one\n- two\n');
  assert.equal(okText(await prettier.format(request('a.yaml', 'a:   [1,2]\n'))), 'a: [1, 2]\n');
  assert.equal(okText(await prettier.format(request('a.css', 'a{color:red}'))), 'a {\n  color: red;\n}\n');
  assert.equal(okText(await prettier.format(request('a.graphql', 'query{a{b}}'))), 'query {\n  a {\n    b\n  }\n}\n');
  assert.equal(
    okText(await prettier.format(request('a.vue', '<template><div   >{{ a+b }}</div></template>\n'))),
    '<template>\n  <div>{{ a + b }}</div>\n</template>\n',
  );
  // Embedded code is formatted with the built-in plugins, as the CLI does.
  assert.equal(okText(await prettier.format(request('a.md', '```js\nlet  a=1\n```\n'))), '```js\nlet a = 1;\n```\n');
});

test('settings are honoured: singleQuote, tabWidth, semi', async () => {
  const text = 'function f(){return "x"}\n';
  const settings = { singleQuote: true, tabWidth: 4, semi: false };
  assert.equal(okText(await prettier.format(request('a.js', text, { settings }))), "function f() {\n    return 'x'\n}\n");
});

test('a syntax error is an error value with the first line and (line:column)', async () => {
  // Prettier's own message carries a code frame over several lines; only the first line is kept.
  const text = 'const ok = 1;\nlet x = (\n';
  assert.deepEqual(await prettier.format(request('a.ts', text)), { kind: 'error', message: 'Expression expected. (2:10)' });
  assert.deepEqual(await prettier.format(request('a.js', text)), { kind: 'error', message: 'Unexpected token (3:1)' });
  assert.deepEqual(await prettier.format(request('a.css', 'a {')), { kind: 'error', message: 'CssSyntaxError: Unclosed block (1:1)' });
});

test('a parser only an unlisted plugin provides is the config\'s error (as the CLI says), and plugins in settings are never loaded', async () => {
  const toml = await prettier.format(request('a.toml', 'a=1', { language: 'toml', settings: { parser: 'toml' } }));
  assert.equal(toml.kind, 'error');
  assert.match((toml as { message: string }).message, /^Couldn't resolve parser "toml"\..*plugin/);
  assert.equal((toml as { setting?: string }).setting, 'parser');

  // prettier's Node API would import this data: URL plugin (DEPENDENCY-NOTES); the adapter must not.
  const marker = `__formatbox_prettier_plugin_ran_${Date.now()}`;
  const hostile = `data:text/javascript,globalThis.${marker}=true;export const parsers={};`;
  const result = await prettier.format(request('a.js', 'let  a', { settings: { plugins: [hostile], semi: false } }));
  assert.equal(okText(result), 'let a\n');
  assert.equal((globalThis as Record<string, unknown>)[marker], undefined);
});

test('built-in parsers outside the base set load on demand (flow, acorn, meriyah)', async () => {
  for (const parser of ['flow', 'acorn', 'meriyah', 'espree']) {
    assert.equal(okText(await prettier.format(request('a.js', 'let  a=1', { settings: { parser } }))), 'let a = 1;\n', parser);
  }
});

test('an unknown extension is unsupported, an invalid option value is an error', async () => {
  assert.equal((await prettier.format(request('a.unknownext', 'x', { language: 'x' }))).kind, 'unsupported');
  const bad = await prettier.format(request('a.js', 'x', { settings: { tabWidth: 'wide' } }));
  assert.equal(bad.kind, 'error');
  assert.match((bad as { message: string }).message, /tabWidth/);
});

test("LF text out; the adapter names Prettier's endOfLine as the line-ending policy (default lf, auto = first CR)", async () => {
  const text = 'let  a = 1\nlet  b = 2\n';
  const policy = async (settings: Record<string, unknown>) => {
    const result = await prettier.format(request('a.js', text, { settings }));
    assert.equal(okText(result), 'let a = 1;\nlet b = 2;\n');
    return (result as { lineEnding?: string }).lineEnding;
  };
  assert.equal(await policy({}), 'lf');
  assert.equal(await policy({ endOfLine: 'auto' }), 'first-cr');
  assert.equal(await policy({ endOfLine: 'crlf' }), 'crlf');
  assert.equal(await policy({ endOfLine: 'cr' }), 'cr');
  const invalid = await prettier.format(request('a.js', text, { settings: { endOfLine: 'windows' } }));
  assert.deepEqual(invalid, { kind: 'error', message: 'Invalid endOfLine value. Expected "lf", "crlf", "cr" or "auto", but received "windows".', setting: 'endOfLine' });
});

test('range formatting keeps text outside the range byte-identical (non-ASCII before the range)', async () => {
  const before = 'const  é = "🎉 ü"   ;\n';
  const middle = 'const   b  =  {x:1}\n';
  const after = 'const   c = 3\n';
  const text = before + middle + after;
  const utf16Start = before.length + 2; // inside the second statement, in UTF-16 units
  const result = okText(
    await prettier.format(request('a.ts', text, { range: { utf16Start, utf16End: utf16Start + 3 } })),
  );
  assert.equal(result, before + 'const b = { x: 1 };\n' + after);
});

test('a range in a language Prettier cannot range-format formats the whole file', async () => {
  const text = 'a:   1\nb:    [1,2]\n';
  const result = await prettier.format(request('a.yaml', text, { range: { utf16Start: 0, utf16End: 3 } }));
  assert.equal(okText(result), 'a: 1\nb: [1, 2]\n');
});
