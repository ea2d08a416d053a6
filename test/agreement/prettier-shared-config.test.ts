/**
 * A Prettier config that is a string naming a shared config (`"prettier": "@shopify/prettier-config"`
 * in package.json, a `.prettierrc` holding a package name or a path): formatbox's untrusted runtime
 * reads it as data when Node's `require` would load a `.json` file, and its bytes equal the Prettier
 * 3.10.1 CLI's on real source files; a shared config that is code, not installed, or reached through
 * anything formatbox does not follow is refused with a reason.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { assertRefused, cleanUp, formatbox, packed, project, realSources, unpack, writeFiles } from './shared-config-fixtures.js';

const PRETTIER = resolve('node_modules/prettier/bin/prettier.cjs');
after(cleanUp);

function cli(root: string, paths: readonly string[]): { status: number | null; output: string; files: Record<string, string> } {
  const copy = `${root}-cli`;
  cpSync(root, copy, { recursive: true, verbatimSymlinks: true });
  const run = spawnSync(process.execPath, [PRETTIER, '--write', ...paths], { cwd: copy, encoding: 'utf8', timeout: 60_000 });
  const files = Object.fromEntries(paths.map((p) => [p, readFileSync(join(copy, p), 'utf8')]));
  rmSync(copy, { recursive: true, force: true });
  return { status: run.status, output: `${run.stdout}${run.stderr}`, files };
}

const MARKDOWN = '# Title\n\n* one\n* two\n\nSome *emphasis* and a [link]( https://example.com ).\n';
const CSS = 'a{color:red;background:blue}\n';

function sources(): Record<string, string> {
  return { ...realSources(), 'docs/readme.md': MARKDOWN, 'styles/a.css': CSS };
}

async function agrees(root: string, files: Record<string, string>): Promise<void> {
  const paths = Object.keys(files);
  const expected = cli(root, paths);
  assert.equal(expected.status, 0, expected.output);
  const got = await formatbox(root, paths);
  let changed = 0;
  for (const path of paths) {
    const receipt = got[path]!;
    assert.ok(['formatted', 'unchanged'].includes(receipt.status), `${path}: ${receipt.status} ${receipt.reason ?? ''}`);
    assert.equal(receipt.content, expected.files[path], `${path} (${receipt.status})`);
    if (expected.files[path] !== files[path]) changed++;
  }
  assert.ok(changed >= 3, `the CLI changed ${changed} files: the case proves too little`);
}

const APP = { name: 'app', version: '1.0.0', private: true };

test('a real shared config, @shopify/prettier-config 1.1.4 ("main": "index.json"), named in package.json and in .prettierrc', async (t) => {
  const tarball = packed('@shopify/prettier-config', '1.1.4');
  if (!tarball) return t.skip('npm could not fetch @shopify/prettier-config@1.1.4 (not in CI)');
  const files = sources();
  const configs: Array<Record<string, string>> = [{ 'package.json': JSON.stringify({ ...APP, prettier: '@shopify/prettier-config' }) }, { 'package.json': JSON.stringify(APP), '.prettierrc': '"@shopify/prettier-config"\n' }];
  for (const config of configs) {
    const { root } = project({ ...config, ...files }, 'formatbox-prettier-shared-');
    unpack(tarball, join(root, 'node_modules/@shopify/prettier-config'));
    await agrees(root, files);
  }
});

const SHARED = JSON.stringify({ semi: false, singleQuote: true, tabWidth: 4, printWidth: 60, overrides: [{ files: '*.md', options: { proseWrap: 'always', printWidth: 30 } }] });

/** A small shared-config package of our own. */
function fixturePackage(root: string, name: string, manifest: Record<string, unknown>, files: Record<string, string>): void {
  writeFiles(join(root, 'node_modules', name), { 'package.json': JSON.stringify({ name, version: '1.0.0', ...manifest }), ...files });
}

const EXACT: Array<{ name: string; config: Record<string, string>; setUp: (root: string) => void }> = [
  {
    name: 'exports with conditions: require is taken, import is not',
    config: { '.prettierrc': '"@acme/prettier-config"' },
    setUp: (root) => fixturePackage(root, '@acme/prettier-config', { exports: { '.': { import: './index.mjs', require: './config.json' } } }, { 'config.json': SHARED, 'index.mjs': 'export default {}\n' }),
  },
  {
    name: 'a subpath through an exports pattern',
    config: { 'package.json': JSON.stringify({ ...APP, prettier: '@acme/prettier-config/presets/wide' }) },
    setUp: (root) => fixturePackage(root, '@acme/prettier-config', { exports: { './presets/*': './presets/*.json' } }, { 'presets/wide.json': SHARED }),
  },
  {
    name: 'no exports and no main: index.json',
    config: { '.prettierrc.json': '"acme-prettier"' },
    setUp: (root) => fixturePackage(root, 'acme-prettier', {}, { 'index.json': SHARED }),
  },
  {
    name: 'a path relative to the config file, without its extension',
    config: { '.prettierrc': '"./config/prettier"' },
    setUp: (root) => writeFiles(root, { 'config/prettier.json': SHARED }),
  },
];

for (const c of EXACT) {
  test(`Prettier string config read as data agrees with the CLI: ${c.name}`, async () => {
    const files = sources();
    const { root } = project({ 'package.json': JSON.stringify(APP), ...c.config, ...files }, 'formatbox-prettier-shared-');
    c.setUp(root);
    await agrees(root, files);
  });
}

const JS = 'const a = {b:1}\n';

const REFUSE: Array<{ name: string; setUp: (root: string, base: string) => void; reason: RegExp; cliFails?: boolean; prettierrc?: string }> = [
  {
    name: 'not installed (the CLI fails too)',
    setUp: () => {},
    reason: /"prettier": "@acme\/prettier-config" names a shared config formatbox does not read: Cannot find module "@acme\/prettier-config": it is not installed in the node_modules of the project \(run the package manager install/,
    cliFails: true,
  },
  {
    name: 'a JS shared config (code)',
    setUp: (root) => fixturePackage(root, '@acme/prettier-config', { main: 'index.js' }, { 'index.js': 'module.exports = { semi: false }\n' }),
    reason: /"prettier": "@acme\/prettier-config" names a module \(code\): require resolves it to node_modules\/@acme\/prettier-config\/index\.js, which Prettier would run; untrusted mode never runs repository code/,
  },
  {
    name: 'a YAML file, which require would run as JavaScript',
    prettierrc: '"./shared.yaml"',
    setUp: (root) => writeFileSync(join(root, 'shared.yaml'), 'semi: false\n'),
    reason: /"\.\/shared\.yaml" names a module \(code\): require resolves it to shared\.yaml/,
  },
  {
    name: 'a symlink in node_modules that leaves the root',
    setUp: (root, base) => {
      writeFiles(join(base, 'linked'), { 'package.json': JSON.stringify({ name: '@acme/prettier-config', main: 'config.json' }), 'config.json': SHARED });
      mkdirSync(join(root, 'node_modules/@acme'), { recursive: true });
      symlinkSync(join(base, 'linked'), join(root, 'node_modules/@acme/prettier-config'));
    },
    reason: /node_modules\/@acme\/prettier-config\/package\.json was not read \(.*symlink out of the project root\)/,
    cliFails: false,
  },
  {
    name: '".." in an exports target (Node refuses it too)',
    setUp: (root) => {
      fixturePackage(root, '@acme/prettier-config', { exports: './../../shared.json' }, {});
      writeFileSync(join(root, 'shared.json'), SHARED);
    },
    reason: /the exports target "\.\/\.\.\/\.\.\/shared\.json" is not a plain path inside the package \(Node: invalid package target\)/,
    cliFails: true,
  },
  {
    name: 'a condition whose meaning depends on the Node version',
    setUp: (root) => fixturePackage(root, '@acme/prettier-config', { exports: { 'module-sync': './a.json', default: './b.json' } }, { 'a.json': SHARED, 'b.json': '{}' }),
    reason: /the condition "module-sync" .*depends on the Node version; not followed/,
  },
  {
    name: 'a path out of the project root',
    prettierrc: '"../outside.json"',
    setUp: (_root, base) => writeFileSync(join(base, 'outside.json'), SHARED),
    reason: /"\.\.\/outside\.json" names a shared config formatbox does not read: a path outside the project root/,
  },
];

for (const c of REFUSE) {
  test(`Prettier string config is refused with its reason: ${c.name}`, async () => {
    const config: Record<string, string> = c.prettierrc ? { 'package.json': JSON.stringify(APP), '.prettierrc': c.prettierrc } : { 'package.json': JSON.stringify({ ...APP, prettier: '@acme/prettier-config' }) };
    const { root, base } = project({ ...config, 'a.js': JS }, 'formatbox-prettier-shared-refuse-');
    c.setUp(root, base);
    if (c.cliFails !== undefined) {
      const expected = cli(root, ['a.js']);
      assert.equal(expected.status !== 0, c.cliFails, expected.output);
    }
    await assertRefused(root, 'a.js', JS, c.reason, ['refused', 'failed']);
  });
}
