// The version each project pins, read as data: real lockfiles written by npm from the registry, the
// real installed package.json files of this repository, and small fixtures for the lockfile shapes
// of tools not installed here (pnpm, yarn, bun, uv, poetry).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectPins, pinAllows, type VersionPin } from '../../src/config/pins.js';

const repo = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, repo), 'utf8');
const pinOf = (pins: VersionPin[], formatter: string): VersionPin | undefined => pins.find((p) => p.formatter === formatter);

test('the installed package.json wins: this repository pins the Prettier and Biome it has installed', () => {
  const files = {
    'package.json': read('package.json'),
    'package-lock.json': read('package-lock.json'),
    'node_modules/prettier/package.json': read('node_modules/prettier/package.json'),
    'node_modules/@biomejs/biome/package.json': read('node_modules/@biomejs/biome/package.json'),
  };
  const pins = detectPins(files);
  const installedPrettier = JSON.parse(files['node_modules/prettier/package.json']).version;
  const installedBiome = JSON.parse(files['node_modules/@biomejs/biome/package.json']).version;
  assert.deepEqual(pinOf(pins, 'prettier'), { formatter: 'prettier', spec: installedPrettier, exact: true, source: 'node_modules/prettier/package.json' });
  assert.deepEqual(pinOf(pins, 'biome'), { formatter: 'biome', spec: installedBiome, exact: true, source: 'node_modules/@biomejs/biome/package.json' });
  // Without node_modules, the lockfile npm wrote says the same.
  const locked = detectPins({ 'package.json': files['package.json'], 'package-lock.json': files['package-lock.json'] });
  assert.equal(pinOf(locked, 'prettier')?.spec, installedPrettier);
  assert.equal(pinOf(locked, 'prettier')?.source, 'package-lock.json');
  assert.equal(pinOf(locked, 'biome')?.spec, installedBiome);
});

test('a lockfile npm writes from the registry for prettier ^3.3.0 pins what npm chose, not the range', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pins-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', devDependencies: { prettier: '~3.3.0', '@biomejs/biome': '2.5.1' } }));
  try {
    execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'pipe', timeout: 120_000 });
  } catch (error) {
    if (process.env.CI) throw error;
    t.skip(`the npm registry is not reachable here: ${(error as Error).message.split('\n')[0]}`);
    return;
  }
  const lock = readFileSync(join(dir, 'package-lock.json'), 'utf8');
  const npmChose = JSON.parse(lock).packages['node_modules/prettier'].version as string;
  assert.match(npmChose, /^3\.3\.\d+$/);
  const pins = detectPins({ 'package.json': readFileSync(join(dir, 'package.json'), 'utf8'), 'package-lock.json': lock });
  assert.deepEqual(pinOf(pins, 'prettier'), { formatter: 'prettier', spec: npmChose, exact: true, source: 'package-lock.json' });
  assert.deepEqual(pinOf(pins, 'biome'), { formatter: 'biome', spec: '2.5.1', exact: true, source: 'package-lock.json' });
});

test('pnpm, yarn (classic and berry) and bun lockfiles', () => {
  const manifest = JSON.stringify({ devDependencies: { prettier: '^3.3.0', '@biomejs/biome': '^2.5.0' } });
  const pnpm = [
    "lockfileVersion: '9.0'",
    'importers:',
    '  .:',
    '    devDependencies:',
    "      '@biomejs/biome':",
    '        specifier: ^2.5.0',
    '        version: 2.5.14',
    '      prettier:',
    '        specifier: ^3.3.0',
    '        version: 3.3.3(typescript@5.9.3)',
    'packages:',
    '  prettier@3.3.3:',
    "    resolution: {integrity: sha512-x}",
  ].join('\n');
  let pins = detectPins({ 'package.json': manifest, 'pnpm-lock.yaml': pnpm });
  assert.equal(pinOf(pins, 'prettier')?.spec, '3.3.3');
  assert.equal(pinOf(pins, 'biome')?.spec, '2.5.14');
  assert.equal(pinOf(pins, 'biome')?.source, 'pnpm-lock.yaml');

  const classic = ['# yarn lockfile v1', '', 'prettier@^2.0.0:', '  version "2.8.8"', '', '"prettier@^3.3.0", prettier@^3.3.2:', '  version "3.3.3"', '  resolved "https://registry.yarnpkg.com/prettier/-/prettier-3.3.3.tgz"', ''].join('\n');
  pins = detectPins({ 'package.json': manifest, 'yarn.lock': classic });
  assert.equal(pinOf(pins, 'prettier')?.spec, '3.3.3', 'the entry of the root range, not the first one');
  const berry = ['__metadata:', '  version: 8', '', '"@biomejs/biome@npm:^2.5.0":', '  version: 2.5.3', '  resolution: "@biomejs/biome@npm:2.5.3"', ''].join('\n');
  pins = detectPins({ 'package.json': manifest, 'yarn.lock': berry });
  assert.equal(pinOf(pins, 'biome')?.spec, '2.5.3');

  const bun = '{\n  "lockfileVersion": 1,\n  "packages": {\n    "prettier": ["prettier@3.6.2", "", { "bin": {} }, "sha512-x"],\n  },\n}\n';
  pins = detectPins({ 'package.json': manifest, 'bun.lock': bun });
  assert.deepEqual(pinOf(pins, 'prettier'), { formatter: 'prettier', spec: '3.6.2', exact: true, source: 'bun.lock' });
});

test('without a lockfile: an exact package.json version, Biome\'s $schema, then the range; a .prettierrc alone is any Prettier 3', () => {
  let pins = detectPins({ 'package.json': JSON.stringify({ devDependencies: { '@biomejs/biome': '2.6.8' } }), 'biome.json': '{"$schema": "https://biomejs.dev/schemas/2.5.0/schema.json"}' });
  assert.deepEqual(pinOf(pins, 'biome'), { formatter: 'biome', spec: '2.6.8', exact: true, source: 'package.json' });
  pins = detectPins({ 'package.json': JSON.stringify({ devDependencies: { '@biomejs/biome': '^2.4.0' } }), 'biome.json': '{"$schema": "https://biomejs.dev/schemas/2.6.8/schema.json"}' });
  assert.deepEqual(pinOf(pins, 'biome'), { formatter: 'biome', spec: '2.6.8', exact: true, source: 'biome.json $schema' });
  pins = detectPins({ 'package.json': JSON.stringify({ devDependencies: { prettier: '^3.3.0' } }) });
  assert.deepEqual(pinOf(pins, 'prettier'), { formatter: 'prettier', spec: '^3.3.0', exact: false, source: 'package.json' });
  pins = detectPins({ '.prettierrc': '{}' });
  assert.deepEqual(pinOf(pins, 'prettier'), { formatter: 'prettier', spec: '3', exact: false, source: '.prettierrc', implied: true });
  // A dependency that is not a version (a git URL, a tag) pins nothing; the config's presence still says Prettier 3.
  pins = detectPins({ 'package.json': JSON.stringify({ devDependencies: { prettier: 'github:prettier/prettier' } }), '.prettierrc.json': '{}' });
  assert.equal(pinOf(pins, 'prettier')?.spec, '3');
  // A range with a line break in it (semver accepts one around `||`) would reach the receipt's line: not a pin.
  pins = detectPins({ 'package.json': JSON.stringify({ devDependencies: { prettier: '^3.0.0\n||\n^4.0.0' } }), '.prettierrc': '{}' });
  assert.equal(pinOf(pins, 'prettier')?.spec, '3');
  assert.equal(pinOf(detectPins({ 'ruff.toml': 'required-version = ">=0.5,\n<0.7"\n' }), 'ruff'), undefined);
  // A node_modules package.json of another package under that name is not believed.
  pins = detectPins({ 'node_modules/prettier/package.json': JSON.stringify({ name: 'evil', version: '9.9.9' }), '.prettierrc': '{}' });
  assert.equal(pinOf(pins, 'prettier')?.spec, '3');
});

test('pinAllows: exact pins, npm ranges and PEP 440 specifiers', () => {
  const pin = (formatter: VersionPin['formatter'], spec: string, exact: boolean): VersionPin => ({ formatter, spec, exact, source: 'x' });
  assert.equal(pinAllows(pin('prettier', '3.3.3', true), '3.3.3'), true);
  assert.equal(pinAllows(pin('prettier', '3.3.3', true), '3.10.1'), false);
  assert.equal(pinAllows(pin('prettier', '3', false), '3.10.1'), true);
  assert.equal(pinAllows(pin('prettier', '^3.3.0', false), '3.10.1'), true);
  assert.equal(pinAllows(pin('prettier', '~3.3.0', false), '3.10.1'), false);
  assert.equal(pinAllows(pin('biome', '2.6.8', true), 'unknown'), false);
  assert.equal(pinAllows(pin('ruff', '>=0.6,<0.17', false), '0.16.9'), true);
  assert.equal(pinAllows(pin('ruff', '>=0.6,<0.16', false), '0.16.9'), false);
  assert.equal(pinAllows(pin('ruff', '~=0.16.0', false), '0.16.9'), true);
  assert.equal(pinAllows(pin('ruff', '0.6.9', true), '0.16.9'), false);
});

test('Ruff: uv.lock, poetry.lock, requirements, the ruff-pre-commit rev, then required-version', () => {
  const uv = 'version = 1\n\n[[package]]\nname = "black"\nversion = "24.1.0"\n\n[[package]]\nname = "ruff"\nversion = "0.6.9"\nsource = { registry = "https://pypi.org/simple" }\n';
  assert.deepEqual(pinOf(detectPins({ 'uv.lock': uv, 'ruff.toml': 'required-version = ">=0.5"' }), 'ruff'), { formatter: 'ruff', spec: '0.6.9', exact: true, source: 'uv.lock' });
  assert.equal(pinOf(detectPins({ 'poetry.lock': '[[package]]\nname = "ruff"\nversion = "0.5.7"\n' }), 'ruff')?.spec, '0.5.7');
  assert.equal(pinOf(detectPins({ 'requirements-dev.txt': 'pytest>=8\nruff==0.8.1  # linter\n' }), 'ruff')?.spec, '0.8.1');
  const preCommit = ['repos:', '  - repo: https://github.com/pre-commit/pre-commit-hooks', '    rev: v4.6.0', '  - repo: https://github.com/astral-sh/ruff-pre-commit', '    # Ruff version.', '    rev: v0.14.2', '    hooks:', '      - id: ruff-format', ''].join('\n');
  assert.deepEqual(pinOf(detectPins({ '.pre-commit-config.yaml': preCommit }), 'ruff'), { formatter: 'ruff', spec: '0.14.2', exact: true, source: '.pre-commit-config.yaml ruff-pre-commit rev' });
  assert.deepEqual(pinOf(detectPins({ 'pyproject.toml': '[tool.ruff]\nrequired-version = "==0.15.0"\n' }), 'ruff'), { formatter: 'ruff', spec: '0.15.0', exact: true, source: 'pyproject.toml required-version' });
  assert.deepEqual(pinOf(detectPins({ 'ruff.toml': 'required-version = ">=0.15"\n' }), 'ruff'), { formatter: 'ruff', spec: '>=0.15', exact: false, source: 'ruff.toml required-version' });
});

test('gofmt: the toolchain line, else the go line, shown as information', () => {
  assert.deepEqual(pinOf(detectPins({ 'go.mod': 'module x\n\ngo 1.21\n' }), 'gofmt'), { formatter: 'gofmt', spec: '1.21', exact: false, source: 'go.mod go line', informational: true });
  assert.equal(pinOf(detectPins({ 'go.mod': 'module x\n\ngo 1.21\n\ntoolchain go1.22.3\n' }), 'gofmt')?.spec, '1.22.3');
});

test('dprint: each shipped plugin is pinned by its URL version or the installed package its path names; other plugins pin nothing', () => {
  const installedJson = JSON.parse(read('node_modules/@dprint/json/package.json')).version as string;
  const pins = detectPins({
    'dprint.jsonc': JSON.stringify({
      plugins: [
        'https://plugins.dprint.dev/markdown-0.17.8.wasm',
        `https://plugins.dprint.dev/toml-0.6.2.wasm@${'a'.repeat(64)}`,
        './node_modules/@dprint/json/plugin.wasm',
        'https://plugins.dprint.dev/typescript-0.93.0.wasm',
        'https://example.com/markdown-9.9.9.wasm',
      ],
    }),
    'node_modules/@dprint/json/package.json': read('node_modules/@dprint/json/package.json'),
  });
  assert.deepEqual(pins.filter((p) => p.formatter.startsWith('dprint-plugin-')), [
    { formatter: 'dprint-plugin-markdown', spec: '0.17.8', exact: true, source: 'dprint.jsonc plugins' },
    { formatter: 'dprint-plugin-toml', spec: '0.6.2', exact: true, source: 'dprint.jsonc plugins', sha256: 'a'.repeat(64) },
    { formatter: 'dprint-plugin-json', spec: installedJson, exact: true, source: 'node_modules/@dprint/json/package.json' },
  ]);
  assert.equal(pinAllows(pins[0]!, '0.17.8'), true);
  assert.equal(pinAllows(pins[0]!, '0.28.1'), false);
  // A nested dprint.json is not the root's pin.
  assert.deepEqual(detectPins({ 'pkg/dprint.json': '{"plugins":["https://plugins.dprint.dev/json-0.19.4.wasm"]}' }), []);
});
