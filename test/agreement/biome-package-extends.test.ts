/**
 * Biome `extends` naming a package, resolved from the project's node_modules as data: formatbox's
 * untrusted runtime against the native Biome 2.4.15 CLI in real project directories holding real
 * shared configs from the npm registry (exact versions) and small packages of our own for the exact
 * and hostile cases. Where formatbox formats, its bytes equal `biome format --write`'s on real
 * source files; where it refuses, the receipt names the config, the entry and the reason.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { assertRefused, cleanUp, formatbox, packed, project, realSources, unpack, writeFiles } from './shared-config-fixtures.js';
import { createRuntime } from '../../src/node/index.js';
import { packageExtendsRefusal } from '../../src/formatters/biome/adapter.js';

const BIOME = resolve('node_modules/@biomejs/cli-linux-x64/biome');
const skip = existsSync(BIOME) ? false : 'the native Biome CLI (@biomejs/cli-linux-x64) is not installed here';
after(cleanUp);

/** The native CLI on a copy of the project: exit status and the bytes of `paths` afterwards. */
function native(root: string, paths: readonly string[]): { status: number | null; output: string; files: Record<string, string> } {
  const copy = `${root}-native`;
  cpSync(root, copy, { recursive: true, verbatimSymlinks: true });
  const run = spawnSync(BIOME, ['format', '--write', '--no-errors-on-unmatched', '--colors=off', ...paths], { cwd: copy, encoding: 'utf8', timeout: 60_000 });
  const files = Object.fromEntries(paths.map((p) => [p, readFileSync(join(copy, p), 'utf8')]));
  rmSync(copy, { recursive: true, force: true });
  return { status: run.status, output: `${run.stdout}${run.stderr}`, files };
}

async function agrees(root: string, sources: Record<string, string>): Promise<void> {
  const paths = Object.keys(sources);
  const expected = native(root, paths);
  assert.equal(expected.status, 0, expected.output);
  const got = await formatbox(root, paths);
  let changed = 0;
  for (const path of paths) {
    const receipt = got[path]!;
    assert.ok(['formatted', 'unchanged', 'skipped'].includes(receipt.status), `${path}: ${receipt.status} ${receipt.reason ?? ''}`);
    assert.equal(receipt.content, expected.files[path], `${path} (${receipt.status} ${receipt.reason ?? ''})`);
    if (expected.files[path] !== sources[path]) changed++;
  }
  assert.ok(changed >= 2, `the native CLI changed ${changed} files: the case proves too little`);
}

const asTypeScript = (sources: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(sources).map(([path, text]) => [path.replace(/\.js$/, '.ts'), text]));
const PACKAGE_JSON = JSON.stringify({ name: 'app', version: '1.0.0', private: true });

test('a real shared config, @lokalise/biome-config 3.1.1 ("./configs/*" exports, .jsonc, its own extends ignored as Biome ignores it)', { skip }, async (t) => {
  const tarball = packed('@lokalise/biome-config', '3.1.1');
  if (!tarball) return t.skip('npm could not fetch @lokalise/biome-config@3.1.1 (not in CI)');
  const sources = asTypeScript(realSources());
  for (const config of ['biome-base', 'biome-package']) {
    const { root } = project({ 'package.json': PACKAGE_JSON, 'biome.json': JSON.stringify({ extends: [`@lokalise/biome-config/configs/${config}.jsonc`] }), ...sources }, 'formatbox-biome-pkg-');
    unpack(tarball, join(root, 'node_modules/@lokalise/biome-config'));
    await agrees(root, sources);
  }
});

test('a real shared config, @angablue/biome-config 1.1.1 (exports "."), under the project\'s own settings, also laid out as pnpm does (hard links from its store, an in-root symlink)', { skip }, async (t) => {
  const tarball = packed('@angablue/biome-config', '1.1.1');
  if (!tarball) return t.skip('npm could not fetch @angablue/biome-config@1.1.1 (not in CI)');
  const sources = realSources();
  const files = { 'package.json': PACKAGE_JSON, '.gitignore': 'dist\n', 'biome.json': JSON.stringify({ extends: ['@angablue/biome-config'], formatter: { lineWidth: 60 } }), ...sources };
  const { root } = project(files, 'formatbox-biome-pkg-');
  unpack(tarball, join(root, 'node_modules/@angablue/biome-config'));
  await agrees(root, sources);
  // As pnpm lays it out: each file hard-linked from its store (outside the root) into node_modules/.pnpm, and a symlink to that.
  const pnpm = project(files, 'formatbox-biome-pnpm-');
  const store = join(pnpm.base, 'pnpm-store');
  unpack(tarball, store);
  const linked = join(pnpm.root, 'node_modules/.pnpm/@angablue+biome-config@1.1.1/node_modules/@angablue/biome-config');
  mkdirSync(linked, { recursive: true });
  for (const name of readdirSync(store)) linkSync(join(store, name), join(linked, name));
  mkdirSync(join(pnpm.root, 'node_modules/@angablue'), { recursive: true });
  symlinkSync('../.pnpm/@angablue+biome-config@1.1.1/node_modules/@angablue/biome-config', join(pnpm.root, 'node_modules/@angablue/biome-config'));
  await agrees(pnpm.root, sources);
});

test('a real shared config written for a newer Biome, ultracite 7.12.2 ("./biome/*" exports): both reject its unknown key, with its position', { skip }, async (t) => {
  const tarball = packed('ultracite', '7.12.2');
  if (!tarball) return t.skip('npm could not fetch ultracite@7.12.2 (not in CI)');
  const { root } = project({ 'package.json': PACKAGE_JSON, 'biome.json': JSON.stringify({ extends: ['ultracite/biome/core'] }), 'a.ts': JS }, 'formatbox-biome-pkg-');
  unpack(tarball, join(root, 'node_modules/ultracite'));
  const expected = native(root, ['a.ts']);
  assert.notEqual(expected.status, 0, expected.output);
  const unknown = /:(\d+:\d+) deserialize[^]*?Found an unknown key `(\w+)`/.exec(expected.output);
  assert.ok(unknown, expected.output);
  await assertRefused(root, 'a.ts', JS, new RegExp(`^invalid project config: node_modules/ultracite/config/biome/core/biome\\.jsonc:${unknown[1]}: Found an unknown key \`${unknown[2]}\``));
});

/** A small shared-config package of our own: its package.json fields and files. */
function fixturePackage(root: string, name: string, manifest: Record<string, unknown>, files: Record<string, string>): void {
  writeFiles(join(root, 'node_modules', name), { 'package.json': JSON.stringify({ name, version: '1.0.0', ...manifest }), ...files });
}

const WIDE = JSON.stringify({ formatter: { indentStyle: 'space', indentWidth: 3, lineWidth: 50 }, javascript: { formatter: { quoteStyle: 'single', semicolons: 'asNeeded' } } });
const OTHER = JSON.stringify({ formatter: { indentStyle: 'space', indentWidth: 7 } });

const EXACT: Array<{ name: string; extendsEntry: string; manifest: Record<string, unknown>; files: Record<string, string> }> = [
  // Biome takes the first key that is `biome` or `default`, in the order written.
  { name: 'conditions: the first of biome/default in order wins', extendsEntry: '@acme/biome-config', manifest: { exports: { '.': { import: './x.json', default: './wide.json', biome: './other.json' } } }, files: { 'wide.json': WIDE, 'other.json': OTHER, 'x.json': OTHER } },
  // An exports object that matches no subpath key is read as conditions, for any subpath (Biome's resolver).
  { name: 'an exports object of conditions only, reached with a subpath', extendsEntry: '@acme/biome-config/anything', manifest: { exports: { biome: './wide.json' } }, files: { 'wide.json': WIDE } },
  { name: 'a "*" pattern over an exact key, the most specific pattern first', extendsEntry: '@acme/biome-config/presets/wide', manifest: { exports: { './presets/*': './configs/*.jsonc', './*': './other.json', './presets/other': './other.json' } }, files: { 'configs/wide.jsonc': `// comments are fine in .jsonc\n${WIDE}` } },
  { name: '"main" without exports', extendsEntry: 'acme-biome', manifest: { main: 'wide.json' }, files: { 'wide.json': WIDE } },
  { name: 'a subpath file without exports', extendsEntry: 'acme-biome/configs/wide.json', manifest: {}, files: { 'configs/wide.json': WIDE } },
];

for (const c of EXACT) {
  test(`Biome package resolution agrees with the native CLI: ${c.name}`, { skip }, async () => {
    const sources = realSources();
    const { root } = project({ 'package.json': PACKAGE_JSON, 'biome.json': JSON.stringify({ extends: [c.extendsEntry] }), ...sources }, 'formatbox-biome-pkg-');
    fixturePackage(root, c.extendsEntry.startsWith('@') ? c.extendsEntry.split('/').slice(0, 2).join('/') : c.extendsEntry.split('/')[0]!, c.manifest, c.files);
    await agrees(root, sources);
  });
}

const JS = 'function f(){ if (x) { return "aaaaaaaaaaaaaa" + "bbbbbbbbbbbbbbbbbbb"; } }\n';

interface RefuseCase {
  name: string;
  extendsEntry: string;
  /** Sets up the project (root, and base: the directory around it). */
  setUp: (root: string, base: string) => void;
  reason: RegExp;
  /** Whether the native CLI fails on it too (where it reads what formatbox does not, it may not). */
  nativeFails?: boolean;
  files?: Record<string, string>;
}

const REFUSE: RefuseCase[] = [
  {
    name: 'not installed (the CLI fails too)',
    extendsEntry: '@acme/biome-config',
    setUp: () => {},
    reason: /extends "@acme\/biome-config" is not followed: @acme\/biome-config is not installed in the node_modules of the project \(run the package manager install/,
    nativeFails: true,
  },
  {
    name: 'a symlink in node_modules to a package outside the root (a global link)',
    extendsEntry: '@acme/biome-config',
    setUp: (root, base) => {
      writeFiles(join(base, 'linked'), { 'package.json': JSON.stringify({ name: '@acme/biome-config', exports: './biome.json' }), 'biome.json': WIDE });
      mkdirSync(join(root, 'node_modules/@acme'), { recursive: true });
      symlinkSync(join(base, 'linked'), join(root, 'node_modules/@acme/biome-config'));
    },
    reason: /is not followed: node_modules\/@acme\/biome-config\/package\.json was not read \(.*symlink out of the project root\)/,
    nativeFails: false,
  },
  {
    name: 'a JS target (code is never read)',
    extendsEntry: '@acme/biome-config',
    setUp: (root) => fixturePackage(root, '@acme/biome-config', { exports: { '.': './index.js' } }, { 'index.js': 'module.exports = {}\n' }),
    reason: /is not followed: it resolves to node_modules\/@acme\/biome-config\/index\.js, which is not a JSON or JSONC file/,
    nativeFails: true,
  },
  {
    name: '".." in an exports target',
    extendsEntry: '@acme/biome-config',
    setUp: (root) => {
      fixturePackage(root, '@acme/biome-config', { exports: './../../shared.json' }, {});
      writeFileSync(join(root, 'shared.json'), WIDE);
    },
    reason: /the exports target "\.\/\.\.\/\.\.\/shared\.json" leaves the package or is not a plain path; not followed/,
  },
  {
    name: 'an exports target naming another package',
    extendsEntry: '@acme/biome-config',
    setUp: (root) => {
      fixturePackage(root, '@acme/biome-config', { exports: { '.': 'other-config/biome.json' } }, {});
      fixturePackage(root, 'other-config', {}, { 'biome.json': WIDE });
    },
    reason: /the exports target "other-config\/biome\.json" is not a path inside the package/,
  },
  {
    name: 'an absolute exports target',
    extendsEntry: '@acme/biome-config',
    setUp: (root) => fixturePackage(root, '@acme/biome-config', { exports: '/etc/hostname' }, {}),
    reason: /the exports target "\/etc\/hostname" is not a path inside the package/,
  },
  {
    name: 'a huge exports map',
    extendsEntry: '@acme/biome-config',
    setUp: (root) => fixturePackage(root, '@acme/biome-config', { exports: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`./k${i}`, './biome.json'])) }, { 'biome.json': WIDE }),
    reason: /its "exports" has more than 2000 entries; not followed/,
  },
  {
    name: 'deeply nested conditions',
    extendsEntry: '@acme/biome-config',
    setUp: (root) => {
      let exports: unknown = './biome.json';
      for (let i = 0; i < 20; i++) exports = { default: exports };
      fixturePackage(root, '@acme/biome-config', { exports }, { 'biome.json': WIDE });
    },
    reason: /its "exports" is nested deeper than 16 levels; not followed/,
  },
  {
    name: 'a tsconfig.json whose paths Biome would apply first',
    extendsEntry: '@acme/biome-config',
    setUp: (root) => {
      fixturePackage(root, '@acme/biome-config', { exports: './biome.json' }, { 'biome.json': WIDE });
      writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { paths: { '@acme/*': ['./vendor/*'] } } }));
    },
    reason: /tsconfig\.json sets compilerOptions\.paths, which the Biome resolver applies to extends too/,
  },
  {
    name: 'a package name in a nested config',
    extendsEntry: '',
    files: { 'biome.json': '{}', 'pkg/biome.json': JSON.stringify({ root: false, extends: ['@acme/biome-config'] }) },
    setUp: (root) => fixturePackage(root, '@acme/biome-config', { exports: './biome.json' }, { 'biome.json': WIDE }),
    reason: /pkg\/biome\.json: extends "@acme\/biome-config" is not followed: a package name in a nested config/,
  },
];

for (const c of REFUSE) {
  test(`Biome package extends is refused, naming the config and the reason: ${c.name}`, { skip }, async () => {
    const path = c.files ? 'pkg/a.ts' : 'a.ts';
    const { root, base } = project({ 'package.json': PACKAGE_JSON, ...(c.files ?? { 'biome.json': JSON.stringify({ extends: [c.extendsEntry] }) }), [path]: JS }, 'formatbox-biome-pkg-refuse-');
    c.setUp(root, base);
    if (c.nativeFails !== undefined) {
      const expected = native(root, [path]);
      assert.equal(expected.status !== 0, c.nativeFails, expected.output);
    }
    await assertRefused(root, path, JS, c.reason);
  });
}

test('a change inside node_modules to the shared config is noticed by a warm runtime; so is installing a missing one', { skip }, async () => {
  const { root } = project({ 'package.json': PACKAGE_JSON, 'biome.json': JSON.stringify({ extends: ['@acme/biome-config'] }), 'a.ts': JS }, 'formatbox-biome-pkg-watch-');
  const runtime = createRuntime({ root });
  try {
    const missing = await runtime.format({ path: 'a.ts' });
    assert.equal(missing.status, 'failed', missing.reason);
    assert.match(missing.reason ?? '', /not installed/);
    fixturePackage(root, '@acme/biome-config', { exports: './biome.json' }, { 'biome.json': JSON.stringify({ formatter: { indentStyle: 'space', indentWidth: 3 } }) });
    const installed = await runtime.format({ path: 'a.ts' });
    assert.equal(installed.status, 'formatted', installed.reason);
    assert.equal(readFileSync(join(root, 'a.ts'), 'utf8'), native(root, ['a.ts']).files['a.ts']);
    assert.match(readFileSync(join(root, 'a.ts'), 'utf8'), /^ {3}if/m);
    writeFileSync(join(root, 'a.ts'), JS);
    writeFileSync(join(root, 'node_modules/@acme/biome-config/biome.json'), JSON.stringify({ formatter: { indentStyle: 'space', indentWidth: 5 } }));
    const changed = await runtime.format({ path: 'a.ts' });
    assert.equal(changed.status, 'formatted', changed.reason);
    assert.match(readFileSync(join(root, 'a.ts'), 'utf8'), /^ {5}if/m);
  } finally {
    await runtime.close();
  }
});

test('a Biome version whose package resolution is not verified refuses a config that needed it', () => {
  const sources = [{ file: 'biome.json', text: '{}' }, { file: 'node_modules/@acme/biome-config/biome.json', text: '{}', package: '@acme/biome-config' }];
  assert.equal(packageExtendsRefusal('2.4.15', sources), undefined);
  assert.match(packageExtendsRefusal('2.6.8', sources) ?? '', /extends "@acme\/biome-config" names a package, resolved to node_modules\/@acme\/biome-config\/biome\.json .*Biome 2\.6\.8's resolution is not verified/);
  assert.equal(packageExtendsRefusal('2.6.8', sources.slice(0, 1)), undefined);
});
