/**
 * Worker entry for a pinned Biome version: the `@biomejs/wasm-nodejs` build of that version from a
 * verified store entry (formatter-store/), through the same adapter as the shipped Biome. Its own
 * config loader judges the project's biome.json, so a config valid for the pinned Biome is accepted.
 * The runtime loads this module as `pinned-biome.js?dir=<the entry's package directory>&version=<v>`.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { FormatterAdapter } from '../core/types.js';
import { workerModuleUrl, workerParams } from './worker-module-url.js';
import { biomeFormatter, type BiomeBindings } from '../formatters/biome/adapter.js';

function pinnedBiomeFormatter(packageDir: string, version: string): FormatterAdapter {
  return biomeFormatter({
    version,
    // The nodejs build reads and instantiates its wasm when its glue is first required (in this worker).
    bindings: async () => createRequire(join(packageDir, 'package.json'))(join(packageDir, 'biome_wasm.js')) as BiomeBindings,
  });
}

export function createAdapters(): FormatterAdapter[] {
  const { dir, version } = workerParams(import.meta.url, ['dir', 'version']);
  return [pinnedBiomeFormatter(dir, version)];
}

/** The module URL the runtime hands to a worker pool for the Biome build in `packageDir`. */
export function pinnedBiomeModuleUrl(packageDir: string, version: string): string {
  return workerModuleUrl(import.meta.url, 'pinned-biome', { dir: packageDir, version });
}
