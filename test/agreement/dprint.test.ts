// Agreement: formatbox's dprint plugins (TOML, Markdown, JSON) against the dprint CLI (npm's `dprint`)
// running the very same plugin wasm files, on real files, with a project dprint.json whose settings
// both read: formatbox reads it as data and selects the plugin from it; dprint formats in place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createEngine } from '../../src/engine/engine.js';
import { createBuiltinAdapters, resolvePackageFile } from '../../src/node/builtins.js';

const DPRINT = resolve('node_modules/.bin/dprint');
const LONG = process.env.FORMATBOX_LONG === '1';
const PER_KIND = LONG ? 400 : 60;

function walk(dir: string, keep: (name: string) => boolean, out: string[], limit: number): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    if (out.length >= limit) break;
    const full = join(dir, name);
    const stat = statSync(full, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isDirectory()) walk(full, keep, out, limit);
    else if (keep(name) && stat.size < 200_000) out.push(full);
  }
  return out;
}

function corpus(): Array<{ source: string; path: string }> {
  const markdown = walk('node_modules', (n) => n.endsWith('.md'), [], PER_KIND);
  const json = walk('node_modules', (n) => n === 'package.json', [], PER_KIND);
  const toml = [
    ...walk('/root/.cargo/registry/src', (n) => n === 'Cargo.toml', [], PER_KIND),
    ...walk('/root/.pyenv/versions/3.11.7/lib/python3.11/test/test_tomllib/data/valid', (n) => n.endsWith('.toml'), [], PER_KIND),
    ...walk('/usr/lib/google-cloud-sdk/platform/gsutil/third_party', (n) => n.endsWith('.toml'), [], 20),
  ].slice(0, PER_KIND);
  return [...markdown, ...json, ...toml].map((source, i) => ({ source, path: `f${i}/${source.split('/').pop()}` }));
}

test('the dprint plugins give byte-identical output to the dprint CLI with the same plugins and dprint.json', { timeout: 600_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'formatbox-dprint-'));
  try {
    const config = {
      lineWidth: 70,
      indentWidth: 3,
      markdown: { textWrap: 'always', emphasisKind: 'asterisks' },
      json: { indentWidth: 2, trailingCommas: 'never' },
      toml: { 'cargo.applyConventions': true },
      plugins: ['markdown', 'json', 'toml'].map((name) => resolvePackageFile(`@dprint/${name}/plugin.wasm`)),
      excludes: ['**/node_modules'],
    };
    const dprintJson = JSON.stringify(config, null, 2) + '\n';
    const files = corpus();
    assert.ok(files.length >= 100, `corpus: ${files.length} files`);
    const originals = new Map<string, string>();
    for (const { source, path } of files) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      copyFileSync(source, join(root, path));
      originals.set(path, readFileSync(source, 'utf8'));
    }
    writeFileSync(join(root, 'dprint.json'), dprintJson);
    const run = spawnSync(DPRINT, ['fmt', '--allow-no-files'], { cwd: root, encoding: 'utf8', env: { ...process.env, DPRINT_CACHE_DIR: join(root, '..', `${root.split('/').pop()}-cache`), NO_COLOR: '1' }, timeout: 300_000 });
    // dprint exits non-zero when some file does not parse; those files stay as they were.
    const unparsable = new Set([...run.stderr.matchAll(/Error formatting (\S+)/g)].map((m) => (m[1] as string).replace(`${root}/`, '')));

    const engine = createEngine({
      formatters: createBuiltinAdapters(),
      projectFiles: { 'dprint.json': dprintJson },
    });
    const stats = { identical: 0, changed: 0, failedBoth: 0, crlfKept: 0, withCodeBlocks: 0 };
    const mismatches: string[] = [];
    for (const { path } of files) {
      const ours = await engine.format({ path, text: originals.get(path)! });
      const theirs = readFileSync(join(root, path), 'utf8');
      if (ours.status === 'failed') {
        if (unparsable.has(path) || theirs === originals.get(path)) stats.failedBoth++;
        else mismatches.push(`${path}: formatbox failed (${ours.reason}), dprint formatted it`);
        continue;
      }
      assert.ok(ours.status === 'formatted' || ours.status === 'unchanged', `${path}: ${ours.line}`);
      assert.match(ours.formatter?.name ?? '', /dprint-plugin-(markdown|json|toml)/, path);
      if (ours.content === theirs) {
        stats.identical++;
        // A ```json or ```toml block: the CLI formats it with that plugin, and so does formatbox.
        if (path.endsWith('.md') && /^\s*(`{3,}|~{3,})\s*(json|jsonc|toml)\b[\s\S]*?^\s*\1/m.test(theirs) && theirs !== originals.get(path)) stats.withCodeBlocks++;
        if (theirs !== originals.get(path)) stats.changed++;
      } else if (originals.get(path)!.includes('\r\n') && ours.content.replace(/\r\n/g, '\n') === theirs) {
        // Known difference: a file keeps its own line endings in formatbox unless the config names
        // one; dprint's default newLineKind is lf. Everything else is identical.
        stats.crlfKept++;
      } else mismatches.push(`${path} (from ${files.find((f) => f.path === path)?.source})`);
    }
    console.log(`  dprint agreement: ${stats.identical}/${files.length} identical (${stats.changed} reformatted), ${stats.crlfKept} differ only in keeping the file's CRLF, ${stats.withCodeBlocks} reformatted Markdown files with JSON or TOML code blocks among the identical, ${stats.failedBoth} rejected by both, ${mismatches.length} unexplained mismatches`);
    assert.deepEqual(mismatches, []);
    assert.ok(stats.changed >= 30, `only ${stats.changed} files were reformatted: the settings did not bite`);
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(`${root}-cache`, { recursive: true, force: true });
  }
});

test('Markdown code blocks a listed plugin formatbox does not run would claim: the file is not formatted, saying which block', async () => {
  const markdown = '# T\n\n```ts\nconst  a = {b:1}\n```\n\n```py\nx  =  1\n```\n\n```json\n{"a":1,   "b":2}\n```\n';
  const format = async (plugins: string[], text = markdown) => {
    const engine = createEngine({ formatters: createBuiltinAdapters(), projectFiles: { 'dprint.json': JSON.stringify({ plugins }) } });
    return engine.format({ path: 'README.md', text });
  };
  const withTypescript = await format(['https://plugins.dprint.dev/markdown-0.17.8.wasm', 'https://plugins.dprint.dev/typescript-0.93.0.wasm', 'https://plugins.dprint.dev/json-0.19.4.wasm']);
  assert.equal(withTypescript.status, 'skipped', withTypescript.line);
  assert.match(withTypescript.line, /a ```ts code block, which the dprint CLI gives to the typescript plugin the config lists; formatbox does not run it/);
  assert.equal(withTypescript.content, markdown, 'left as written');
  // A block no listed plugin claims stays as written, as in the CLI: the Python block here.
  const noTs = await format(['https://plugins.dprint.dev/markdown-0.17.8.wasm', 'https://plugins.dprint.dev/typescript-0.93.0.wasm', 'https://plugins.dprint.dev/json-0.19.4.wasm'], markdown.replace('```ts\nconst  a = {b:1}\n```\n\n', ''));
  assert.equal(noTs.status, 'formatted', noTs.line);
  assert.match(noTs.content, /```py\nx {2}= {2}1\n```\n\n```json\n\{ "a": 1, "b": 2 \}\n```/);
  // A plugin of unknown kind may claim any block.
  const unknown = await format(['https://plugins.dprint.dev/markdown-0.17.8.wasm', 'https://example.com/some-plugin.wasm'], '```py\nx  =  1\n```\n');
  assert.equal(unknown.status, 'skipped', unknown.line);
  assert.match(unknown.line, /a ```py code block, which the dprint CLI gives to another plugin the config lists/);
});
