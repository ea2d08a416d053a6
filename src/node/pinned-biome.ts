/**
 * Worker entry for a pinned Biome version: the `@biomejs/wasm-nodejs` build of that version from a
 * verified store entry (formatter-store/), through the same adapter as the shipped Biome (2.x), or the
 * 1.x adapter for a 1.x build (another workspace API). Its own config loader (2.x) or its own
 * configuration schema and deserializer (1.x) judge the project's biome.json.
 * The runtime loads this module as `pinned-biome.js?dir=<the entry's package directory>&version=<v>`.
 */
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FormatterAdapter } from '../core/types.js';
import { workerModuleUrl, workerParams } from './worker-module-url.js';
import { biomeFormatter, type BiomeBindings } from '../formatters/biome/adapter.js';
import { biomeV1Formatter, type BiomeV1Bindings } from '../formatters/biome/adapter-v1.js';

function pinnedBiomeFormatter(packageDir: string, version: string): FormatterAdapter {
  // The nodejs build reads and instantiates its wasm when its glue is first required (in this worker).
  const load = async () => createRequire(join(packageDir, 'package.json'))(join(packageDir, 'biome_wasm.js')) as unknown;
  if (/^1\./.test(version)) {
    return biomeV1Formatter({ version, bindings: async () => (await load()) as BiomeV1Bindings, declarations: () => readFile(join(packageDir, 'biome_wasm.d.ts'), 'utf8') });
  }
  return biomeFormatter({ version, bindings: async () => (await load()) as BiomeBindings });
}

export function createAdapters(): FormatterAdapter[] {
  const { dir, version } = workerParams(import.meta.url, ['dir', 'version']);
  return [pinnedBiomeFormatter(dir, version)];
}

/** The module URL the runtime hands to a worker pool for the Biome build in `packageDir`. */
export function pinnedBiomeModuleUrl(packageDir: string, version: string): string {
  return workerModuleUrl(import.meta.url, 'pinned-biome', { dir: packageDir, version });
}
