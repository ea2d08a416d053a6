// Shared configs named by package, on the pure functions (the universal entry's path): project files
// under node_modules are read only as what a config names, never as configs of their own, and the
// resolution is the one the node discovery used to read them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadProjectConfig, normaliseUserConfig, selectFormatter } from '../../src/config/index.js';
import type { Selection } from '../../src/config/index.js';
import type { ProjectFiles } from '../../src/core/types.js';
import { resolveRequire } from '../../src/config/require-resolve.js';
import { resolveBiomePackageExtends } from '../../src/formatters/biome/resolve.js';

function select(files: ProjectFiles, path: string): Selection {
  return selectFormatter(loadProjectConfig(files), normaliseUserConfig({}), path);
}

const errorOf = (result: { error: string } | object): string => ('error' in result ? (result as { error: string }).error : JSON.stringify(result));
const lookupIn = (files: ProjectFiles) => (path: string) => (Object.hasOwn(files, path) ? files[path] : undefined);

test('a Biome shared config in node_modules is merged under the project config; its own biome.json is no nested config', () => {
  const files: ProjectFiles = {
    'package.json': '{ "name": "app" }',
    'biome.json': JSON.stringify({ extends: ['@acme/biome-config'], formatter: { lineWidth: 90 } }),
    'node_modules/@acme/biome-config/package.json': JSON.stringify({ name: '@acme/biome-config', exports: { '.': { biome: './biome.json' } } }),
    'node_modules/@acme/biome-config/biome.json': JSON.stringify({ root: true, formatter: { indentStyle: 'space', indentWidth: 3 }, plugins: ['./rule.grit'] }),
  };
  const selection = select(files, 'src/a.ts');
  assert.equal(selection.kind, 'format', JSON.stringify(selection));
  if (selection.kind !== 'format') return;
  assert.deepEqual(selection.settings, { formatter: { indentStyle: 'space', indentWidth: 3, lineWidth: 90 } });
  assert.deepEqual(selection.configSources?.map((s) => [s.file, s.package]), [['biome.json', undefined], ['node_modules/@acme/biome-config/biome.json', '@acme/biome-config']]);
  assert.match(selection.ignored.map((i) => `${i.file}: ${i.item}`).join('\n'), /node_modules\/@acme\/biome-config\/biome\.json: plugins\[0\]/);
});

test('a Prettier string config resolving to JSON gives its options; its overrides stay relative to the config file', () => {
  const files: ProjectFiles = {
    'pkg/package.json': JSON.stringify({ name: 'pkg', prettier: 'shared' }),
    'node_modules/shared/package.json': JSON.stringify({ name: 'shared', main: 'cfg' }),
    'node_modules/shared/cfg.json': JSON.stringify({ semi: false, overrides: [{ files: 'src/*.ts', options: { tabWidth: 8 } }] }),
  };
  const selection = select(files, 'pkg/src/a.ts');
  assert.equal(selection.kind, 'format', JSON.stringify(selection));
  if (selection.kind === 'format') {
    assert.deepEqual(selection.settings, { semi: false, tabWidth: 8 });
    assert.equal(selection.because, 'pkg/package.json declares Prettier (the shared config shared, read from node_modules/shared/cfg.json)');
  }
  // Prettier reads `.default` of an `__esModule` value on some Node versions only.
  const esModule = select({ ...files, 'node_modules/shared/cfg.json': JSON.stringify({ __esModule: true, default: { semi: false } }) }, 'pkg/src/a.ts');
  assert.equal(esModule.kind, 'invalid-config', JSON.stringify(esModule));
  if (esModule.kind === 'invalid-config') assert.match(esModule.error.message, /sets "__esModule".*depends on the Node version/);
});

test('require resolution: LOAD_AS_FILE before LOAD_AS_DIRECTORY, .js before .json, exports over main, node_modules skipped as a parent', () => {
  const files: ProjectFiles = {
    'node_modules/a.js': null,
    'node_modules/a/index.json': '{}',
    'node_modules/b/package.json': JSON.stringify({ main: './main.json', exports: { './x': { import: './x.mjs', node: { require: './x.json' } } } }),
    'node_modules/b/x.json': '{}',
    'node_modules/c/package.json': JSON.stringify({ main: 'lib/cfg' }),
    'node_modules/c/lib/cfg/index.json': '{}',
    'sub/node_modules/c/package.json': '{ not json',
  };
  const lookup = lookupIn(files);
  assert.deepEqual(resolveRequire('a', '', lookup), { file: 'node_modules/a.js' });
  assert.deepEqual(resolveRequire('b/x', 'deep/er', lookup), { file: 'node_modules/b/x.json' });
  assert.match(errorOf(resolveRequire('b', '', lookup)), /"\." is not exported for require/);
  assert.deepEqual(resolveRequire('c', '', lookup), { file: 'node_modules/c/lib/cfg/index.json' });
  assert.match(errorOf(resolveRequire('c', 'sub', lookup)), /sub\/node_modules\/c\/package\.json is not valid JSON/);
  // A directory named node_modules is not searched for a nested node_modules of its own.
  assert.deepEqual(resolveRequire('c', 'node_modules', lookup), { file: 'node_modules/c/lib/cfg/index.json' });
  for (const bad of ['/etc/passwd', '#internal', 'c/../../x', '@scope', 'a\\b']) assert.ok('error' in resolveRequire(bad, '', lookup), bad);
});

test('Biome resolution: a file beside the root config first, no added extension, a later node_modules when one has nothing', () => {
  const files: ProjectFiles = {
    'package.json': '{}',
    'shared': '{}',
    'node_modules/p/biome': '{}',
    'node_modules/q/package.json': JSON.stringify({ exports: { './a': null, './*': './cfg/*.json' } }),
    'node_modules/q/cfg/b.json': '{}',
  };
  const lookup = lookupIn(files);
  assert.deepEqual(resolveBiomePackageExtends('shared', '', lookup), { file: 'shared', viaPackage: false });
  assert.deepEqual(resolveBiomePackageExtends('p/biome', '', lookup), { error: 'it resolves to node_modules/p/biome, which is not a JSON or JSONC file; only data is read (a .js or .ts config is code)' });
  assert.deepEqual(resolveBiomePackageExtends('q/b', '', lookup), { file: 'node_modules/q/cfg/b.json', viaPackage: true });
  assert.match(errorOf(resolveBiomePackageExtends('q/a', '', lookup)), /cannot resolve "q\/a": no file of node_modules\/q matches it/);
  assert.match(errorOf(resolveBiomePackageExtends('r', '', lookup)), /r is not installed/);
  assert.match(errorOf(resolveBiomePackageExtends('../x.json', '', lookup)), /outside the project root/);
});
