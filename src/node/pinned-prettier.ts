/**
 * Worker entry for a pinned Prettier 3 version: the standalone build and its own language plugins
 * from a verified store entry (formatter-store/), run in a formatter worker as the shipped Prettier
 * is. The runtime loads this module as `pinned-prettier.js?dir=<the entry's package directory>`.
 * Only standalone and plugin files are imported: Prettier's Node entry (config search, plugin
 * resolution) never runs, so nothing from the repository is loaded.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FormatterAdapter } from '../core/types.js';
import { workerModuleUrl, workerParams } from './worker-module-url.js';
import { prettierFormatter, type PrettierPluginName } from '../formatters/prettier/adapter.js';

function pinnedPrettierFormatter(packageDir: string): FormatterAdapter {
  const load = (file: string): Promise<unknown> => import(pathToFileURL(join(packageDir, file)).href);
  return prettierFormatter({
    modules: {
      standalone: () => load('standalone.mjs'),
      plugin: (name: PrettierPluginName) => load(`plugins/${name}.mjs`),
    },
  });
}

export function createAdapters(): FormatterAdapter[] {
  const { dir } = workerParams(import.meta.url, ['dir']);
  return [pinnedPrettierFormatter(dir)];
}

/** The module URL the runtime hands to a worker pool for the Prettier build in `packageDir`. */
export function pinnedPrettierModuleUrl(packageDir: string): string {
  return workerModuleUrl(import.meta.url, 'pinned-prettier', { dir: packageDir });
}
