// Per-package pins in a monorepo: a file gets the pin of the nearest directory on the way up to the
// root that gives one (a package.json listing the formatter or its own install; a nested Ruff config's
// required-version), else the root's. A real npm workspace lockfile written by npm from the registry,
// and small fixtures for the lockfile shapes of tools not installed here (pnpm, yarn).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_PIN_PACKAGE_DIRS, projectPins, type VersionPin } from '../../src/config/pins.js';
import { readPinFiles } from '../../src/node/pin-files.js';
import { nativeBiomeCandidates } from '../../src/node/project/native-biome-pass.js';

const repo = new URL('../../', import.meta.url);
const shipped = JSON.parse(readFileSync(new URL('node_modules/prettier/package.json', repo), 'utf8')).version as string;
const pinOf = (pins: readonly VersionPin[], formatter: string): VersionPin | undefined => pins.find((p) => p.formatter === formatter);
const manifest = (deps: Record<string, string>, extra: object = {}): string => JSON.stringify({ name: 'p', version: '1.0.0', ...extra, devDependencies: deps });
const installed = (name: string, version: string): string => JSON.stringify({ name, version });

test('npm workspaces: the lockfile npm writes from the registry pins each package its own Prettier, and the root its own', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pins-ws-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'root', version: '1.0.0', private: true, workspaces: ['packages/*'], devDependencies: { prettier: shipped } }));
  for (const [name, prettier] of [['legacy', '2.8.8'], ['modern', undefined]] as const) {
    mkdirSync(join(dir, 'packages', name), { recursive: true });
    writeFileSync(join(dir, 'packages', name, 'package.json'), JSON.stringify({ name, version: '1.0.0', ...(prettier ? { devDependencies: { prettier } } : {}) }));
  }
  try {
    execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'pipe', timeout: 120_000 });
  } catch (error) {
    if (process.env.CI) throw error;
    t.skip(`npm could not reach the registry here: ${(error as Error).message.split('\n')[0]}`);
    return;
  }
  const lock = readFileSync(join(dir, 'package-lock.json'), 'utf8');
  const files = {
    'package.json': readFileSync(join(dir, 'package.json'), 'utf8'),
    'package-lock.json': lock,
    'packages/legacy/package.json': readFileSync(join(dir, 'packages/legacy/package.json'), 'utf8'),
    'packages/modern/package.json': readFileSync(join(dir, 'packages/modern/package.json'), 'utf8'),
  };
  assert.ok(JSON.parse(lock).packages['packages/legacy/node_modules/prettier'], 'npm nests the package’s own Prettier');
  const pins = projectPins(files);
  assert.deepEqual(pinOf(pins.forPath('packages/legacy/src/a.ts'), 'prettier'), { formatter: 'prettier', spec: '2.8.8', exact: true, source: 'package-lock.json packages/legacy/node_modules/prettier' });
  assert.equal(pinOf(pins.forPath('packages/modern/src/a.ts'), 'prettier')?.spec, shipped, 'a package that lists no Prettier gets the root’s');
  assert.equal(pinOf(pins.forPath('src/a.ts'), 'prettier')?.spec, shipped);
  assert.deepEqual(pins.nested(10).map(({ dir, pin }) => [dir, pin.formatter, pin.spec]), [['packages/legacy', 'prettier', '2.8.8']]);
});

test('the nearest wins: a package’s own install, then Node’s resolution upward, then its lockfile entry, then its package.json', () => {
  const files = {
    'package.json': manifest({ prettier: '^3.0.0' }),
    'node_modules/prettier/package.json': installed('prettier', shipped),
    // Its own install, whatever its package.json says (that is what runs).
    'a/package.json': manifest({ prettier: '2.8.8' }),
    'a/node_modules/prettier/package.json': installed('prettier', '2.8.7'),
    // Deeper still, nearer to its files.
    'a/b/package.json': manifest({ prettier: '3.3.3' }),
    'a/b/node_modules/prettier/package.json': installed('prettier', '3.3.3'),
    // A range the root's install meets: Node resolves the root's copy.
    'c/package.json': manifest({ prettier: '^3.1.0' }),
    // An exact version the root's install does not meet, not installed: package.json says it.
    'd/package.json': manifest({ prettier: '3.0.0' }),
    // A copy whose name is not prettier is not believed.
    'e/package.json': manifest({}),
    'e/node_modules/prettier/package.json': installed('not-prettier', '1.0.0'),
    // Inside node_modules: never a package of the project.
    'node_modules/x/package.json': manifest({ prettier: '1.19.1' }),
  };
  const pins = projectPins(files);
  const spec = (path: string): string | undefined => pinOf(pins.forPath(path), 'prettier')?.spec;
  const source = (path: string): string | undefined => pinOf(pins.forPath(path), 'prettier')?.source;
  assert.equal(spec('a/x.ts'), '2.8.7');
  assert.equal(source('a/x.ts'), 'a/node_modules/prettier/package.json');
  assert.equal(spec('a/b/c/x.ts'), '3.3.3');
  assert.equal(spec('c/x.ts'), shipped);
  assert.equal(source('c/x.ts'), 'node_modules/prettier/package.json');
  assert.equal(spec('d/x.ts'), '3.0.0');
  assert.equal(source('d/x.ts'), 'd/package.json');
  assert.equal(spec('e/x.ts'), shipped);
  assert.equal(spec('node_modules/x/y.ts'), shipped);
  assert.equal(spec('x.ts'), shipped);
  // A range alone (nothing installed, no lockfile) that the pin above does not meet.
  const ranged = projectPins({ 'package.json': manifest({ prettier: '3.3.3' }), 'p/package.json': manifest({ prettier: '^2.8.0' }) });
  assert.deepEqual(pinOf(ranged.forPath('p/x.ts'), 'prettier'), { formatter: 'prettier', spec: '^2.8.0', exact: false, source: 'p/package.json' });
  // …and one it meets keeps the pin above: that is the version that runs there.
  assert.equal(pinOf(projectPins({ 'package.json': manifest({ prettier: '3.3.3' }), 'p/package.json': manifest({ prettier: '^3.1.0' }) }).forPath('p/x.ts'), 'prettier')?.spec, '3.3.3');
});

test('pnpm importers and yarn.lock entries give each workspace its own version', () => {
  const pnpm = [
    "lockfileVersion: '9.0'",
    '',
    'importers:',
    '',
    '  .:',
    '    devDependencies:',
    '      prettier:',
    '        specifier: 3.3.3',
    '        version: 3.3.3',
    '',
    '  packages/legacy:',
    '    devDependencies:',
    '      prettier:',
    '        specifier: ^2.8.0',
    '        version: 2.8.8',
    '',
    "  'packages/quoted':",
    '    dependencies:',
    '      prettier:',
    '        specifier: 3.0.3',
    '        version: 3.0.3',
    '',
    'packages:',
    '',
    '  prettier@2.8.8:',
    '    resolution: {integrity: sha512-x}',
    '',
  ].join('\n');
  const workspace = { 'package.json': manifest({ prettier: '3.3.3' }), 'packages/legacy/package.json': manifest({ prettier: '^2.8.0' }), 'packages/quoted/package.json': manifest({ prettier: '3.0.3' }), 'packages/other/package.json': manifest({}) };
  const withPnpm = projectPins({ ...workspace, 'pnpm-lock.yaml': pnpm });
  assert.deepEqual(pinOf(withPnpm.forPath('packages/legacy/src/a.ts'), 'prettier'), { formatter: 'prettier', spec: '2.8.8', exact: true, source: 'pnpm-lock.yaml importers["packages/legacy"]' });
  assert.equal(pinOf(withPnpm.forPath('packages/quoted/a.ts'), 'prettier')?.spec, '3.0.3');
  assert.equal(pinOf(withPnpm.forPath('packages/other/a.ts'), 'prettier')?.spec, '3.3.3');
  assert.equal(pinOf(withPnpm.forPath('a.ts'), 'prettier')?.spec, '3.3.3');

  const yarn = ['# yarn lockfile v1', '', 'prettier@3.3.3:', '  version "3.3.3"', '', 'prettier@^2.8.0:', '  version "2.8.8"', ''].join('\n');
  const withYarn = projectPins({ ...workspace, 'yarn.lock': yarn });
  assert.deepEqual(pinOf(withYarn.forPath('packages/legacy/a.ts'), 'prettier'), { formatter: 'prettier', spec: '2.8.8', exact: true, source: 'yarn.lock' });
  // No entry names its range: not another package's entry, but its own package.json.
  assert.deepEqual(pinOf(withYarn.forPath('packages/quoted/a.ts'), 'prettier'), { formatter: 'prettier', spec: '3.0.3', exact: true, source: 'packages/quoted/package.json' });
});

test('Biome: a nested config alone pins nothing (the root’s binary runs); a package listing its own @biomejs/biome does', () => {
  const files = {
    'package.json': manifest({ '@biomejs/biome': '2.4.15' }),
    'biome.json': '{ "$schema": "https://biomejs.dev/schemas/2.4.15/schema.json" }',
    'packages/a/package.json': manifest({}),
    'packages/a/biome.json': '{ "$schema": "https://biomejs.dev/schemas/2.5.14/schema.json", "root": false, "extends": "//" }',
    'packages/b/package.json': manifest({ '@biomejs/biome': '2.5.14' }),
  };
  const pins = projectPins(files);
  assert.equal(pinOf(pins.forPath('packages/a/x.ts'), 'biome')?.spec, '2.4.15');
  assert.deepEqual(pinOf(pins.forPath('packages/b/x.ts'), 'biome'), { formatter: 'biome', spec: '2.5.14', exact: true, source: 'packages/b/package.json' });
});

test('Ruff: the nearest Ruff config’s required-version pins its files; a pyproject.toml without [tool.ruff] is not one', () => {
  const files = {
    'uv.lock': '[[package]]\nname = "ruff"\nversion = "0.6.9"\n',
    'svc/pyproject.toml': '[tool.ruff]\nrequired-version = "==0.8.0"\n',
    'svc/inner/pyproject.toml': '[project]\nname = "inner"\n',
    'lib/ruff.toml': 'required-version = ">=0.6"\n',
    'other/ruff.toml': 'line-length = 100\n',
  };
  const pins = projectPins(files);
  assert.equal(pinOf(pins.root, 'ruff')?.spec, '0.6.9');
  // The lock decides which Ruff runs; a nested requirement it does not meet is what Ruff exits on.
  const refused = pinOf(pins.forPath('svc/inner/x.py'), 'ruff');
  assert.equal(refused?.spec, '0.6.9');
  assert.equal(refused?.refusal, 'svc/pyproject.toml required-version is 0.8.0, and the project pins 0.6.9 (uv.lock): ruff refuses to run on these files');
  // A range the root's lock meets: the locked Ruff is what runs there.
  assert.deepEqual(pinOf(pins.forPath('lib/x.py'), 'ruff'), { formatter: 'ruff', spec: '0.6.9', exact: true, source: 'uv.lock' });
  assert.equal(pinOf(pins.forPath('other/x.py'), 'ruff')?.source, 'uv.lock');
  // Nothing locks Ruff (the root's own required-version does not reach a nested config's files): the nested requirement is the pin.
  for (const root of [{}, { 'ruff.toml': 'required-version = "==0.6.9"\n' }]) {
    const unlocked = projectPins({ ...root, 'svc/pyproject.toml': files['svc/pyproject.toml'] });
    assert.deepEqual(pinOf(unlocked.forPath('svc/x.py'), 'ruff'), { formatter: 'ruff', spec: '0.8.0', exact: true, source: 'svc/pyproject.toml required-version' });
  }
});

test('bounded: 100,000 package.json files cost only the directories asked for, and at most MAX_PIN_PACKAGE_DIRS are read', () => {
  const files: Record<string, string> = { 'package.json': manifest({ prettier: '3.3.3' }) };
  for (let i = 0; i < 100_000; i++) files[`p/${String(i).padStart(6, '0')}/package.json`] = manifest({ prettier: '2.8.8' });
  const pins = projectPins(files);
  assert.equal(pins.unreadDirs, 100_000 - MAX_PIN_PACKAGE_DIRS);
  assert.equal(pinOf(pins.forPath('p/000001/x.ts'), 'prettier')?.spec, '2.8.8');
  // Beyond the bound, the pin above applies (doctor names the directories left unread: see below).
  assert.equal(pinOf(pins.forPath('p/099999/x.ts'), 'prettier')?.spec, '3.3.3');
  assert.equal(pins.nested(100).length, 100);
});

test('readPinFiles reads each package’s installed formatters, at most MAX_PIN_PACKAGE_DIRS packages, and says so beyond', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'pins-read-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const discovered: Record<string, string> = {};
  const count = MAX_PIN_PACKAGE_DIRS + 20;
  for (let i = 0; i < count; i++) {
    const dir = `packages/p${String(i).padStart(4, '0')}`;
    mkdirSync(join(root, dir), { recursive: true });
    discovered[`${dir}/package.json`] = manifest({});
  }
  mkdirSync(join(root, 'packages/p0001/node_modules/prettier'), { recursive: true });
  writeFileSync(join(root, 'packages/p0001/node_modules/prettier/package.json'), installed('prettier', '2.8.8'));
  // An install outside the root, linked in: not read.
  const outside = mkdtempSync(join(tmpdir(), 'pins-outside-'));
  t.after(() => rmSync(outside, { recursive: true, force: true }));
  writeFileSync(join(outside, 'package.json'), installed('prettier', '1.0.0'));
  mkdirSync(join(root, 'packages/p0002/node_modules/prettier'), { recursive: true });
  execFileSync('ln', ['-s', join(outside, 'package.json'), join(root, 'packages/p0002/node_modules/prettier/package.json')]);
  const read = readPinFiles(root, discovered);
  assert.equal(read.files['packages/p0001/node_modules/prettier/package.json'], installed('prettier', '2.8.8'));
  assert.equal(read.files['packages/p0002/node_modules/prettier/package.json'], undefined);
  assert.ok(read.ignored.some((item) => item.file === 'packages/p0002/node_modules/prettier/package.json' && /leaves the project root/.test(item.reason)));
  assert.ok(read.ignored.some((item) => item.item === 'package versions' && item.reason.includes(`${count} package directories`)), JSON.stringify(read.ignored));
  assert.ok(read.nestedCandidates.length <= MAX_PIN_PACKAGE_DIRS * 2);
  assert.ok(!read.nestedCandidates.some((file) => file.startsWith(`packages/p${MAX_PIN_PACKAGE_DIRS + 5}`)));
});

test('project-wide: native Biome is handed only the files whose pin allows its version', () => {
  const biome = JSON.parse(readFileSync(new URL('node_modules/@biomejs/biome/package.json', repo), 'utf8')).version as string;
  const projectFiles = {
    'biome.json': '{}\n',
    'package.json': manifest({ '@biomejs/biome': biome }),
    'packages/old/package.json': manifest({ '@biomejs/biome': '2.5.14' }),
    'packages/same/package.json': manifest({ '@biomejs/biome': `^${biome}` }),
  };
  const files = ['src/a.ts', 'packages/old/src/a.ts', 'packages/same/src/a.ts'];
  assert.deepEqual(nativeBiomeCandidates(files, { projectFiles, trust: 'untrusted' }), ['src/a.ts', 'packages/same/src/a.ts']);
  // Its own install decides over its package.json.
  const pinFiles = { 'packages/same/node_modules/@biomejs/biome/package.json': installed('@biomejs/biome', '2.5.14') };
  assert.deepEqual(nativeBiomeCandidates(files, { projectFiles, pinFiles, trust: 'untrusted' }), ['src/a.ts']);
});
