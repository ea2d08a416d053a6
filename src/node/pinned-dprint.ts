/**
 * Worker entry for a pinned dprint plugin version: `@dprint/<plugin>`'s `plugin.wasm` of that version
 * from a verified store entry (formatter-store/), through the same adapter as the shipped plugin. The
 * plugins that format Markdown's code blocks are not given at a pinned version, so a block one of the
 * config's plugins would claim makes the file skipped instead of formatted with another version.
 * The runtime loads this module as `pinned-dprint.js?dir=<the entry's package directory>&section=<plugin>`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FormatterAdapter } from '../core/types.js';
import { workerModuleUrl, workerParams } from './worker-module-url.js';
import { dprintPluginFormatter } from '../formatters/dprint/adapter.js';
import { DPRINT_PLUGIN_LANGUAGES, type DprintPluginName } from '../formatters/dprint/config.js';

export function createAdapters(): FormatterAdapter[] {
  const { dir, section } = workerParams(import.meta.url, ['dir', 'section']);
  const languages = Object.hasOwn(DPRINT_PLUGIN_LANGUAGES, section) ? DPRINT_PLUGIN_LANGUAGES[section as DprintPluginName] : undefined;
  if (!languages) throw new Error(`no dprint plugin ${section}`);
  // Named as the plugin names itself: the name the engine asks the pinned build for.
  return [dprintPluginFormatter({ wasm: readFileSync(join(dir, 'plugin.wasm')), name: `dprint-plugin-${section}`, section, languages })];
}

/** The module URL the runtime hands to a worker pool for the dprint plugin build in `packageDir`. */
export function pinnedDprintModuleUrl(packageDir: string, section: string): string {
  return workerModuleUrl(import.meta.url, 'pinned-dprint', { dir: packageDir, section });
}
