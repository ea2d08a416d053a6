// Agreement at the version a dprint project pins: a dprint.json that lists
// `https://plugins.dprint.dev/markdown-0.17.8.wasm` and `json-0.19.4.wasm` is formatted by formatbox,
// which fetches `@dprint/markdown@0.17.8` and `@dprint/json@0.19.4` from the real registry into its
// verified store, and by the dprint CLI (npm's `dprint`) given those same plugin files and settings,
// on real READMEs and package.json files of installed packages: equal, file for file. The shipped
// plugins (newer) format some of them differently, so the pin is what makes them agree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeTree } from '../write-tree.js';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRuntime } from '../../src/node/index.js';
import { createPinnedFormatters } from '../../src/node/pinned-formatters.js';
import { createFormatterStore } from '../../src/node/formatter-store/store.js';
import { fetchOrSkip, PINNED_MARKDOWN, threeCopies } from '../pinned-helpers.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const DPRINT = resolve(repo, 'node_modules/.bin/dprint');
const PINS = { markdown: '0.17.8', json: '0.19.4' } as const;
const SETTINGS = { lineWidth: 70, markdown: { textWrap: 'always' }, json: { indentWidth: 3 } };

/** Real package.json files of installed packages. */
const PACKAGE_JSONS = readdirSync(join(repo, 'node_modules')).filter((name) => !name.startsWith('.') && !name.startsWith('@')).sort().slice(0, 40).map((name) => join(repo, 'node_modules', name, 'package.json'));

test(`a dprint project pinning markdown ${PINS.markdown} and json ${PINS.json}: formatbox's bytes equal the dprint CLI's with those plugins`, async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'fb-pin-dprint-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const store = createFormatterStore({ dir: join(base, 'store') });
  const markdownPlugin = await fetchOrSkip(t, store, '@dprint/markdown', PINS.markdown);
  const jsonPlugin = await fetchOrSkip(t, store, '@dprint/json', PINS.json);
  if (!markdownPlugin || !jsonPlugin) return;

  const layout: Record<string, string> = { '.git/': '', 'dprint.json': JSON.stringify({ ...SETTINGS, plugins: [`https://plugins.dprint.dev/markdown-${PINS.markdown}.wasm`, `https://plugins.dprint.dev/json-${PINS.json}.wasm`] }) };
  PINNED_MARKDOWN.forEach((file, index) => (layout[`docs/${String(index).padStart(3, '0')}.md`] = readFileSync(file, 'utf8')));
  PACKAGE_JSONS.forEach((file, index) => (layout[`data/${String(index).padStart(3, '0')}.json`] = readFileSync(file, 'utf8')));
  const { ours, theirs, withShipped } = threeCopies(base, layout);
  // The CLI gets the same plugin versions as files (it would download the URLs; this machine has only the npm registry).
  writeFileSync(join(theirs, 'dprint.json'), JSON.stringify({ ...SETTINGS, plugins: [join(markdownPlugin.dir, 'plugin.wasm'), join(jsonPlugin.dir, 'plugin.wasm')] }));
  const cli = spawnSync(DPRINT, ['fmt', '--allow-no-files'], { cwd: theirs, encoding: 'utf8', timeout: 300_000, env: { ...process.env, DPRINT_CACHE_DIR: join(base, 'dprint-cache'), NO_COLOR: '1' } });
  const unparsable = new Set([...cli.stderr.matchAll(/Error formatting (\S+)/g)].map((m) => (m[1] as string).replace(`${theirs}/`, '')));

  const pinned = createPinnedFormatters({ store, timeoutMs: 20_000, waitMs: 120_000 });
  const runtime = createRuntime({ root: ours, pinned });
  const offline = createRuntime({ root: withShipped, pinned: false });
  const paths = Object.keys(layout).filter((p) => p.startsWith('docs/') || p.startsWith('data/'));
  const counts = { equal: 0, codeBlocksSkipped: 0, failedBoth: 0, differsFromShipped: 0 };
  try {
    for (const path of paths) {
      const receipt = await runtime.format({ path });
      const plugin = path.endsWith('.md') ? 'markdown' : 'json';
      if (receipt.status === 'skipped') {
        // A ```json block: the CLI formats it with the json plugin, which a pinned markdown build runs without.
        assert.match(receipt.line, /code block, which the dprint CLI gives to the json plugin the config lists/, `${path}: ${receipt.line}`);
        counts.codeBlocksSkipped++;
        continue;
      }
      if (receipt.status === 'failed') {
        assert.ok(unparsable.has(path), `${path}: formatbox failed (${receipt.line}), the CLI did not`);
        counts.failedBoth++;
        continue;
      }
      assert.equal(receipt.formatter?.name, `dprint-plugin-${plugin}`, receipt.line);
      assert.equal(receipt.formatter?.version, PINS[plugin], `${path}: ${receipt.line}`);
      assert.equal(readFileSync(join(ours, path), 'utf8'), readFileSync(join(theirs, path), 'utf8'), `${path} differs from the dprint CLI with ${plugin} ${PINS[plugin]}`);
      counts.equal++;
      const shipped = await offline.format({ path });
      assert.match(shipped.line, new RegExp(`; the project pins ${PINS[plugin].replace(/\./g, '\\.')}`), shipped.line);
      if (readFileSync(join(withShipped, path), 'utf8') !== readFileSync(join(theirs, path), 'utf8')) counts.differsFromShipped++;
    }
  } finally {
    await Promise.all([runtime.close(), offline.close(), pinned.close()]);
  }
  t.diagnostic(`${counts.equal} files equal to the dprint CLI with the pinned plugins; ${counts.codeBlocksSkipped} Markdown files skipped for a JSON code block; ${counts.failedBoth} rejected by both; the shipped plugins would have written ${counts.differsFromShipped} of the equal ones differently`);
  assert.ok(counts.equal >= 60, `only ${counts.equal} files compared`);
  assert.ok(counts.differsFromShipped > 0, 'the shipped plugins agree with the pinned ones on every file: this corpus does not show the pin matters');
});

test('a dprint plugin URL with a checksum: the fetched build runs only when its wasm has that sha256', async (t) => {
  const base = mkdtempSync(join(tmpdir(), 'fb-pin-dprint-sum-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const store = createFormatterStore({ dir: join(base, 'store') });
  const plugin = await fetchOrSkip(t, store, '@dprint/json', PINS.json);
  if (!plugin) return;
  const sha256 = createHash('sha256').update(readFileSync(join(plugin.dir, 'plugin.wasm'))).digest('hex');
  const pinned = createPinnedFormatters({ store, timeoutMs: 20_000, waitMs: 120_000 });
  try {
    for (const [checksum, runs] of [[sha256, PINS.json], ['0'.repeat(64), undefined]] as const) {
      const root = join(base, checksum.slice(0, 8));
      writeTree(root, { '.git/': '', 'dprint.json': JSON.stringify({ plugins: [`https://plugins.dprint.dev/json-${PINS.json}.wasm@${checksum}`] }), 'a.json': '{"a":1}\n' });
      const runtime = createRuntime({ root, pinned });
      try {
        const receipt = await runtime.format({ path: 'a.json' });
        if (runs) assert.equal(receipt.formatter?.version, runs, receipt.line);
        else {
          assert.notEqual(receipt.formatter?.version, PINS.json, receipt.line);
          assert.match(receipt.line, new RegExp(`the project pins ${PINS.json.replace(/\./g, '\\.')}: the registry's plugin\\.wasm of this version has sha256 ${sha256.slice(0, 12)}…, not the 000000000000… the project's config names`), receipt.line);
        }
      } finally {
        await runtime.close();
      }
    }
  } finally {
    await pinned.close();
  }
});

