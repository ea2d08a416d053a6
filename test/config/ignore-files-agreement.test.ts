// Agreement: which files formatbox leaves alone because of ignore files, against the official CLIs
// run on the same directory with the same paths named explicitly (as a format-after-edit hook does):
// - Prettier 3's CLI reads the root .gitignore and .prettierignore and skips node_modules;
// - Biome's CLI, with vcs.enabled + vcs.useIgnoreFile, reads every .gitignore below its root config
//   and skips node_modules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { discoverProjectFiles } from '../../src/node/discover.js';
import { loadProjectConfig, normaliseUserConfig, selectFormatter } from '../../src/config/index.js';

const BIN = resolve('node_modules/.bin');

const GITIGNORE = [
  '# generated',
  'gen.ts',
  'build/',
  '*.min.js',
  '!keep.min.js',
  '/rootonly.ts',
  'docs/**/*.md',
  'out/',
  '!out/keep.ts',
  'lib/*.js',
  '!lib/main.js',
  'cache',
  'weird{a,b}.ts',
  '\\#hash.ts',
  'trailing.ts   ',
  '',
].join('\n');

const FILES: Record<string, string> = {
  '.gitignore': GITIGNORE,
  'sub/.gitignore': 'local.ts\n!gen.ts\n/anchored.ts\n',
  'sub/deeper/.gitignore': 'deep.ts\n',
  '.prettierignore': 'legacy/\n*.generated.ts\n',
};

const PATHS = [
  'gen.ts', 'sub/gen.ts', 'build/x.ts', 'a/build/y.ts', 'build.ts', 'x.min.js', 'keep.min.js', 'rootonly.ts', 'sub/rootonly.ts',
  'docs/a/b.md', 'docs/c.md', 'out/keep.ts', 'out/z.ts', 'lib/a.js', 'lib/main.js', 'lib/deep/b.js', 'cache/c.ts', 'src/cache',
  'weird{a,b}.ts', 'weirda.ts', '#hash.ts', 'trailing.ts', 'sub/local.ts', 'local.ts', 'sub/anchored.ts', 'sub/x/anchored.ts',
  'sub/deeper/deep.ts', 'deep.ts', 'legacy/l.ts', 'src/a.generated.ts', 'src/ok.ts', 'node_modules/p/a.ts', 'sub/node_modules/b.ts',
];

function unformatted(path: string): string {
  return path.endsWith('.md') ? '*  item\n' : 'const a=1\n';
}

function makeProject(extra: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'formatbox-ignore-'));
  for (const [path, text] of Object.entries({ ...FILES, ...extra, ...Object.fromEntries(PATHS.map((p) => [p, unformatted(p)])) })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

async function formatboxFormats(root: string, paths: string[]): Promise<Set<string>> {
  const discovered = await discoverProjectFiles(root);
  const project = loadProjectConfig(discovered.files, { trust: 'untrusted' });
  const user = normaliseUserConfig({});
  return new Set(paths.filter((path) => selectFormatter(project, user, path).kind === 'format'));
}

test('Prettier: formatbox skips exactly the files the Prettier CLI skips (root .gitignore, .prettierignore, node_modules)', async () => {
  const root = makeProject({ '.prettierrc': '{}' });
  try {
    // `prettier -l` names every file it would change; ignored files are skipped silently.
    const run = spawnSync(join(BIN, 'prettier'), ['-l', ...PATHS], { cwd: root, encoding: 'utf8' });
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    const theirs = new Set(run.stdout.split('\n').filter(Boolean));
    const ours = await formatboxFormats(root, PATHS);
    const mismatches = PATHS.filter((p) => ours.has(p) !== theirs.has(p)).map((p) => `${p}: formatbox ${ours.has(p) ? 'formats' : 'skips'}, Prettier ${theirs.has(p) ? 'formats' : 'skips'}`);
    assert.deepEqual(mismatches, []);
    assert.ok(theirs.size >= 8 && theirs.size <= PATHS.length - 8, `a meaningful mix: ${theirs.size} of ${PATHS.length} formatted`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('Biome: with vcs.useIgnoreFile formatbox skips exactly the files the Biome CLI skips (every .gitignore, node_modules)', async () => {
  const vcs = { vcs: { enabled: true, clientKind: 'git', useIgnoreFile: true } };
  const paths = PATHS.filter((p) => /\.(ts|js)$/.test(p));
  for (const [name, config] of [['vcs on', vcs], ['vcs off', {}]] as const) {
    const root = makeProject({ 'biome.json': JSON.stringify(config) });
    try {
      // Every file is unformatted, so each file Biome formats gets a `format` diagnostic.
      const run = spawnSync(join(BIN, 'biome'), ['format', '--reporter=json', '--max-diagnostics=1000', ...paths], { cwd: root, encoding: 'utf8' });
      const line = run.stdout.split('\n').find((l) => l.startsWith('{"summary"'));
      assert.ok(line, `no JSON report from biome:\n${run.stdout}\n${run.stderr}`);
      const report = JSON.parse(line) as { diagnostics: Array<{ category: string; location: { path: string } }> };
      const theirs = new Set(report.diagnostics.filter((d) => d.category === 'format').map((d) => d.location.path));
      const ours = await formatboxFormats(root, paths);
      const mismatches = paths.filter((p) => ours.has(p) !== theirs.has(p)).map((p) => `${p}: formatbox ${ours.has(p) ? 'formats' : 'skips'}, Biome ${theirs.has(p) ? 'formats' : 'skips'}`);
      assert.deepEqual(mismatches, [], name);
      const skipped = paths.filter((p) => !theirs.has(p));
      if (name === 'vcs on') assert.ok(skipped.length >= 8, `Biome skipped ${skipped.length}`);
      else assert.deepEqual(skipped.sort(), ['node_modules/p/a.ts', 'sub/node_modules/b.ts']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
});
