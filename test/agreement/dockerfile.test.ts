// Agreement: Dockerfiles through formatbox's dprint-plugin-dockerfile (`@dprint/dockerfile`, selected
// by a dprint.json that lists the plugin) against the dprint CLI running the same plugin file, on the
// real Dockerfiles of this machine (Go's source tree, Debian's Rust crates, pyenv, the Cloud SDK).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createEngine } from '../../src/engine/engine.js';
import { createBuiltinAdapters, resolvePackageFile } from '../../src/node/builtins.js';

const DPRINT = resolve('node_modules/.bin/dprint');
const ROOTS = ['/usr/share/go-1.19/src', '/usr/lib/go-1.19/src', '/usr/share/cargo/registry', '/root/.pyenv/test', '/usr/lib/google-cloud-sdk/platform/ext-runtime'];

function dockerfiles(dir: string, out: string[] = [], depth = 0): string[] {
  if (depth > 12 || !existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    const stats = statSync(full, { throwIfNoEntry: false });
    if (!stats) continue;
    if (stats.isDirectory()) dockerfiles(full, out, depth + 1);
    else if (/^(Dockerfile|Containerfile)(\.[^/]*)?$|\.dockerfile$/i.test(name) && stats.size < 100_000) out.push(full);
  }
  return out;
}

test('Dockerfiles: byte-identical to the dprint CLI with the same plugin and dprint.json', { timeout: 300_000 }, async (t) => {
  const sources = [...new Set(ROOTS.flatMap((root) => dockerfiles(root)))];
  if (sources.length === 0 && !process.env.CI) {
    t.skip('no Dockerfile on this machine');
    return;
  }
  assert.ok(sources.length > 0, 'Go\'s source tree (golang-go) ships Dockerfiles');
  const root = mkdtempSync(join(tmpdir(), 'formatbox-dockerfile-'));
  try {
    const config = { lineWidth: 80, dockerfile: {}, plugins: [resolvePackageFile('@dprint/dockerfile/plugin.wasm')] };
    const dprintJson = `${JSON.stringify(config, null, 2)}\n`;
    writeFileSync(join(root, 'dprint.json'), dprintJson);
    const files = sources.map((source, i) => ({ source, path: `d${i}/${source.split('/').pop()}` }));
    for (const { source, path } of files) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      copyFileSync(source, join(root, path));
    }
    const run = spawnSync(DPRINT, ['fmt', '--allow-no-files', ...files.map((f) => f.path)], { cwd: root, encoding: 'utf8', env: { ...process.env, DPRINT_CACHE_DIR: `${root}-cache`, NO_COLOR: '1' }, timeout: 120_000 });
    const unparsable = new Set([...run.stderr.matchAll(/Error formatting (\S+)/g)].map((m) => (m[1] as string).replace(`${root}/`, '')));
    const engine = createEngine({ formatters: createBuiltinAdapters(), projectFiles: { 'dprint.json': dprintJson } });
    let identical = 0;
    let changed = 0;
    let failedBoth = 0;
    let skippedBoth = 0;
    const mismatches: string[] = [];
    for (const { source, path } of files) {
      const original = readFileSync(source, 'utf8');
      const ours = await engine.format({ path, text: original });
      const theirs = readFileSync(join(root, path), 'utf8');
      if (ours.status === 'failed') {
        if (unparsable.has(path) || theirs === original) failedBoth++;
        else mismatches.push(`${source}: formatbox failed (${ours.reason})`);
        continue;
      }
      if (ours.status === 'skipped') {
        // `Dockerfile.template`: neither the plugin's file matching nor formatbox takes it.
        assert.equal(theirs, original, `${source}: dprint formatted a file formatbox skipped`);
        skippedBoth++;
        continue;
      }
      assert.equal(ours.formatter?.name, 'dprint-plugin-dockerfile', `${source}: ${ours.line}`);
      if (ours.content === theirs) {
        identical++;
        if (theirs !== original) changed++;
      } else mismatches.push(source);
    }
    console.log(`  # Dockerfiles: ${identical}/${files.length - skippedBoth} identical to the dprint CLI (${changed} reformatted), ${skippedBoth} left alone by both (not named Dockerfile or *.dockerfile), ${failedBoth} rejected by both`);
    assert.deepEqual(mismatches, []);
    await engine.dispose();
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(`${root}-cache`, { recursive: true, force: true });
  }
});
