// Agreement: the Prettier options formatbox resolves from data (config file + overrides + .editorconfig)
// against prettier's own Node API, `resolveConfig(file, { editorconfig: true })`, on real directories.
// Only data configs here (prettier would run code configs; that is the hostile suite's subject).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as prettier from 'prettier';
import { discoverProjectFiles } from '../../src/node/discover.js';
import { loadProjectConfig, normaliseUserConfig, selectFormatter } from '../../src/config/index.js';

const EDITORCONFIG = [
  'root = true',
  '[*]',
  'indent_style = space',
  'indent_size = 4',
  'end_of_line = crlf',
  'max_line_length = 100',
  '[*.{md,markdown}]',
  'max_line_length = off',
  '[Makefile]',
  'indent_style = tab',
  '[lib/**.js]',
  'indent_style = tab',
  'tab_width = 3',
  '[{package.json,*.yml}]',
  'indent_size = 2',
  '[src/legacy/*]',
  'indent_size = unset',
  '',
].join('\n');

const PROJECTS: Record<string, Record<string, string>> = {
  'json rc + overrides': {
    '.prettierrc': JSON.stringify({ semi: false, overrides: [{ files: ['*.test.js', 'spec/**'], options: { semi: true, printWidth: 60 } }, { files: '*.md', excludeFiles: 'docs/keep/**', options: { proseWrap: 'always' } }] }),
  },
  'yaml rc + editorconfig': { '.prettierrc.yaml': 'singleQuote: true\noverrides:\n  - files: "*.yml"\n    options:\n      tabWidth: 8\n', '.editorconfig': EDITORCONFIG },
  'toml rc in a package': { 'packages/a/.prettierrc.toml': 'tabWidth = 3\nuseTabs = false\n[[overrides]]\nfiles = "src/**/*.ts"\n[overrides.options]\nsemi = false\n', '.editorconfig': EDITORCONFIG },
  'package.json key': { 'package.json': JSON.stringify({ name: 'p', prettier: { trailingComma: 'none', overrides: [{ files: 'lib/*.js', options: { bracketSpacing: false } }] } }), '.editorconfig': EDITORCONFIG },
  'json5 nearest wins': { '.prettierrc.json5': '{ printWidth: 90 }', 'sub/.prettierrc.json': '{ "arrowParens": "avoid" }', '.editorconfig': EDITORCONFIG },
  'editorconfig only, prettier declared by empty rc': { '.prettierrc': '{}', '.editorconfig': EDITORCONFIG },
};

const PATHS = ['a.js', 'x.test.js', 'spec/a/b.js', 'README.md', 'docs/keep/a.md', 'docs/x.md', 'ci.yml', 'package.json', 'lib/x.js', 'lib/deep/y.js', 'src/legacy/old.js', 'packages/a/src/m.ts', 'packages/a/b.ts', 'sub/z.ts', 'Makefile.js'];

test('resolved Prettier options equal prettier.resolveConfig({ editorconfig: true }) on every project and path', async () => {
  let compared = 0;
  for (const [name, files] of Object.entries(PROJECTS)) {
    const root = mkdtempSync(join(tmpdir(), 'formatbox-prc-'));
    try {
      mkdirSync(join(root, '.git')); // Prettier's editorconfig search stops at the project root marker.
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      }
      const discovered = await discoverProjectFiles(root);
      const project = loadProjectConfig(discovered.files, { trust: 'untrusted' });
      for (const path of PATHS) {
        const theirs = (await prettier.resolveConfig(join(root, path), { editorconfig: true, useCache: false })) ?? {};
        delete (theirs as Record<string, unknown>).overrides;
        const selection = selectFormatter(project, normaliseUserConfig({ mode: 'always' }), path);
        assert.equal(selection.kind, 'format');
        const ours = selection.kind === 'format' ? selection.settings : {};
        assert.deepEqual(ours, theirs, `${name}: ${path}`);
        compared++;
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  assert.equal(compared, Object.keys(PROJECTS).length * PATHS.length);
});
