// Agreement at the version a project pins: projects whose package.json pins Prettier 3.3.3, 3.6.2
// and 2.8.8 (whose defaults differ) are formatted by formatbox, which fetches that version from the
// real registry into its verified store, and by that exact version's own CLI (`npx -y
// prettier@<v> --write`) on a copy, on more than 200 real JS and TS files and 40 READMEs read
// from installed packages: equal, file for file. The shipped Prettier differs from 3.3.3 and 2.8.8 on some of
// these files, so the pin is what makes them agree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRuntime } from '../../src/node/index.js';
import { createPinnedFormatters } from '../../src/node/pinned-formatters.js';
import { createFormatterStore } from '../../src/node/formatter-store/store.js';
import { writeTree } from '../write-tree.js';
import { PINNED_CORPUS, PINNED_MARKDOWN, threeCopies } from '../pinned-helpers.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const shipped = JSON.parse(readFileSync(join(repo, 'node_modules/prettier/package.json'), 'utf8')).version as string;

const FILES = [...PINNED_CORPUS, ...PINNED_MARKDOWN];

function npxPrettier(version: string, cwd: string): { ok: true } | { ok: false; why: string } {
  const run = spawnSync('npx', ['-y', `prettier@${version}`, '--write', 'src'], { cwd, encoding: 'utf8', timeout: 300_000, env: { ...process.env, npm_config_update_notifier: 'false' } });
  return run.status === 0 ? { ok: true } : { ok: false, why: `${run.error?.message ?? ''}${run.stderr}`.slice(0, 500) };
}

for (const version of ['3.3.3', '3.6.2', '2.8.8']) {
  test(`a project pinning prettier ${version}: formatbox's bytes equal prettier ${version}'s CLI on ${FILES.length} real files (JS, TS, Markdown)`, async (t) => {
    assert.ok(FILES.length >= 200, `${FILES.length} files`);
    const base = mkdtempSync(join(tmpdir(), `fb-pin-prettier-${version}-`));
    t.after(() => rmSync(base, { recursive: true, force: true }));
    const layout: Record<string, string> = { '.git/': '', 'package.json': JSON.stringify({ name: 'x', devDependencies: { prettier: version } }), '.prettierrc': '{}\n' };
    FILES.forEach((file, index) => {
      layout[`src/${String(index).padStart(3, '0')}${extname(file)}`] = readFileSync(file, 'utf8');
    });
    const { ours, theirs, withShipped } = threeCopies(base, layout);

    const cli = npxPrettier(version, theirs);
    if (!cli.ok) {
      if (process.env.CI) assert.fail(`npx prettier@${version}: ${cli.why}`);
      t.skip(`prettier ${version} could not be run from the registry here: ${cli.why}`);
      return;
    }
    const pinned = createPinnedFormatters({ store: createFormatterStore({ dir: join(base, 'store') }), timeoutMs: 20_000, waitMs: 120_000 });
    const runtime = createRuntime({ root: ours, pinned });
    const offline = createRuntime({ root: withShipped, pinned: false });
    const paths = Object.keys(layout).filter((p) => p.startsWith('src/'));
    let differsFromShipped = 0;
    try {
      for (const path of paths) {
        const receipt = await runtime.format({ path });
        assert.equal(receipt.formatter?.version, version, `${path}: ${receipt.line}`);
        assert.equal(receipt.formatter?.pinned, undefined, receipt.line);
        const fallback = await offline.format({ path });
        assert.equal(fallback.formatter?.version, shipped);
        if (fallback.status !== 'unchanged' || receipt.status !== 'unchanged') assert.match(fallback.line, new RegExp(`; the project pins ${version.replace(/\./g, '\\.')}\\)`));
      }
    } finally {
      await Promise.all([runtime.close(), offline.close(), pinned.close()]);
    }
    for (const path of paths) {
      assert.equal(readFileSync(join(ours, path), 'utf8'), readFileSync(join(theirs, path), 'utf8'), `${path} differs from prettier ${version}'s CLI`);
      if (readFileSync(join(withShipped, path), 'utf8') !== readFileSync(join(theirs, path), 'utf8')) differsFromShipped++;
    }
    t.diagnostic(`${paths.length} files equal to prettier ${version}'s CLI; prettier ${shipped} would have written ${differsFromShipped} of them differently`);
    if (version !== '3.6.2') assert.ok(differsFromShipped > 0, `the shipped Prettier ${shipped} agrees with 3.3.3 on every file: this corpus does not show the pin matters`);
  });
}

test('the root .gitignore: Prettier 3 leaves its files alone, Prettier 2 formats them, and so does formatbox for a project pinning each', async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'fb-pin-prettier-gitignore-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const unformatted = 'export const a = {b:1}\n';
  for (const version of ['3.3.3', '2.8.8']) {
    const root = join(base, version);
    writeTree(root, { '.git/': '', '.gitignore': 'gen/\n', 'package.json': JSON.stringify({ name: 'x', devDependencies: { prettier: version } }), '.prettierrc': '{}\n', 'gen/a.ts': unformatted });
    // The CLI given the ignored file by name, as a format-on-save or lint-staged call gives it.
    const cli = spawnSync('npx', ['-y', `prettier@${version}`, '--write', 'gen/a.ts'], { cwd: root, encoding: 'utf8', timeout: 300_000, env: { ...process.env, npm_config_update_notifier: 'false' } });
    if (cli.status !== 0) {
      if (process.env.CI) assert.fail(`npx prettier@${version}: ${cli.stderr}`);
      t.skip(`prettier ${version} could not be run from the registry here`);
      return;
    }
    const cliWrote = readFileSync(join(root, 'gen/a.ts'), 'utf8');
    assert.equal(cliWrote === unformatted, version === '3.3.3', `prettier ${version} ${version === '3.3.3' ? 'leaves the ignored file alone' : 'formats it'}`);
    writeTree(root, { 'gen/a.ts': unformatted });
    const runtime = createRuntime({ root, pinned: false });
    try {
      const receipt = await runtime.format({ path: 'gen/a.ts' });
      if (version === '3.3.3') assert.match(receipt.line, /listed in \.gitignore \(Prettier 3 reads the root \.gitignore\)/, receipt.line);
      else assert.equal(receipt.status, 'formatted', receipt.line);
    } finally {
      await runtime.close();
    }
  }
});
