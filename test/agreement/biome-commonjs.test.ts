// Agreement: `.js` files in a package whose package.json says `"type": "commonjs"` (what `npm init -y`
// writes), formatted by formatbox and by Biome's own CLI (the installed @biomejs/biome, whose version
// is the shipped wasm's), on real ESM and CommonJS files read from installed packages. The CLI parses
// them as scripts: ESM syntax is a parse error there, and formatbox must fail those same files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRuntime } from '../../src/node/index.js';
import { writeTree } from '../write-tree.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const SOURCES = ['node_modules/@modelcontextprotocol/sdk/dist/esm', 'node_modules/@modelcontextprotocol/sdk/dist/cjs', 'node_modules/semver', 'node_modules/yaml/browser/dist', 'node_modules/diff/libesm'];

function jsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    const stat = statSync(full);
    if (stat.isDirectory()) out.push(...jsFiles(full));
    else if (name.endsWith('.js') && stat.size < 24 * 1024) out.push(full);
  }
  return out;
}

test('a .js file in a "type": "commonjs" package is formatted, or refused, as Biome\'s CLI does', async (t) => {
  const files = SOURCES.flatMap((dir) => jsFiles(join(repo, dir))).slice(0, 240);
  assert.ok(files.length >= 200, `${files.length} files`);
  const base = mkdtempSync(join(tmpdir(), 'fb-cjs-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const layout: Record<string, string> = { '.git/': '', 'package.json': JSON.stringify({ name: 'x', version: '1.0.0', type: 'commonjs' }), 'biome.json': '{}\n', 'esm/package.json': '{}\n' };
  // Half the files sit in a nested package without "type": a module again, as the CLI reads it.
  files.forEach((file, index) => {
    layout[`${index % 2 ? 'esm' : 'src'}/${String(index).padStart(3, '0')}.js`] = readFileSync(file, 'utf8');
  });
  const ours = join(base, 'ours');
  const theirs = join(base, 'theirs');
  writeTree(ours, layout);
  cpSync(ours, theirs, { recursive: true });

  const cli = spawnSync(join(repo, 'node_modules/.bin/biome'), ['format', '--write', '--max-diagnostics=none', '--colors=off', 'src', 'esm'], { cwd: theirs, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const cliParseErrors = new Set([...`${cli.stdout}${cli.stderr}`.matchAll(/^((?:src|esm)\/\d+\.js):\d+:\d+ parse/gm)].map((m) => m[1]!));
  assert.ok(cliParseErrors.size > 20, `the CLI refuses ESM files of the CommonJS package (${cliParseErrors.size})`);
  assert.ok([...cliParseErrors].every((file) => file.startsWith('src/')), 'only in the CommonJS package');

  const runtime = createRuntime({ root: ours });
  const failed = new Set<string>();
  try {
    for (const path of Object.keys(layout).filter((p) => p.endsWith('.js'))) {
      const receipt = await runtime.format({ path });
      if (receipt.status === 'failed') {
        failed.add(path);
        if (path.startsWith('src/')) assert.match(receipt.line, /outside of a module/, path);
      } else assert.ok(receipt.status === 'formatted' || receipt.status === 'unchanged', `${path}: ${receipt.line}`);
    }
  } finally {
    await runtime.close();
  }
  assert.deepEqual([...failed].sort(), [...cliParseErrors].sort());
  let same = 0;
  for (const path of Object.keys(layout).filter((p) => p.endsWith('.js'))) {
    assert.equal(readFileSync(join(ours, path), 'utf8'), readFileSync(join(theirs, path), 'utf8'), relative(base, join(ours, path)));
    same++;
  }
  assert.ok(same >= 200);
  writeFileSync(join(base, 'done'), String(same));
});
