/**
 * A `deps.format` for afterEdit backed by the real adapters (Prettier JS, Biome wasm, Ruff wasm,
 * gofmt wasm, dprint TOML wasm), without the engine's config selection: the test picks the adapter.
 * BOM and line endings as the engine does (src/core/text.ts applyLineEnding: the formatter's own ending).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { prettierFormatter } from '../../src/formatters/prettier/adapter.js';
import { biomeFormatter } from '../../src/formatters/biome/adapter.js';
import { ruffFormatter } from '../../src/formatters/ruff/adapter.js';
import { gofmtFormatter } from '../../src/formatters/gofmt/adapter.js';
import { tomlFormatter } from '../../src/formatters/toml/adapter.js';
import { languageOf } from '../../src/core/languages.js';
import { applyLineEnding, normaliseForFormatter, rangeToNormalised } from '../../src/core/text.js';
import type { FormatOutcome, FormatterAdapter, Utf16Range } from '../../src/core/types.js';
import type { AfterEditDeps } from '../../src/reconcile/index.js';

const require = createRequire(import.meta.url);
const bytes = (specifier: string) => () => Promise.resolve(readFileSync(require.resolve(specifier)));

let adapters: Record<string, FormatterAdapter> | undefined;

export function realAdapters(): Record<string, FormatterAdapter> {
  adapters ??= {
    prettier: prettierFormatter(),
    biome: biomeFormatter({ wasm: bytes('@biomejs/wasm-web/biome_wasm_bg.wasm') }),
    ruff: ruffFormatter({ wasm: bytes('@astral-sh/ruff-wasm-web/ruff_wasm_bg.wasm') }),
    gofmt: gofmtFormatter({ wasm: bytes('@wasm-fmt/gofmt/gofmt.wasm') }),
    toml: tomlFormatter({ wasm: bytes('@dprint/toml/plugin.wasm') }),
  };
  return adapters;
}

/** Formats with the named adapter; counts calls. Mirrors the engine's outcome shape. */
export function formatWith(name: string, settings: Record<string, unknown> = {}): AfterEditDeps['format'] & { calls: number; ranges: Array<Utf16Range | undefined> } {
  const fn = async (path: string, text: string, range?: Utf16Range): Promise<FormatOutcome> => {
    fn.calls++;
    fn.ranges.push(range);
    const adapter = realAdapters()[name];
    if (!adapter) throw new Error(`no adapter ${name}`);
    const info = await adapter.info();
    const prepared = normaliseForFormatter(text);
    const useRange = range && adapter.supportsRange ? rangeToNormalised(text, range) : undefined;
    const language = languageOf(path) ?? 'text';
    const result = await adapter.format({ path, language, text: prepared.text, settings, ...(useRange ? { range: useRange } : {}) });
    const scope = range && !adapter.supportsRange ? { scopeFallback: `${name} cannot format a range; formatted the whole file` } : {};
    if (result.kind !== 'ok') {
      return { path, status: 'failed', formatter: info, content: text, reason: JSON.stringify(result), line: `formatter failed (${name}): ${path}`, ms: 0, ...scope };
    }
    const content = applyLineEnding(text, result.text, result.lineEnding);
    if (content === text) return { path, status: 'unchanged', formatter: info, content, line: `already formatted (${info.name} ${info.version}, ${info.via}): ${path}`, ms: 0, ...scope };
    return { path, status: 'formatted', formatter: info, content, line: `formatted (${info.name} ${info.version}, ${info.via}): ${path}`, ms: 0, ...scope };
  };
  fn.calls = 0;
  fn.ranges = [] as Array<Utf16Range | undefined>;
  return fn;
}
