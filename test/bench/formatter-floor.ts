/**
 * The floor under `formatbox format`: one formatter alone formatting every JS/TS file below a
 * directory, in this one thread, with no file system work, no engine and no worker.
 *   biome:    Biome's wasm build (the floor for any pool of Biome wasm workers: ÷ threads)
 *   prettier: Prettier's JS API (what one Prettier thread can do at best)
 * Prints `{"files": N, "ms": T}` (formatting only; the load and a first call excluded).
 *
 *   node FLAGS --import tsx test/bench/formatter-floor.ts biome|prettier DIR
 * (FLAGS: FORMAT_V8_FLAGS of src/cli/v8-flags.ts, as the CLI's `format` runs; the bench passes them.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as prettier from 'prettier';
import { biomeFormatter } from '../../src/formatters/biome/adapter.js';

const [which, dir] = process.argv.slice(2);
if ((which !== 'biome' && which !== 'prettier') || !dir) throw new Error('usage: formatter-floor.ts biome|prettier DIR');
const files = (readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<{ isFile(): boolean; name: string; parentPath?: string; path?: string }>)
  .filter((entry) => entry.isFile() && /\.(ts|tsx|js|mjs|cjs)$/.test(entry.name))
  .map((entry) => join(entry.parentPath ?? entry.path!, entry.name).slice(dir.length + 1))
  .sort();
const texts = files.map((file) => readFileSync(join(dir, file), 'utf8'));
const format = which === 'biome' ? biomeFormat() : prettierFormat();
await format('warm.js', 'a\n');
const started = performance.now();
for (const [i, file] of files.entries()) await format(file, texts[i]!);
console.log(JSON.stringify({ files: files.length, ms: Math.round(performance.now() - started) }));

function biomeFormat(): (file: string, text: string) => Promise<void> {
  const require = createRequire(import.meta.url);
  const adapter = biomeFormatter({ wasm: readFileSync(require.resolve('@biomejs/wasm-web/biome_wasm_bg.wasm')) });
  const settings = JSON.parse(readFileSync(join(dir!, 'biome.json'), 'utf8')) as Record<string, unknown>;
  return async (file, text) => {
    const result = await adapter.format({ path: file, text, language: /\.tsx?$/.test(file) ? 'typescript' : 'javascript', settings });
    if (result.kind !== 'ok') throw new Error(`${file}: ${result.kind}`);
  };
}

function prettierFormat(): (file: string, text: string) => Promise<void> {
  const options = JSON.parse(readFileSync(join(dir!, '.prettierrc'), 'utf8')) as prettier.Options;
  return async (file, text) => {
    await prettier.format(text, { ...options, filepath: file });
  };
}
