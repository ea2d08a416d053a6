/**
 * Embedded languages: formatbox's output equals Prettier's own API (`prettier` from node_modules, which
 * loads all of its built-in plugins) on the code Prettier's embed step formats: Angular templates and
 * control flow, `@Component({template})` in TypeScript, Handlebars in a script tag, Vue blocks, Flow in
 * Markdown. Through the engine and through the Node runtime (its formatter worker). Each case also
 * checks Prettier changes the embedded code, so leaving it as written fails.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as prettier from 'prettier';
import { createEngine } from '../../src/engine/engine.js';
import { createBuiltinAdapters } from '../../src/node/builtins.js';
import { createRuntime } from '../../src/node/index.js';
import { writeTree } from '../write-tree.js';

export const EMBED_CASES: Array<[path: string, text: string]> = [
  ['src/app/a.component.html', '<div>{{  a   in b }}</div>\n'],
  ['src/app/list.component.html', '@if (users$   |   async; as   users) {\n<ul>@for (u of users; track u.id) {<li>{{u.name   |   uppercase}}</li>}</ul>\n} @else {\n<p>none</p>\n}\n'],
  ['src/app/b.component.ts', 'import {Component} from "@angular/core";\n@Component({selector: "app-b", template: `<div *ngIf="a&&b">{{  a   +   b }}</div>`})\nexport class B {}\n'],
  ['page.html', '<script type="text/x-handlebars-template">\n  {{#if   a}}\n<p>{{  b  }}</p>\n{{/if}}\n</script>\n'],
  ['Comp.vue', '<template><div>{{ a   +  b }}</div></template>\n<script>\nexport default {data(){return {a:1}}}\n</script>\n<i18n lang="json">\n{"en":{"a":1},\n"de":   {"a":2}}\n</i18n>\n<docs lang="md">\n#  Title\n*  item\n</docs>\n'],
  ['notes.md', '# Types\n\n```flow\ntype  A = {b:number}\n```\n\n```hbs\n{{#if  a}}<b>{{c}}</b>{{/if}}\n```\n'],
];

const root = mkdtempSync(join(tmpdir(), 'fb-embed-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('the engine formats embedded code as Prettier does', async () => {
  const engine = createEngine({ formatters: createBuiltinAdapters(), projectFiles: { '.prettierrc': '{}' } });
  for (const [path, text] of EMBED_CASES) {
    const expected = await prettier.format(text, { filepath: path });
    assert.notEqual(expected, text, `${path}: Prettier changes it`);
    const outcome = await engine.format({ path, text });
    assert.equal(outcome.content, expected, `${path}: ${outcome.line}`);
    assert.equal(outcome.status, 'formatted', path);
  }
});

test('the Node runtime (its formatter worker) formats embedded code as Prettier does', async () => {
  writeTree(root, { '.prettierrc': '{}\n', '.git/': '', ...Object.fromEntries(EMBED_CASES) });
  const runtime = createRuntime({ root });
  try {
    for (const [path, text] of EMBED_CASES) {
      const receipt = await runtime.format({ path });
      assert.equal(receipt.status, 'formatted', `${path}: ${receipt.line}`);
      assert.equal(readFileSync(join(root, path), 'utf8'), await prettier.format(text, { filepath: path }), path);
    }
  } finally {
    await runtime.close();
  }
});
