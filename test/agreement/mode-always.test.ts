/**
 * `mode: 'always'`: every language a shipped formatter formats has a default, and the default's bytes
 * are the real tool's: Prettier's API with the same plugin for PHP and XML/SVG, the dprint CLI with the
 * same dockerfile plugin for a Dockerfile.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as prettier from 'prettier';
import * as phpPlugin from '@prettier/plugin-php';
import xmlPlugin from '@prettier/plugin-xml';
import { createEngine } from '../../src/engine/engine.js';
import { LANGUAGE_BY_EXTENSION } from '../../src/core/languages.js';
import { createBuiltinAdapters, resolvePackageFile } from '../../src/node/builtins.js';

const adapters = createBuiltinAdapters();
const engine = createEngine({ formatters: adapters, projectFiles: {}, config: { mode: 'always' } });

test("every language a built-in formatter declares has a default in mode 'always'", async () => {
  const shipped = new Set(adapters.flatMap((adapter) => [...adapter.languages]));
  const sampleFor = (language: string) => (language === 'dockerfile' ? 'Dockerfile' : `a.${Object.keys(LANGUAGE_BY_EXTENSION).find((ext) => LANGUAGE_BY_EXTENSION[ext] === language)}`);
  const without: string[] = [];
  for (const language of shipped) {
    if (!Object.values(LANGUAGE_BY_EXTENSION).includes(language) && language !== 'dockerfile') continue;
    const outcome = await engine.format({ path: sampleFor(language), text: 'x\n' });
    if (/no formatter declared/.test(outcome.line)) without.push(language);
  }
  assert.deepEqual(without, []);
  assert.ok(shipped.has('php') && shipped.has('xml') && shipped.has('dockerfile'), [...shipped].join(' '));
});

test("mode 'always': PHP and XML/SVG as Prettier's API formats them with the same plugin", async () => {
  const cases: Array<[string, string, unknown]> = [
    ['src/a.php', '<?php\nfunction f($a,$b){return $a+$b;}\n', phpPlugin],
    ['a.xml', '<root><a   x="1">t</a><b/></root>\n', xmlPlugin],
    ['icons/i.svg', '<svg xmlns="http://www.w3.org/2000/svg"><path   d="M0 0"/></svg>\n', xmlPlugin],
  ];
  for (const [path, text, plugin] of cases) {
    const expected = await prettier.format(text, { filepath: path, plugins: [plugin as prettier.Plugin] });
    assert.notEqual(expected, text);
    const outcome = await engine.format({ path, text });
    assert.equal(outcome.status, 'formatted', outcome.line);
    assert.equal(outcome.content, expected, path);
  }
});

test("mode 'always': a Dockerfile as the dprint CLI formats it with the same dockerfile plugin", async () => {
  const text = 'FROM   debian:12\nRUN apt-get update &&    apt-get install -y curl\nCOPY  . /app\n';
  const dir = mkdtempSync(join(tmpdir(), 'fb-always-docker-'));
  try {
    writeFileSync(join(dir, 'dprint.json'), JSON.stringify({ plugins: [resolvePackageFile('@dprint/dockerfile/plugin.wasm')] }));
    writeFileSync(join(dir, 'Dockerfile'), text);
    const run = spawnSync(join(process.cwd(), 'node_modules/.bin/dprint'), ['fmt', 'Dockerfile'], { cwd: dir, encoding: 'utf8', env: { ...process.env, DPRINT_CACHE_DIR: `${dir}/cache`, NO_COLOR: '1' } });
    assert.equal(run.status, 0, run.stderr);
    const expected = readFileSync(join(dir, 'Dockerfile'), 'utf8');
    assert.notEqual(expected, text);
    const outcome = await engine.format({ path: 'Dockerfile', text });
    assert.equal(outcome.status, 'formatted', outcome.line);
    assert.equal(outcome.content, expected);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
