// Agreement at the version a project pins: a project whose package.json pins @biomejs/biome 2.6.8
// (no wasm build: the official native CLI of 2.6.8 from the verified store, in bubblewrap), 2.5.14
// (the @biomejs/wasm-nodejs build of 2.5.14 from the store) or 2.4.15 (the shipped wasm), each with
// the config of that version's own `biome init`, is formatted by formatbox and by that version's own
// CLI (`npx -y @biomejs/biome@<v> format --write`) on a copy: more than 200 real JS and TS files read
// from installed packages, equal file for file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRuntime } from '../../src/node/index.js';
import { createPinnedFormatters } from '../../src/node/pinned-formatters.js';
import { createFormatterStore } from '../../src/node/formatter-store/store.js';
import { writeTree } from '../write-tree.js';
import { PINNED_CORPUS } from '../pinned-helpers.js';
import { detectSandbox } from '../../src/node/sandbox/index.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));

const FILES = PINNED_CORPUS;
const npx = (cwd: string, args: string[]) => spawnSync('npx', ['-y', ...args], { cwd, encoding: 'utf8', timeout: 300_000, env: { ...process.env, npm_config_update_notifier: 'false' } });

// 2.4.15 is the shipped wasm: no fetch, the receipt's version checked the same way.
const SHIPPED = JSON.parse(readFileSync(join(repo, 'node_modules/@biomejs/wasm-web/package.json'), 'utf8')).version as string;

for (const [version, via] of [['2.6.8', 'sandbox'], ['2.5.14', 'wasm'], [SHIPPED, 'wasm']] as const) {
  test(`a project pinning @biomejs/biome ${version} (its own biome init): formatbox's bytes equal that CLI's on ${FILES.length} real files (${via})`, async (t) => {
    assert.ok(FILES.length >= 200, `${FILES.length} files`);
    if (via === 'sandbox' && detectSandbox().unavailable) {
      if (process.env.CI) assert.fail(`no sandbox: ${detectSandbox().unavailable}`);
      t.skip(`no OS sandbox here for the native Biome ${version}: ${detectSandbox().unavailable}`);
      return;
    }
    const base = mkdtempSync(join(tmpdir(), `fb-pin-biome-${version}-`));
    t.after(() => rmSync(base, { recursive: true, force: true }));
    const layout: Record<string, string> = { '.git/': '', '.gitignore': 'node_modules\n', 'package.json': JSON.stringify({ name: 'x', devDependencies: { '@biomejs/biome': version } }) };
    FILES.forEach((file, index) => {
      layout[`src/${String(index).padStart(3, '0')}${file.endsWith('.ts') ? '.ts' : '.js'}`] = readFileSync(file, 'utf8');
    });
    const ours = join(base, 'ours');
    const theirs = join(base, 'theirs');
    writeTree(ours, layout);
    const init = npx(ours, [`@biomejs/biome@${version}`, 'init']);
    if (init.status !== 0) {
      if (process.env.CI) assert.fail(`biome ${version} init: ${init.stderr}`);
      t.skip(`Biome ${version} could not be run from the registry here`);
      return;
    }
    cpSync(ours, theirs, { recursive: true });
    const cli = npx(theirs, [`@biomejs/biome@${version}`, 'format', '--write', 'src']);
    assert.ok(cli.status === 0 || /parse/.test(cli.stdout + cli.stderr), `biome ${version} format: ${cli.stderr.slice(0, 400)}`);

    const pinned = createPinnedFormatters({ store: createFormatterStore({ dir: join(base, 'store') }), timeoutMs: 20_000, waitMs: 180_000 });
    const runtime = createRuntime({ root: ours, pinned });
    const paths = Object.keys(layout).filter((p) => p.startsWith('src/'));
    try {
      for (const path of paths) {
        const receipt = await runtime.format({ path });
        assert.equal(receipt.formatter?.version, version, `${path}: ${receipt.line}`);
        assert.equal(receipt.formatter?.via, via, receipt.line);
        assert.equal(receipt.formatter?.pinned, undefined, receipt.line);
      }
      const row = (await runtime.doctor()).versions.find((v) => v.formatter === 'biome');
      assert.equal(row?.willRun, version);
      assert.equal(row?.matches, true);
    } finally {
      await Promise.all([runtime.close(), pinned.close()]);
    }
    for (const path of paths) assert.equal(readFileSync(join(ours, path), 'utf8'), readFileSync(join(theirs, path), 'utf8'), `${path} differs from Biome ${version}'s CLI`);
    t.diagnostic(`${paths.length} files equal to @biomejs/biome ${version}'s CLI`);
  });
}
