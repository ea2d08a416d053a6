// A monorepo whose root installs the shipped Prettier and whose package `packages/legacy` installs
// Prettier 2.8.8 (the registry's tarball, verified, unpacked into its node_modules): each file is
// formatted as the project's own tooling formats it — the root's files by the root's Prettier, the
// package's by the package's own bin (`node_modules/.bin` of its scripts, prettier-vscode resolving
// from the file's directory) — per file and project-wide (`formatbox format`), on real files read from
// installed packages, and each receipt names the version that wrote it. Without the pinned build,
// the receipt says the package pins 2.8.8; a change to the package's install is seen before the next format.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRuntime } from '../../src/node/index.js';
import { createPinnedFormatters } from '../../src/node/pinned-formatters.js';
import { createFormatterStore } from '../../src/node/formatter-store/store.js';
import { formatTree } from '../../src/node/project/format-tree.js';
import { PINNED_CORPUS, PINNED_MARKDOWN, fetchOrSkip, threeCopies } from '../pinned-helpers.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const shipped = JSON.parse(readFileSync(join(repo, 'node_modules/prettier/package.json'), 'utf8')).version as string;
const LEGACY = '2.8.8';
// TS and JS from two packages, and READMEs: formatted differently by Prettier 2 and 3.
const FILES = [...PINNED_CORPUS.slice(0, 14), ...PINNED_CORPUS.slice(-14), ...PINNED_MARKDOWN.slice(0, 4)];

/** Runs the Prettier installed at `cwd/node_modules/prettier` (its own `bin`) with `--write src`, as a package script does. */
function ownPrettier(cwd: string): void {
  const manifest = JSON.parse(readFileSync(join(cwd, 'node_modules/prettier/package.json'), 'utf8'));
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin.prettier;
  const run = spawnSync(process.execPath, [join(cwd, 'node_modules/prettier', bin), '--write', 'src'], { cwd, encoding: 'utf8', timeout: 120_000 });
  assert.equal(run.status, 0, `prettier ${manifest.version} in ${cwd}: ${run.stderr}`);
}

test(`a workspace package installing prettier ${LEGACY} under a root with prettier ${shipped}: each file gets its own package's Prettier, per file and project-wide`, async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'fb-pin-workspace-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  // One store for this test's runtimes and for `formatbox format`'s (the default store reads XDG_CACHE_HOME).
  process.env.XDG_CACHE_HOME = join(base, 'cache');
  const store = createFormatterStore();
  const legacy = await fetchOrSkip(t, store, 'prettier', LEGACY);
  if (!legacy) return;

  const layout: Record<string, string> = {
    '.git/': '',
    '.prettierrc': '{}\n',
    'package.json': JSON.stringify({ name: 'mono', private: true, workspaces: ['packages/*'], devDependencies: { prettier: shipped } }),
    'packages/legacy/package.json': JSON.stringify({ name: 'legacy', version: '1.0.0', scripts: { format: 'prettier --write src' }, devDependencies: { prettier: LEGACY } }),
  };
  FILES.forEach((file, index) => {
    const name = `${String(index).padStart(3, '0')}${extname(file)}`;
    layout[`src/${name}`] = readFileSync(file, 'utf8');
    layout[`packages/legacy/src/${name}`] = readFileSync(file, 'utf8');
  });
  const copies = threeCopies(base, layout);
  const tree = join(base, 'tree');
  for (const root of [copies.ours, copies.theirs, copies.withShipped]) {
    cpSync(join(repo, 'node_modules/prettier'), join(root, 'node_modules/prettier'), { recursive: true });
    cpSync(legacy.dir, join(root, 'packages/legacy/node_modules/prettier'), { recursive: true });
  }
  cpSync(copies.ours, tree, { recursive: true });

  // The project's own tooling: the root's Prettier at the root, the package's own in the package.
  ownPrettier(copies.theirs);
  ownPrettier(join(copies.theirs, 'packages/legacy'));

  const paths = Object.keys(layout).filter((p) => /(^|\/)src\//.test(p));
  const pinned = createPinnedFormatters({ store, timeoutMs: 20_000, waitMs: 120_000 });
  const runtime = createRuntime({ root: copies.ours, pinned });
  try {
    for (const path of paths) {
      const receipt = await runtime.format({ path });
      const expected = path.startsWith('packages/legacy/') ? LEGACY : shipped;
      assert.equal(receipt.formatter?.version, expected, `${path}: ${receipt.line}`);
      assert.equal(receipt.formatter?.pinned, undefined, receipt.line);
    }
    const rows = (await runtime.doctor()).versions;
    assert.ok(rows.some((row) => row.forFilesUnder === 'packages/legacy' && row.pinned === LEGACY && row.pinnedIn === 'packages/legacy/node_modules/prettier/package.json' && row.willRun === LEGACY && row.matches), JSON.stringify(rows));
  } finally {
    await Promise.all([runtime.close(), pinned.close()]);
  }
  let legacyDiffersFromRoot = 0;
  for (const path of paths) {
    assert.equal(readFileSync(join(copies.ours, path), 'utf8'), readFileSync(join(copies.theirs, path), 'utf8'), `${path} differs from its package's Prettier CLI`);
    if (path.startsWith('packages/legacy/') && readFileSync(join(copies.theirs, path), 'utf8') !== readFileSync(join(copies.theirs, path.slice('packages/legacy/'.length)), 'utf8')) legacyDiffersFromRoot++;
  }
  t.diagnostic(`${paths.length} files equal to their package's Prettier CLI; prettier ${shipped} would have written ${legacyDiffersFromRoot} of the ${paths.length / 2} legacy files differently`);
  assert.ok(legacyDiffersFromRoot > 0, 'Prettier 2.8.8 and the root’s agree on every file: this corpus does not show the package pin matters');

  // Project-wide: `formatbox format --write` on a fresh copy writes the same bytes, and says which version wrote each file.
  const outcomes = [];
  for await (const outcome of formatTree({ root: tree, threads: 1, native: false })) outcomes.push(outcome);
  for (const outcome of outcomes) {
    assert.ok('receipt' in outcome, JSON.stringify(outcome));
    if (!paths.includes(outcome.path)) continue;
    assert.equal(outcome.receipt.formatter?.version, outcome.path.startsWith('packages/legacy/') ? LEGACY : shipped, outcome.receipt.line);
  }
  for (const path of paths) assert.equal(readFileSync(join(tree, path), 'utf8'), readFileSync(join(copies.theirs, path), 'utf8'), `formatbox format: ${path} differs from its package's Prettier CLI`);

  // The format cache: a check answers every file as formatted; once the package installs the root's
  // Prettier instead, its cached verdicts are not reused, and the files that version writes differently are named.
  const check = async (): Promise<Map<string, string>> => {
    const kinds = new Map<string, string>();
    for await (const outcome of formatTree({ root: tree, check: true, threads: 1, native: false })) if ('receipt' in outcome) kinds.set(outcome.path, outcome.kind);
    return kinds;
  };
  assert.deepEqual([...(await check()).entries()].filter(([path, kind]) => paths.includes(path) && kind !== 'unchanged'), []);
  rmSync(join(tree, 'packages/legacy/node_modules/prettier'), { recursive: true });
  cpSync(join(repo, 'node_modules/prettier'), join(tree, 'packages/legacy/node_modules/prettier'), { recursive: true });
  const afterInstall = await check();
  const wouldChange = paths.filter((path) => afterInstall.get(path) === 'formatted');
  // What the root's Prettier CLI lists as not formatted among the package's files (its 2.8.8 output).
  const cwd = join(copies.theirs, 'packages/legacy');
  const listed = spawnSync(process.execPath, [join(copies.theirs, 'node_modules/prettier/bin/prettier.cjs'), '--list-different', 'src'], { cwd, encoding: 'utf8', timeout: 120_000 });
  const expected = listed.stdout.split('\n').filter(Boolean).map((line) => `packages/legacy/${line.trim()}`).sort();
  assert.ok(expected.length > 0, `prettier ${shipped} --list-different: ${listed.stderr}`);
  assert.deepEqual(wouldChange.sort(), expected);
});

test(`without the package's pinned build the receipt says the package pins it, "versions": "pinned" refuses, and a change to its install is seen at once`, async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'fb-pin-workspace-offline-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const unformatted = 'export const a = {b:1}\n';
  const layout = {
    '.git/': '',
    '.prettierrc': '{}\n',
    'package.json': JSON.stringify({ name: 'mono', private: true, workspaces: ['packages/*'], devDependencies: { prettier: shipped } }),
    'node_modules/prettier/package.json': readFileSync(join(repo, 'node_modules/prettier/package.json'), 'utf8'),
    'packages/legacy/package.json': JSON.stringify({ name: 'legacy', devDependencies: { prettier: LEGACY } }),
    'packages/legacy/node_modules/prettier/package.json': JSON.stringify({ name: 'prettier', version: LEGACY }),
    'packages/legacy/a.ts': unformatted,
    'packages/legacy/b.ts': unformatted,
    'a.ts': unformatted,
  };
  const { ours, theirs } = threeCopies(base, layout);
  const runtime = createRuntime({ root: ours, pinned: false });
  const strict = createRuntime({ root: theirs, pinned: false, config: { versions: 'pinned' } });
  try {
    const root = await runtime.format({ path: 'a.ts' });
    assert.equal(root.status, 'formatted');
    assert.equal(root.formatter?.pinned, undefined, root.line);
    const inPackage = await runtime.format({ path: 'packages/legacy/a.ts' });
    assert.equal(inPackage.formatter?.version, shipped);
    assert.equal(inPackage.formatter?.pinned, LEGACY);
    assert.equal(inPackage.formatter?.pinnedIn, 'packages/legacy/node_modules/prettier/package.json');
    assert.match(inPackage.line, new RegExp(`; the project pins ${LEGACY.replace(/\./g, '\\.')}\\): packages/legacy/a\\.ts$`));

    const refused = await strict.format({ path: 'packages/legacy/a.ts' });
    assert.equal(refused.status, 'refused', refused.line);
    assert.equal(readFileSync(join(theirs, 'packages/legacy/a.ts'), 'utf8'), unformatted);
    assert.equal((await strict.format({ path: 'a.ts' })).status, 'formatted');

    // An install in the package (3.3.3 now): the next format names it, with no restart.
    writeFileSync(join(ours, 'packages/legacy/node_modules/prettier/package.json'), JSON.stringify({ name: 'prettier', version: '3.3.3' }));
    const after = await runtime.format({ path: 'packages/legacy/b.ts' });
    assert.equal(after.formatter?.pinned, '3.3.3', after.line);
    // And its removal: the package.json's 2.8.8 again.
    rmSync(join(ours, 'packages/legacy/node_modules'), { recursive: true });
    writeFileSync(join(ours, 'packages/legacy/b.ts'), unformatted);
    const removed = await runtime.format({ path: 'packages/legacy/b.ts' });
    assert.equal(removed.formatter?.pinned, LEGACY, removed.line);
    assert.equal(removed.formatter?.pinnedIn, 'packages/legacy/package.json');
  } finally {
    await Promise.all([runtime.close(), strict.close()]);
  }
});

test('Ruff: a nested config requiring another version than the project locks is refused, as Ruff refuses it; the rest is formatted', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'fb-pin-workspace-ruff-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const shippedRuff = JSON.parse(readFileSync(join(repo, 'node_modules/@astral-sh/ruff-wasm-nodejs/package.json'), 'utf8')).version as string;
  const unformatted = 'x = {"a":1}\n';
  threeCopies(root, {
    '.git/': '',
    'pyproject.toml': '[tool.ruff]\nline-length = 88\n',
    'uv.lock': `version = 1\n\n[[package]]\nname = "ruff"\nversion = "${shippedRuff}"\n`,
    'svc/pyproject.toml': '[tool.ruff]\nrequired-version = "==0.8.0"\n',
    'svc/a.py': unformatted,
    'a.py': unformatted,
  });
  const project = createRuntime({ root: join(root, 'ours'), pinned: false });
  try {
    const inSvc = await project.format({ path: 'svc/a.py' });
    assert.equal(inSvc.status, 'refused', inSvc.line);
    assert.match(inSvc.line, /svc\/pyproject\.toml required-version is 0\.8\.0, and the project pins .* \(uv\.lock\): ruff refuses to run on these files/);
    assert.equal(readFileSync(join(root, 'ours', 'svc/a.py'), 'utf8'), unformatted);
    const atRoot = await project.format({ path: 'a.py' });
    assert.equal(atRoot.status, 'formatted', atRoot.line);
    assert.equal(atRoot.formatter?.version, shippedRuff);
  } finally {
    await project.close();
  }
});
