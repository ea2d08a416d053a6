/**
 * The universal entry's wasm in Node, whose `fetch` cannot read `file:` URLs:
 * `createFormatters(wasmFiles())` reads each module from formatbox's own `wasm/` directory (or `dir`)
 * on first use.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_WASM_FILES, type BuiltinWasmName } from '../formatters/builtins.js';

/** One loader per built-in module, reading `<dir>/<file>` (file names of `BUILTIN_WASM_FILES`). */
export function wasmFiles(dir?: string | URL): Record<BuiltinWasmName, () => Promise<Uint8Array>> {
  const root = dir === undefined ? packageWasmDir() : dir instanceof URL ? fileURLToPath(dir) : dir;
  const out = {} as Record<BuiltinWasmName, () => Promise<Uint8Array>>;
  for (const [name, file] of Object.entries(BUILTIN_WASM_FILES)) out[name as BuiltinWasmName] = () => readFile(join(root, file));
  return out;
}

/** formatbox's `wasm/` directory, found through the package's own name (works installed and in the repository). */
function packageWasmDir(): string {
  return join(dirname(createRequire(import.meta.url).resolve('formatbox/package.json')), 'wasm');
}
