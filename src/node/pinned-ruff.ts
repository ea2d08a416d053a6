/**
 * Worker entry for a pinned Ruff version: the `@astral-sh/ruff-wasm-nodejs` build of that version
 * from a verified store entry (formatter-store/), through the same adapter as the shipped Ruff (its
 * own loader judges the project's Ruff table). Stubs and ranges need `@wasm-fmt/ruff_fmt`, which is
 * Ruff 0.15: at a pinned version `.pyi` files are left alone and a range formats the whole file.
 * The runtime loads this module as `pinned-ruff.js?dir=<the entry's package directory>`.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { FormatterAdapter } from '../core/types.js';
import { workerModuleUrl, workerParams } from './worker-module-url.js';
import { ruffFormatter } from '../formatters/ruff/adapter.js';
import type { RuffBindings } from '../formatters/ruff/config-check.js';

function pinnedRuffFormatter(packageDir: string): FormatterAdapter {
  return ruffFormatter({
    // The nodejs build reads and instantiates its wasm when its glue is first required (in this worker).
    bindings: async () => createRequire(join(packageDir, 'package.json'))(join(packageDir, 'ruff_wasm.js')) as RuffBindings,
  });
}

export function createAdapters(): FormatterAdapter[] {
  const { dir } = workerParams(import.meta.url, ['dir']);
  return [pinnedRuffFormatter(dir)];
}

/** The module URL the runtime hands to a worker pool for the Ruff build in `packageDir`. */
export function pinnedRuffModuleUrl(packageDir: string): string {
  return workerModuleUrl(import.meta.url, 'pinned-ruff', { dir: packageDir });
}
