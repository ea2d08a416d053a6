// A fresh clone's toolchain (src/node/formatter-store/package-tree.ts): the lockfile read as hostile
// data (each refusal a case), the closure as Node would resolve it on this platform, and real
// projects with only package.json + a package-lock.json that npm generates at test time, whose
// toolchain fetched from the registry into the store formats every file exactly as the installed
// project's own `prettier --write`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { isFormatboxError } from '../../src/core/errors.js';
import { createLockedStore, lockedClosure, packageTree, readPackageLock, toolchainSeeds, type Platform } from '../../src/node/formatter-store/package-tree.js';
import { createRuntime } from '../../src/node/index.js';
import { projectCodeUnavailable } from '../../src/node/project-toolchain/index.js';
import { makeProject, npm, prettierWrite, projectCache, projectsBase } from '../projects/corpus.js';
import { writeTree } from '../write-tree.js';
import { PROJECT_SETUPS } from '../projects/setups.js';

const LINUX: Platform = { os: 'linux', cpu: 'x64', libc: 'glibc' };
const SHA512 = `sha512-${'A'.repeat(86)}==`;
const tarball = (name: string, version: string): string => `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${version}.tgz`;

function lock(packages: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ name: 'p', lockfileVersion: 3, packages: { '': { devDependencies: { prettier: '3.10.1' } }, ...packages }, ...extra });
}
const prettierEntry = { version: '3.10.1', resolved: tarball('prettier', '3.10.1'), integrity: SHA512 };

function refusal(text: string, seeds: string[] = ['prettier']): string {
  try {
    lockedClosure(readPackageLock(text, { maxLockfileBytes: 1 << 20, maxLockEntries: 20, maxPackages: 5, maxTreeBytes: 1 << 20, maxPathDepth: 4 }), seeds, LINUX, { maxLockfileBytes: 1 << 20, maxLockEntries: 20, maxPackages: 5, maxTreeBytes: 1 << 20, maxPathDepth: 4 });
  } catch (error) {
    assert.ok(isFormatboxError(error), String(error));
    assert.equal(error.code, 'FORMATTER_FETCH');
    return error.message;
  }
  assert.fail(`accepted: ${text.slice(0, 300)}`);
}

test('lockfile: hostile or unusable entries are refused, each saying why', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['not JSON', '{"lockfileVersion": 3,', /not JSON/],
    ['lockfile v1 (no packages map)', JSON.stringify({ lockfileVersion: 1, dependencies: {} }), /lockfileVersion 1/],
    ['a key that climbs out', lock({ 'node_modules/prettier': prettierEntry, 'node_modules/../../etc': prettierEntry }, {}), /not a node_modules path|climb/],
    ['an alias naming a path', lock({ 'node_modules/prettier': { ...prettierEntry, name: '../../x' } }), /not a package name/],
    ['a range, not a version', lock({ 'node_modules/prettier': { ...prettierEntry, version: '^3.0.0' } }), /not an exact version/],
    ['a git URL', lock({ 'node_modules/prettier': { ...prettierEntry, resolved: 'git+ssh://git@github.com/prettier/prettier.git#abc' } }), /not a registry tarball/],
    ['a tarball of another package', lock({ 'node_modules/prettier': { ...prettierEntry, resolved: 'https://evil.example/evil/-/evil-1.0.0.tgz' } }), /not a registry tarball/],
    ['a file URL', lock({ 'node_modules/prettier': { ...prettierEntry, resolved: 'file:../prettier-3.10.1.tgz' } }), /not a registry tarball/],
    ['a bad integrity string', lock({ 'node_modules/prettier': { ...prettierEntry, integrity: 'sha512-x"; rm -rf /' } }), /not an integrity string/],
    ['a link out of the project', lock({ 'node_modules/prettier': { link: true, resolved: '../other-project' } }), /not a directory inside the project/],
    ['an absolute link', lock({ 'node_modules/prettier': { link: true, resolved: '/etc' } }), /not a directory inside the project/],
    ['a link into node_modules', lock({ 'node_modules/prettier': { link: true, resolved: 'node_modules/x' } }), /not a directory inside the project/],
    ['a missing dependency', lock({ 'node_modules/prettier': { ...prettierEntry, dependencies: { 'left-out': '1' } } }), /left-out.*not in the lockfile/],
    ['a dependency name that is a path', lock({ 'node_modules/prettier': { ...prettierEntry, dependencies: { '../../x': '1' } } }), /not a package/],
    ['too many entries', lock(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`node_modules/p${i}`, prettierEntry]))), /30 entries, over 20|over 20/],
    ['too many packages in the closure', lock({ 'node_modules/prettier': { ...prettierEntry, dependencies: Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`d${i}`, '1'])) }, ...Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`node_modules/d${i}`, { version: '1.0.0', resolved: tarball(`d${i}`, '1.0.0') }])) }), /over 5 packages/],
    ['a required package for another platform', lock({ 'node_modules/prettier': { ...prettierEntry, os: ['darwin'] } }), /another platform/],
    ['deep nesting', `{"lockfileVersion":3,"packages":{"":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`, /not an object/],
    ['a workspace package\'s own node_modules', lock({ 'node_modules/prettier': { link: true, resolved: 'packages/p' }, 'packages/p': { version: '1.0.0', dependencies: { dep: '1' } }, 'packages/p/node_modules/dep': { version: '1.0.0', resolved: tarball('dep', '1.0.0') } }), /not under the project's node_modules/],
    ['a key with ..', lock({ 'node_modules/prettier': prettierEntry, 'packages/../../x': prettierEntry }), /not a node_modules path or a directory inside the project/],
    ['a field of the wrong type', lock({ 'node_modules/prettier': { ...prettierEntry, dependencies: ['x'] } }), /not an object/],
  ];
  for (const [what, text, expected] of cases) assert.match(refusal(text), expected, what);
});

test('lockfile: the closure is what Node would resolve on this platform (nested first, optional natives that fit, placed peers)', () => {
  const text = lock({
    'node_modules/prettier-plugin-x': { version: '1.0.0', resolved: tarball('prettier-plugin-x', '1.0.0'), dependencies: { dep: '^2' }, peerDependencies: { prettier: '3', 'absent-peer': '1' }, peerDependenciesMeta: { 'absent-peer': { optional: true } } },
    'node_modules/prettier-plugin-x/node_modules/dep': { version: '2.0.0', resolved: tarball('dep', '2.0.0'), optionalDependencies: { '@n/linux-x64-gnu': '1', '@n/linux-x64-musl': '1', '@n/darwin-arm64': '1' } },
    'node_modules/dep': { version: '1.0.0', resolved: tarball('dep', '1.0.0') },
    'node_modules/@n/linux-x64-gnu': { version: '1.0.0', resolved: tarball('@n/linux-x64-gnu', '1.0.0'), optional: true, os: ['linux'], cpu: ['x64'], libc: ['glibc'] },
    'node_modules/@n/linux-x64-musl': { version: '1.0.0', resolved: tarball('@n/linux-x64-musl', '1.0.0'), optional: true, os: ['linux'], cpu: ['x64'], libc: ['musl'] },
    'node_modules/@n/darwin-arm64': { version: '1.0.0', resolved: tarball('@n/darwin-arm64', '1.0.0'), optional: true, os: ['darwin'], cpu: ['arm64'] },
    'node_modules/unrelated': { version: '1.0.0', resolved: tarball('unrelated', '1.0.0') },
    'node_modules/prettier': prettierEntry,
    'node_modules/aliased': { name: 'real-name', version: '4.0.0', resolved: tarball('real-name', '4.0.0') },
  });
  const closure = lockedClosure(readPackageLock(text), ['prettier-plugin-x', 'aliased'], LINUX);
  assert.deepEqual(closure.packages.map((p) => `${p.path} ${p.name}@${p.version}`), [
    'node_modules/@n/linux-x64-gnu @n/linux-x64-gnu@1.0.0',
    'node_modules/aliased real-name@4.0.0',
    'node_modules/prettier prettier@3.10.1',
    'node_modules/prettier-plugin-x prettier-plugin-x@1.0.0',
    'node_modules/prettier-plugin-x/node_modules/dep dep@2.0.0',
  ]);
  assert.deepEqual(closure.leftOut.map((l) => l.path).sort(), ['node_modules/@n/darwin-arm64', 'node_modules/@n/linux-x64-musl', 'node_modules/prettier-plugin-x/node_modules/absent-peer']);
});

test('seeds: prettier, its plugins and shared configs, what the config names, and the Tailwind plugin\'s undeclared tailwindcss', () => {
  const packageJson = { devDependencies: { prettier: '3', 'prettier-plugin-tailwindcss': '0.8', tailwindcss: '4', next: '15', '@acme/prettier-config': 'file:x', 'left-pad': '1', tsx: '4' }, prettier: '@acme/prettier-config' };
  assert.deepEqual(toolchainSeeds(packageJson, ["module.exports = { ...require('left-pad/lib/x.js') }"]), ['@acme/prettier-config', 'left-pad', 'prettier', 'prettier-plugin-tailwindcss', 'tailwindcss']);
  assert.deepEqual(toolchainSeeds(packageJson, ["import type { Config } from 'prettier';\nexport default {} satisfies Config;"]), ['@acme/prettier-config', 'prettier', 'prettier-plugin-tailwindcss', 'tailwindcss', 'tsx']);
});

/** Where a registry is unreachable outside CI, the real-project part skips and says so. */
const offline = process.env.CI ? undefined : spawnSync('npm', ['ping'], { encoding: 'utf8', timeout: 30_000 }).status === 0 ? undefined : 'the npm registry is not reachable here';

for (const id of ['tailwind-v4', 'cjs-shared-config', 'esm-shared-config', 'organize-imports']) {
  const setup = PROJECT_SETUPS.find((s) => s.id === id)!;
  test(`fresh clone ${id}: the lockfile's toolchain from the store formats like the installed project`, { skip: offline, timeout: 900_000 }, async () => {
    const base = projectsBase(`fb-tree-${id}-`);
    try {
      const installed = makeProject(setup, base, 'installed');
      const fresh = makeProject(setup, base, 'fresh', { withModules: false });
      // Only package.json (and the local packages it names): npm writes the lockfile, installing nothing.
      rmSync(join(fresh.root, 'package-lock.json'));
      npm(['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], fresh.root);
      assert.equal(existsSync(join(fresh.root, 'node_modules')), false);
      const lockText = readFileSync(join(fresh.root, 'package-lock.json'), 'utf8');

      const packageJson = JSON.parse(readFileSync(join(fresh.root, 'package.json'), 'utf8'));
      const configTexts = Object.keys(setup.files).map((path) => readFileSync(join(fresh.root, path), 'utf8'));
      const seeds = toolchainSeeds(packageJson, configTexts);
      const env = { ...process.env, XDG_CACHE_HOME: join(projectCache(), 'xdg-cache') };
      const started = Date.now();
      const tree = await packageTree({ root: fresh.root, lockText, seeds, store: createLockedStore(env), treesDir: join(base, 'trees'), env });
      const ms = Date.now() - started;
      assert.equal(tree.created, true);
      const again = await packageTree({ root: fresh.root, lockText, seeds, store: createLockedStore(env), treesDir: join(base, 'trees'), env });
      assert.equal(again.created, false, 'laid out once');

      // Each package where the installed project has it, at the same version: else npm resolved anew since the cache was installed.
      const lock = readPackageLock(lockText);
      for (const item of tree.packages) {
        if (item.link) continue;
        const installedVersion = JSON.parse(readFileSync(join(installed.root, item.path, 'package.json'), 'utf8')).version;
        assert.equal(item.version, installedVersion, `${item.path}: the lockfile says ${item.version}, the installed cache has ${installedVersion} (remove ${projectCache()} to reinstall)`);
        assert.equal(lock.get(item.path)?.hasInstallScript === true, item.installScript === true);
        const file = join(tree.dir, item.path, 'package.json');
        assert.equal(statSync(file).mode & 0o222, 0, `${file} is read-only`);
      }
      const installedCount = JSON.parse(readFileSync(join(installed.root, 'package-lock.json'), 'utf8')).packages;
      console.log(`  # ${id}: seeds ${seeds.join(', ')}; ${tree.packages.length} packages of the lockfile's ${Object.keys(installedCount).length - 1} (${tree.leftOut.length} left out: other platforms, unplaced optionals); fetched and laid out in ${ms} ms`);

      // The tree stands where the sandbox mounts it: <project>/node_modules.
      symlinkSync(join(tree.dir, 'node_modules'), join(fresh.root, 'node_modules'));
      assert.ok(lstatSync(join(fresh.root, 'node_modules')).isSymbolicLink());
      const theirs = prettierWrite(setup, installed);
      const ours = prettierWrite(setup, fresh);
      assert.ok(theirs.outputs.size >= 10);
      const differing = [...theirs.outputs.keys()].filter((path) => ours.outputs.get(path) !== theirs.outputs.get(path));
      assert.deepEqual(differing, [], `${id}: files the fresh clone's toolchain formats otherwise`);
      assert.deepEqual([...ours.rejected.keys()], [...theirs.rejected.keys()]);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
}

test('a fresh clone whose lockfile is refused: the file is refused with the lockfile\'s reason, nothing is written into the project', { timeout: 120_000 }, async (t) => {
  const unavailable = projectCodeUnavailable();
  if (unavailable) {
    if (process.env.CI) assert.fail(unavailable);
    return t.skip(`no OS sandbox here: ${unavailable}`);
  }
  const root = projectsBase('fb-tree-refused-');
  try {
    writeTree(root, {
      'package.json': JSON.stringify({ name: 'p', devDependencies: { prettier: '3.10.1', 'prettier-plugin-x': '1.0.0' } }),
      'package-lock.json': lock({ 'node_modules/prettier': { ...prettierEntry, resolved: 'git+ssh://git@example.com/prettier.git#abc' } }),
      '.prettierrc': '{ "plugins": ["prettier-plugin-x"] }\n',
      'a.ts': 'const a=1\n',
    });
    const runtime = createRuntime({ root });
    try {
      const receipt = await runtime.format({ path: 'a.ts' });
      assert.equal(receipt.status, 'refused', receipt.line);
      assert.match(receipt.reason ?? '', /no node_modules, and its lockfile's toolchain could not be fetched: package-lock.json: node_modules\/prettier is resolved from "git\+ssh/);
    } finally {
      await runtime.close();
    }
    assert.equal(readFileSync(join(root, 'a.ts'), 'utf8'), 'const a=1\n');
    assert.equal(existsSync(join(root, 'node_modules')), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
