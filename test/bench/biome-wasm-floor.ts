/**
 * The floor under `formatbox format` on a Biome project: Biome's wasm build alone formatting every
 * file below a directory, in this one thread, with no file system work, no engine and no worker.
 * Prints `{"files": N, "ms": T}` (formatting only; the compile and first call excluded).
 *
 *   node --liftoff-only --import tsx test/bench/biome-wasm-floor.ts DIR
 * (`--liftoff-only`, as the CLI's `format` runs.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { biomeFormatter } from '../../src/formatters/biome.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: biome-wasm-floor.ts DIR');
const require = createRequire(import.meta.url);
const adapter = biomeFormatter({ wasm: readFileSync(require.resolve('@biomejs/wasm-web/biome_wasm_bg.wasm')) });
const settings = JSON.parse(readFileSync(join(dir, 'biome.json'), 'utf8')) as unknown;
const files = (readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<{ isFile(): boolean; name: string; parentPath?: string; path?: string }>)
  .filter((entry) => entry.isFile() && /\.(ts|tsx|js|mjs|cjs)$/.test(entry.name))
  .map((entry) => join(entry.parentPath ?? entry.path!, entry.name).slice(dir.length + 1))
  .sort();
const texts = files.map((file) => readFileSync(join(dir, file), 'utf8'));
await adapter.format({ path: 'warm.js', text: 'a\n', language: 'javascript', settings });
const started = performance.now();
for (const [i, file] of files.entries()) {
  const result = await adapter.format({ path: file, text: texts[i]!, language: /\.tsx?$/.test(file) ? 'typescript' : 'javascript', settings });
  if (result.kind !== 'ok') throw new Error(`${file}: ${result.kind}`);
}
console.log(JSON.stringify({ files: files.length, ms: Math.round(performance.now() - started) }));
