/**
 * Worker entry for a pinned Prettier version (3, or 2.2 and later): the standalone build and its own language plugins
 * from a verified store entry (formatter-store/), run in a formatter worker as the shipped Prettier
 * is. The runtime loads this module as `pinned-prettier.js?dir=<the entry's package directory>`.
 * Only standalone and plugin files are imported: Prettier's Node entry (config search, plugin
 * resolution) never runs, so nothing from the repository is loaded.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FormatterAdapter } from '../core/types.js';
import { workerModuleUrl, workerParams } from './worker-module-url.js';
import { prettierFormatter, type PrettierPluginName } from '../formatters/prettier/adapter.js';

function pinnedPrettierFormatter(packageDir: string): FormatterAdapter {
  const load = (file: string): Promise<unknown> => import(pathToFileURL(join(packageDir, file)).href);
  if (majorOf(packageDir) === 2) {
    // Prettier 2 (2.2 and later): esm/standalone.mjs and esm/parser-<name>.mjs, each a default
    // export. Its printers are inside standalone (no estree plugin), and acorn is in parser-espree.
    const loadDefault = async (file: string): Promise<unknown> => ((await load(file)) as { default: unknown }).default;
    return prettierFormatter({
      modules: {
        standalone: () => loadDefault('esm/standalone.mjs'),
        plugin: (name: PrettierPluginName) => (name === 'estree' ? Promise.resolve({}) : loadDefault(`esm/parser-${name === 'acorn' ? 'espree' : name}.mjs`)),
      },
    });
  }
  return prettierFormatter({
    modules: {
      standalone: () => load('standalone.mjs'),
      plugin: (name: PrettierPluginName) => load(`plugins/${name}.mjs`),
    },
  });
}

/** The major version of the Prettier build in `packageDir` (the store verified the directory). */
function majorOf(packageDir: string): number {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version?: unknown };
  return Number.parseInt(String(manifest.version), 10);
}

export function createAdapters(): FormatterAdapter[] {
  const { dir } = workerParams(import.meta.url, ['dir']);
  return [pinnedPrettierFormatter(dir)];
}

/** The module URL the runtime hands to a worker pool for the Prettier build in `packageDir`. */
export function pinnedPrettierModuleUrl(packageDir: string): string {
  return workerModuleUrl(import.meta.url, 'pinned-prettier', { dir: packageDir });
}
