// Config discovery on real directories: bounded at the root, no symlinks out, regular files only,
// code configs recorded but never read, dependency trees skipped, caps on size and breadth.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { discoverConfigForPath, discoverProjectFiles } from '../../src/node/discover.js';

function tree(files: Record<string, string | { symlink: string } | { fifo: true }>): string {
  const base = mkdtempSync(join(tmpdir(), 'formatbox-discover-'));
  for (const [path, spec] of Object.entries(files)) {
    const full = join(base, path);
    mkdirSync(dirname(full), { recursive: true });
    if (typeof spec === 'string') writeFileSync(full, spec);
    else if ('symlink' in spec) symlinkSync(spec.symlink, full);
    else execFileSync('mkfifo', [full]);
  }
  return base;
}

test('collects config files as data, code configs as null, skips node_modules and never reads the parent', async () => {
  const base = tree({
    '.prettierrc': '{"semi": true}',
    'root/.prettierrc.json': '{"semi": false}',
    'root/prettier.config.mjs': 'throw new Error("never read")',
    'root/packages/a/biome.json': '{}',
    'root/packages/a/src/index.ts': 'x',
    'root/node_modules/dep/.prettierrc': '{"tabWidth": 9}',
    'root/.git/config/.prettierrc': '{}',
    'root/pyproject.toml': '[tool.ruff]\n',
    'root/big/.editorconfig': 'x'.repeat(2 * 1024 * 1024),
  });
  try {
    const { files, ignored, truncated } = await discoverProjectFiles(join(base, 'root'));
    assert.deepEqual(Object.keys(files).sort(), ['.prettierrc.json', 'big/.editorconfig', 'packages/a/biome.json', 'prettier.config.mjs', 'pyproject.toml']);
    assert.equal(files['prettier.config.mjs'], null);
    assert.equal(files['.prettierrc.json'], '{"semi": false}');
    assert.equal(files['big/.editorconfig'], null);
    assert.ok(ignored.some((i) => i.file === 'big/.editorconfig' && /larger than/.test(i.reason)));
    assert.equal(truncated, false);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('symlinks: a link out of the root is refused (and reported), a link inside is read, linked directories are not walked', async () => {
  const base = tree({
    'secret.txt': 'TOP-SECRET',
    'outside/.prettierrc': '{"tabWidth": 9}',
    'root/.prettierrc': { symlink: '../secret.txt' },
    'root/shared/base.json': '{"semi": false}',
    'root/pkg/.prettierrc.json': { symlink: '../shared/base.json' },
    'root/linked': { symlink: '../outside' },
    'root/abs/biome.json': { symlink: '/etc/hostname' },
    'root/dangling/ruff.toml': { symlink: '../nope.toml' },
  });
  try {
    const { files, ignored } = await discoverProjectFiles(join(base, 'root'));
    assert.equal(files['.prettierrc'], null);
    assert.equal(files['abs/biome.json'], null);
    assert.equal(files['pkg/.prettierrc.json'], '{"semi": false}');
    assert.equal(files['linked/.prettierrc'], undefined);
    assert.equal(JSON.stringify(files).includes('TOP-SECRET'), false);
    assert.deepEqual(ignored.map((i) => i.file).sort(), ['.prettierrc', 'abs/biome.json', 'dangling/ruff.toml']);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('a FIFO named like a config is refused without blocking', async () => {
  const base = tree({ 'root/.prettierrc': { fifo: true }, 'root/.editorconfig': '[*]\nindent_size = 2\n' });
  try {
    const { files, ignored } = await discoverProjectFiles(join(base, 'root'));
    assert.equal(files['.prettierrc'], null);
    assert.match(ignored.find((i) => i.file === '.prettierrc')?.reason ?? '', /not a regular file|could not be opened/);
    assert.equal(files['.editorconfig'], '[*]\nindent_size = 2\n');
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('breadth caps stop the walk and say so', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 30; i++) files[`root/d${i}/x/.prettierrc`] = '{}';
  const base = tree(files);
  try {
    const result = await discoverProjectFiles(join(base, 'root'), { maxDirs: 10 });
    assert.equal(result.truncated, true);
    assert.ok(Object.keys(result.files).length < 30);
    assert.ok(result.ignored.some((i) => /stopped after 10 directories/.test(i.reason)));
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('discoverConfigForPath reads only the directories from the root to the file', async () => {
  const base = tree({
    '.prettierrc': '{}',
    'root/.editorconfig': 'root = true\n',
    'root/a/.prettierrc.json': '{"semi": false}',
    'root/a/b/c.ts': 'x',
    'root/other/biome.json': '{}',
    'root/a/link': { symlink: '../other' },
  });
  try {
    const { files } = await discoverConfigForPath(join(base, 'root'), 'a/b/c.ts');
    assert.deepEqual(Object.keys(files).sort(), ['.editorconfig', 'a/.prettierrc.json']);
    assert.deepEqual((await discoverConfigForPath(join(base, 'root'), '../x.ts')).files, {});
    assert.deepEqual(Object.keys((await discoverConfigForPath(join(base, 'root'), 'a/link/x.ts')).files).sort(), ['.editorconfig', 'a/.prettierrc.json']);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
