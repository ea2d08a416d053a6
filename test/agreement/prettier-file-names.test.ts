/**
 * The file names formatbox hands to Prettier are Prettier's own: every extension and file name that
 * `getSupportInfo()` of the installed Prettier lists (the core languages) maps to the language
 * formatbox formats it as. src/core/prettier-file-names.ts is generated from that list:
 *   FORMATBOX_WRITE_PRETTIER_FILE_NAMES=1 npm test -- prettier-file-names
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as prettier from 'prettier';
import { PRETTIER_FILE_NAMES } from '../../src/core/prettier-file-names.js';
import { languageOf } from '../../src/core/languages.js';
import { createEngine } from '../../src/engine/engine.js';
import { createBuiltinAdapters } from '../../src/node/builtins.js';

/** Prettier's language names as formatbox's language ids. */
const LANGUAGE_ID: Readonly<Record<string, string>> = {
  'JSON.stringify': 'json', JSON: 'json', 'JSON with Comments': 'jsonc', JSON5: 'json5',
  JavaScript: 'javascript', Flow: 'javascript', JSX: 'javascript', TypeScript: 'typescript', TSX: 'typescript',
  Handlebars: 'handlebars', GraphQL: 'graphql',
  Angular: 'html', HTML: 'html', 'Lightning Web Components': 'html', MJML: 'html', Vue: 'vue',
  Markdown: 'markdown', MDX: 'mdx', CSS: 'css', PostCSS: 'css', Less: 'less', SCSS: 'scss', YAML: 'yaml',
};

async function fromPrettier(): Promise<{ extensions: Record<string, string>; filenames: Record<string, string> }> {
  const extensions: Record<string, string> = {};
  const filenames: Record<string, string> = {};
  for (const language of (await prettier.getSupportInfo()).languages) {
    const id = LANGUAGE_ID[language.name];
    assert.ok(id, `Prettier language ${language.name} has no formatbox language id: add it to LANGUAGE_ID`);
    // Prettier's inferParser takes the first language that lists a name.
    for (const extension of language.extensions ?? []) extensions[extension] ??= id;
    for (const filename of language.filenames ?? []) filenames[filename] ??= id;
  }
  return { extensions, filenames };
}

test("formatbox's table of Prettier's file names is the installed Prettier's getSupportInfo()", async () => {
  const expected = await fromPrettier();
  if (process.env.FORMATBOX_WRITE_PRETTIER_FILE_NAMES === '1') {
    const version = (prettier as unknown as { version: string }).version;
    writeFileSync(
      new URL('../../src/core/prettier-file-names.ts', import.meta.url),
      `/**\n * Generated from \`getSupportInfo()\` of Prettier ${version} (test/agreement/prettier-file-names.test.ts):\n * the extensions (matched case-sensitively at the end of the name, as Prettier does) and file names\n * of Prettier's core languages, as formatbox language ids.\n */\nexport const PRETTIER_FILE_NAMES: { readonly extensions: Readonly<Record<string, string>>; readonly filenames: Readonly<Record<string, string>> } = ${JSON.stringify(expected, null, 2)};\n`,
    );
  }
  assert.deepEqual(PRETTIER_FILE_NAMES, expected, 'regenerate with FORMATBOX_WRITE_PRETTIER_FILE_NAMES=1');
});

test('every extension and file name Prettier lists gets the language Prettier formats it as', async () => {
  const { extensions, filenames } = await fromPrettier();
  for (const [extension, id] of Object.entries(extensions)) {
    // formatbox's own table lower-cases extensions; Prettier matches them as written.
    assert.equal(languageOf(`dir/name${extension}`), id, extension);
  }
  for (const [filename, id] of Object.entries(filenames)) assert.equal(languageOf(`dir/${filename}`), id, filename);
});

test('.wxs, .wxss, .importmap, .js.flow and .xhtml are formatted as Prettier formats them', async () => {
  const cases: Array<[string, string]> = [
    ['a.wxs', 'var  a  =  {b:1}\nmodule.exports = a\n'],
    ['a.wxss', '.a{color:red}\n'],
    ['a.importmap', '{"imports":{"a":"./a.js"}}\n'],
    ['a.js.flow', '// @flow\ntype  A = {b:number}\nexport function f(x:A):number{return x.b}\n'],
    ['a.xhtml', '<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><body><p>hi</p></body></html>\n'],
  ];
  const engine = createEngine({ formatters: createBuiltinAdapters(), projectFiles: { '.prettierrc': '{}' } });
  for (const [path, text] of cases) {
    const expected = await prettier.format(text, { filepath: path });
    assert.notEqual(expected, text, path);
    const outcome = await engine.format({ path, text });
    assert.equal(outcome.status, 'formatted', `${path}: ${outcome.line}`);
    assert.equal(outcome.content, expected, path);
  }
});
