// Project-wide formatting (`formatbox format`): the walk's ignore files, the cache of formatted files,
// and parallel results identical to sequential ones, in a stable order; a Prettier check's list equal
// to `prettier --check`'s. Real Biome and Prettier, real files (rxjs sources from node_modules).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { SKIPPED_DIRS } from '../../src/node/discover.js';
import { openFormatCache } from '../../src/node/format-cache.js';
import { createRuntime } from '../../src/node/index.js';
import { tempTree } from './temp-tree.js';
import { walkTree } from '../../src/node/walk.js';
import { defaultThreads, FILES_PER_WORKER } from '../../src/node/project/format-tree.js';

const REPO = resolve('.');
const CLI = ['--import', 'tsx', join(REPO, 'src/cli/main.ts')];

const tree = (files: Record<string, string>): string => tempTree('fb-format-project-', files);

function cli(args: string[], base: string): { code: number; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [...CLI, ...args], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 180_000,
    env: { ...process.env, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(base, 'no-config'), XDG_CACHE_HOME: join(base, 'cache') },
  });
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

test('walk: .gitignore at every level (negation, directory patterns), .git/info/exclude and an extra ignore file', async () => {
  const base = tree({
    'root/.gitignore': 'dist/\n*.gen.ts\n/top-only.ts\n',
    'root/.git/info/exclude': 'private/\n',
    'root/a.ts': '',
    'root/top-only.ts': '',
    'root/x.gen.ts': '',
    'root/dist/out.ts': '',
    'root/private/p.ts': '',
    'root/pkg/.gitignore': '!keep.gen.ts\nlocal.ts\n',
    'root/pkg/keep.gen.ts': '',
    'root/pkg/other.gen.ts': '',
    'root/pkg/local.ts': '',
    'root/pkg/top-only.ts': '',
    'root/pkg/dist/again.ts': '',
    'root/extra/e.ts': '',
    'root/node_modules/m/index.ts': '',
    'root/.hidden/h.ts': '',
  });
  const root = join(base, 'root');
  const walk = (extra: Array<{ file: string; text: string }> = []) =>
    walkTree(root, '', { maxDirs: 1000, maxEntries: 10_000, maxDepth: 32, skipDirNames: SKIPPED_DIRS, skipHiddenDirs: true, gitignore: true, extraIgnores: extra, wantFile: (n) => n.endsWith('.ts') });
  const plain = await walk();
  assert.deepEqual(plain.files.map((f) => f.rel), ['a.ts', 'extra/e.ts', 'pkg/keep.gen.ts', 'pkg/top-only.ts']);
  assert.ok(plain.ignoredCount >= 6);
  const withExtra = await walk([{ file: '.formatignore', text: 'extra/\npkg/top-only.ts\n' }]);
  assert.deepEqual(withExtra.files.map((f) => f.rel), ['a.ts', 'pkg/keep.gen.ts']);
  // A walk that starts below the root still applies the root's .gitignore.
  const sub = await walkTree(root, 'pkg', { maxDirs: 100, maxEntries: 1000, maxDepth: 8, gitignore: true, wantFile: (n) => n.endsWith('.ts') });
  assert.deepEqual(sub.files.map((f) => f.rel), ['pkg/keep.gen.ts', 'pkg/top-only.ts']);
});

test('format --ignore-path and the walk\'s ignore files, end to end', () => {
  const base = tree({
    'root/biome.json': '{}\n',
    'root/.gitignore': 'gen/\n',
    'root/src/a.ts': 'const a=1\n',
    'root/gen/b.ts': 'const b=1\n',
    'root/vendored/c.ts': 'const c=1\n',
    'ignore-list': 'vendored/\n',
  });
  const root = join(base, 'root');
  const run = cli(['format', '--check', '--json', '--no-cache', '--ignore-path', join(base, 'ignore-list'), '--root', root, root], base);
  assert.equal(run.code, 1, run.stderr);
  const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.filter((l) => l.path).map((l) => l.path), ['biome.json', 'src/a.ts']);
  assert.equal(lines.at(-1).summary.ignoredByIgnoreFiles, 2);
});

test('cache: a hit needs the same bytes, path, formatter and config; mtime alone changes nothing; a forged cache never hits', async () => {
  const base = tree({ 'root/biome.json': '{ "formatter": { "indentStyle": "space" } }\n', 'root/node_modules/.keep': '', 'root/a.ts': 'const a = 1;\n', 'root/b.ts': 'const b=2\n' });
  const root = join(base, 'root');
  const env = { XDG_CACHE_HOME: join(base, 'cache') };
  const version = 'test';
  const check = async (cacheEnv = env) => {
    const cache = openFormatCache(root, { version, env: cacheEnv });
    const runtime = createRuntime({ root });
    try {
      const receipts = [await runtime.format({ path: 'a.ts', check: true, cache }), await runtime.format({ path: 'b.ts', check: true, cache })];
      cache.save();
      return { statuses: receipts.map((r) => r.status), cached: receipts.map((r) => r.line.startsWith('already formatted (cached')), cache };
    } finally {
      await runtime.close();
    }
  };
  const first = await check();
  assert.deepEqual(first.statuses, ['unchanged', 'formatted']);
  assert.deepEqual(first.cached, [false, false]);
  assert.equal(first.cache.file, join(root, 'node_modules/.cache/formatbox/format-cache.json'), 'kept under node_modules/.cache like Prettier');
  assert.deepEqual((await check()).cached, [true, false], 'the formatted file hits; the unformatted one is never cached');

  // Same bytes, new mtime: still a hit. New bytes with the old mtime: a miss.
  const old = statSync(join(root, 'a.ts')).mtime;
  utimesSync(join(root, 'a.ts'), new Date(), new Date());
  assert.deepEqual((await check()).cached, [true, false]);
  writeFileSync(join(root, 'a.ts'), 'const a = 2;\n');
  utimesSync(join(root, 'a.ts'), old, old);
  assert.deepEqual((await check()).cached, [false, false]);
  assert.deepEqual((await check()).cached, [true, false]);

  // The effective config changed (indent style): every key changes.
  writeFileSync(join(root, 'biome.json'), '{ "formatter": { "indentStyle": "space", "lineWidth": 100 } }\n');
  const afterConfig = await check();
  assert.deepEqual(afterConfig.cached, [false, false]);
  assert.equal(afterConfig.statuses[0], 'unchanged');

  // Another user's secret (a cache file shipped in the repository): no hits.
  assert.deepEqual((await check({ XDG_CACHE_HOME: join(base, 'other-user') })).cached, [false, false]);
  // The shipped cache file was not trusted, and not lost either: the owner still hits.
  assert.deepEqual((await check()).cached, [true, false]);
});

test('cache: a symlinked node_modules/.cache is not written through; the user cache is used instead', () => {
  const base = tree({ 'root/node_modules/.keep': '', 'elsewhere/.keep': '' });
  const root = join(base, 'root');
  symlinkSync(join(base, 'elsewhere'), join(root, 'node_modules/.cache'));
  const cache = openFormatCache(root, { version: 'test', env: { XDG_CACHE_HOME: join(base, 'cache') } });
  assert.ok(cache.file.startsWith(join(base, 'cache', 'formatbox', 'projects')), cache.file);
  cache.add('0'.repeat(64));
  assert.equal(cache.save(), undefined);
  assert.deepEqual(readdirSync(join(base, 'elsewhere')), ['.keep']);
});

test('the default pool: one worker per FILES_PER_WORKER files to format, at least one, at most one per core', () => {
  assert.equal(defaultThreads(0, 8), 1);
  assert.equal(defaultThreads(FILES_PER_WORKER, 8), 1);
  assert.equal(defaultThreads(FILES_PER_WORKER + 1, 8), 2);
  assert.equal(defaultThreads(100 * FILES_PER_WORKER, 8), 8);
  assert.equal(defaultThreads(100 * FILES_PER_WORKER, 1), 1);
});

test('parallel: --threads 3 prints exactly what --threads 1 prints, in path order; the second run comes from the cache', () => {
  const rxjs = join(dirname(createRequire(import.meta.url).resolve('rxjs/package.json')), 'src', 'internal', 'operators');
  const names = readdirSync(rxjs).filter((n) => n.endsWith('.ts')).sort().slice(0, 40);
  const base = tree({ 'root/biome.json': '{ "formatter": { "indentStyle": "space" } }\n' });
  const root = join(base, 'root');
  for (const [i, name] of names.entries()) cpSync(join(rxjs, name), join(root, `d${i % 3}`, name));
  writeFileSync(join(root, 'd0', 'broken.ts'), 'const = ;\n');
  const report = (threads: number, extra: string[] = ['--no-cache']) => {
    const run = cli(['format', '--check', '--json', '--threads', String(threads), ...extra, '--root', root, root], base);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    return { code: run.code, files: lines.filter((l) => l.path), summary: lines.at(-1).summary, stderr: run.stderr };
  };
  const one = report(1);
  const three = report(3);
  assert.equal(one.code, 2, one.stderr); // broken.ts fails in both
  assert.equal(three.code, one.code);
  assert.equal(three.summary.threads, 3);
  assert.deepEqual(three.files, one.files);
  const paths = one.files.map((l) => l.path as string);
  assert.deepEqual(paths, [...paths].sort());
  assert.equal(paths.length, names.length + 2); // + broken.ts and biome.json
  assert.ok(one.files.some((l) => l.status === 'would-change') && one.files.some((l) => l.status === 'failed'));
  // With the cache: every verdict of the first run is cached by it, then comes from it.
  const first = report(2, []);
  const second = report(2, []);
  assert.equal(first.summary.fromCache, 0);
  // Without --threads, a tree this small (under FILES_PER_WORKER files) gets one worker.
  const unnamed = cli(['format', '--check', '--json', '--no-cache', '--root', root, root], base);
  assert.equal(JSON.parse(unnamed.stdout.trim().split('\n').at(-1)!).summary.threads, 1);
  assert.equal(second.summary.fromCache, paths.length, 'every verdict is cached: formatted, would change, failed');
  assert.deepEqual(second.files.map((l) => [l.path, l.status]), one.files.map((l) => [l.path, l.status]));
  assert.ok(existsSync(join(base, 'cache', 'formatbox', 'secret')));
  assert.match(readFileSync(join(base, 'cache', 'formatbox', 'secret'), 'utf8'), /^[0-9a-f]{64}\n$/);
});

test('the walk enters dot-directories and vendor, build and cache directories where the formatter\'s own walk does (Prettier, Biome), never node_modules or .git', () => {
  const dirs = ['src', 'vendor', 'target', '.github/workflows', '.venv', 'venv', '__pycache__', '.next', '.cache', 'bower_components', 'build', 'dist', 'node_modules/x', '.git/x'];
  const files: Record<string, string> = { 'root/.prettierrc': '{}\n' };
  for (const dir of dirs) {
    files[`root/${dir}/a.js`] = 'const  a = {b:1}\n';
    files[`root/${dir}/ok.ts`] = 'export const ok = 1;\n';
  }
  const base = tree(files);
  const root = join(base, 'root');
  const reference = spawnSync(join(REPO, 'node_modules/.bin/prettier'), ['--check', '--log-level=warn', '.'], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  const expected = [...reference.stderr.matchAll(/^\[warn\] (?!Code style issues)(.+)$/gm)].map((m) => m[1]!).sort();
  assert.equal(expected.length, dirs.length - 2, reference.stderr);
  const run = cli(['format', '--check', '--no-cache', '--root', root, root], base);
  assert.equal(run.code, 1, run.stderr);
  assert.deepEqual(run.stdout.split('\n').filter((l) => l !== '').map((l) => l.replace(/^would reformat: /, '')), expected);
  assert.match(run.stderr, new RegExp(`^Checked ${2 * (dirs.length - 2) + 1} files: ${dirs.length - 2} would change`, 'm'));

  // A config of its own in a directory config discovery does not read: left out, not formatted with
  // the wrong settings. A dot-directory's config is read, so its files are listed with it.
  const nested = tree({ 'root/.prettierrc': '{}\n', 'root/vendor/lib/.prettierrc': '{"semi": false}\n', 'root/vendor/lib/b.js': 'const  b = 1\n', 'root/vendor/lib/package.json': '{"name":"lib"}\n', 'root/vendor/c.js': 'const  c = 1\n', 'root/.storybook/.prettierrc': '{"semi": false}\n', 'root/.storybook/d.js': 'const d = 1\n' });
  const nestedRun = cli(['format', '--check', '--no-cache', '--root', join(nested, 'root'), join(nested, 'root')], nested);
  // .storybook/d.js is formatted under its own config (no semicolon), and listed: 4 files, d.js among the formatted.
  assert.deepEqual(nestedRun.stdout.split('\n').filter((l) => l !== ''), ['would reformat: .storybook/.prettierrc', 'would reformat: vendor/c.js'], nestedRun.stderr);
  assert.match(nestedRun.stderr, /^Checked 4 files: 2 would change, 2 already formatted/m);
});

test('Prettier project: format --check, on a pipe, lists exactly the files prettier --check lists, each once, in path order', async () => {
  // Real code nobody here wrote: rxjs's TypeScript sources and its published JavaScript, some of it
  // first formatted by Prettier's own API here, so both verdicts occur; .prettierrc {} as the bench's.
  const rxjs = dirname(createRequire(import.meta.url).resolve('rxjs/package.json'));
  const prettier = await import('prettier');
  const base = tree({ 'root/.prettierrc': '{}\n' });
  const root = join(base, 'root');
  const sources = [
    ...readdirSync(join(rxjs, 'src', 'internal', 'operators')).filter((n) => n.endsWith('.ts')).sort().slice(0, 60).map((n) => join('src', 'internal', 'operators', n)),
    ...readdirSync(join(rxjs, 'dist', 'cjs', 'internal', 'operators')).filter((n) => n.endsWith('.js')).sort().slice(0, 40).map((n) => join('dist', 'cjs', 'internal', 'operators', n)),
  ];
  for (const [i, rel] of sources.entries()) {
    const text = readFileSync(join(rxjs, rel), 'utf8');
    const out = join(root, i % 2 === 0 ? 'a' : 'b', rel);
    cpSync(join(rxjs, rel), out);
    if (i % 3 === 0) writeFileSync(out, await prettier.format(text, { filepath: out }));
  }
  const reference = spawnSync(join(REPO, 'node_modules/.bin/prettier'), ['--check', '--log-level=warn', '.'], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  const expected = [...reference.stderr.matchAll(/^\[warn\] (?!Code style issues)(.+)$/gm)].map((m) => m[1]!).sort();
  assert.equal(reference.status, 1, reference.stderr);
  assert.ok(expected.length > 20 && expected.length < sources.length, `${expected.length} of ${sources.length} would change`);
  for (const threads of ['1', '2']) {
    const run = cli(['format', '--check', '--no-cache', '--threads', threads, '--root', root, root], base);
    assert.equal(run.code, 1, run.stderr);
    const listed = run.stdout.split('\n').filter((l) => l !== '').map((l) => l.replace(/^would reformat: /, ''));
    assert.deepEqual(listed, [...listed].sort(), 'in path order');
    assert.deepEqual(listed, expected);
    assert.match(run.stderr, new RegExp(`^Checked ${sources.length + 1} files: ${expected.length} would change, ${sources.length + 1 - expected.length} already formatted`, "m")); // and .prettierrc
  }
});

test('cache before start: an unchanged tree is answered without the engine; a changed file or config is formatted again', () => {
  const base = tree({
    'root/biome.json': '{ "formatter": { "indentStyle": "space" } }\n',
    'root/a.ts': 'export const a = 1;\n',
    'root/b.ts': 'export const b = 2;\n',
    'root/c.ts': 'export const c   =   3\n',
  });
  const root = join(base, 'root');
  const check = () => {
    const run = cli(['format', '--check', '--json', '--threads', '1', '--root', root, root], base);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    return { code: run.code, files: lines.filter((l) => l.path).map((l) => [l.path, l.status, l.cached === true]), summary: lines.at(-1).summary };
  };
  const first = check();
  assert.equal(first.code, 1);
  assert.deepEqual(first.files, [['a.ts', 'unchanged', false], ['b.ts', 'unchanged', false], ['biome.json', 'unchanged', false], ['c.ts', 'would-change', false]]);
  const second = check();
  assert.deepEqual(second.files, [['a.ts', 'unchanged', true], ['b.ts', 'unchanged', true], ['biome.json', 'unchanged', true], ['c.ts', 'would-change', true]]);
  assert.equal(second.summary.fromCacheBeforeStart, 4, 'every file answered before the engine started, the one that would change too');
  // Same bytes, another config: nothing from before the change counts.
  writeFileSync(join(root, 'biome.json'), '{ "formatter": { "indentStyle": "tab" } }\n');
  const third = check();
  assert.equal(third.summary.fromCacheBeforeStart, 0);
  assert.equal(third.summary.fromCache, 0);
  // A file changed after it was cached is formatted again, not answered from the cache.
  writeFileSync(join(root, 'biome.json'), '{ "formatter": { "indentStyle": "space" } }\n');
  writeFileSync(join(root, 'a.ts'), 'export const a   = 1\n');
  const fourth = check();
  assert.deepEqual(fourth.files, [['a.ts', 'would-change', false], ['b.ts', 'unchanged', true], ['biome.json', 'unchanged', true], ['c.ts', 'would-change', true]]);
  // "Would change" answers a check, never a write: the write formats the file, and the next check finds it formatted.
  const write = cli(['format', '--write', '--json', '--threads', '1', '--root', root, root], base);
  assert.equal(write.code, 0, write.stderr);
  assert.equal(readFileSync(join(root, 'c.ts'), 'utf8'), 'export const c = 3;\n');
  assert.equal(check().code, 0);
});
