// The registry is the one list: what build.mjs derives from it is committed up to date, the engine's
// universal graph imports no formatter's adapter, and every built-in adapter belongs to a declaration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as esbuild from 'esbuild';
import { fileURLToPath } from 'node:url';
import { createBuiltinAdapters } from '../../src/node/builtins.js';
import { MODULES, moduleOfAdapter, DEFAULT_FORMATTER, WASM_ASSETS } from '../../src/formatters/derived.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

test("package.json's exports, typesVersions and files, and builtin-adapters.ts, are what the registry implies", async () => {
  const build = await import('../../build.mjs');
  assert.deepEqual(build.checkPackageShape(`${REPO}/package.json`, false, build.packageShape(), `${REPO}/src/formatters/builtin-adapters.ts`), []);
  for (const module of MODULES) assert.equal(build.WASM_ASSETS.filter((asset: { name: string }) => module.wasm.some((own) => own.name === asset.name)).length, module.wasm.length, module.id);
});

test('formatbox/core bundles every declaration and no adapter, builtin or wasm glue', async () => {
  const result = await esbuild.build({ absWorkingDir: REPO, entryPoints: ['src/entries/core.ts'], bundle: true, write: false, format: 'esm', platform: 'neutral', mainFields: ['browser', 'module', 'main'], conditions: ['browser', 'import', 'default'], metafile: true, logLevel: 'silent', outdir: 'unused' });
  const inputs = Object.keys(result.metafile.inputs);
  for (const module of MODULES) assert.ok(inputs.includes(`src/formatters/${module.id}/index.ts`), module.id);
  assert.deepEqual(inputs.filter((input) => /src\/formatters\/[^/]+\/(adapter|builtin)\.ts$|builtin-adapters|@wasm-fmt|@biomejs|@astral-sh|@dprint\/formatter|@johnnymorganz|sh-syntax|prettier\/standalone/.test(input)), []);
});

test('every built-in adapter is declared by its formatter, with the languages it formats', () => {
  const adapters = createBuiltinAdapters();
  assert.ok(adapters.length >= MODULES.length);
  for (const adapter of adapters) {
    const module = moduleOfAdapter(adapter.name);
    assert.ok(module, `${adapter.name} is in no declaration's adapterNames`);
    for (const language of adapter.languages) assert.ok(module.languages.includes(language), `${adapter.name}: ${language} not in ${module.id}'s languages`);
  }
  for (const module of MODULES) for (const name of module.adapterNames) assert.ok(adapters.some((a) => a.name === name), `${module.id} declares ${name}, no built-in gives it`);
  for (const [language, adapter] of Object.entries(DEFAULT_FORMATTER)) assert.ok(moduleOfAdapter(adapter)?.languages.includes(language), `${language} → ${adapter}`);
  assert.equal(new Set(WASM_ASSETS.map((asset) => asset.name)).size, WASM_ASSETS.length, 'wasm names are unique');
  assert.equal(new Set(WASM_ASSETS.map((asset) => asset.file)).size, WASM_ASSETS.length, 'wasm files are unique');
});
