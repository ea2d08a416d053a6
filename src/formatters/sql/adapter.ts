/**
 * SQL through `@wasm-fmt/sql_fmt` (sqlformat-rs compiled to wasm), chosen over `sql-formatter` by
 * measurement (test/bench/sql-choice.ts, 164 PostgreSQL extension scripts): sql_fmt formats all of
 * them, keeping every non-blank character, 161 idempotently; sql-formatter rejects all but 13
 * (psql meta-commands, PL/pgSQL bodies), in either of its postgresql and sql dialects.
 *
 * Chosen by the user config (`formatters: {sql: 'sql_fmt'}`) or `mode: 'always'`: SQL projects
 * declare no formatter config of their own. `settings` may carry sql_fmt's options (`uppercase`,
 * `indent_width`, `lines_between_queries`, …) and `.editorconfig`'s indentation. sqlformat drops
 * the final newline; a file that ended with one keeps it. No ranges.
 */
import { initSync as initSqlFmt, format as sqlFmtFormat } from '@wasm-fmt/sql_fmt/web';
import { compileWasm, lazy } from '../../core/wasm.js';
import { BUILTIN_WASM_IDENTITY } from '../wasm-identity.js';
import { messageOf } from '../../core/errors.js';
import type { AdapterRequest, AdapterResult, FormatterAdapter, FormatterInfo, WasmSource } from '../../core/types.js';

/** The `@wasm-fmt/sql_fmt` release (its wasm has no version export; a test checks the installed package). */
export const SQL_FMT_VERSION = '0.2.2';

const OPTIONS: Readonly<Record<string, 'number' | 'boolean' | 'string[]'>> = {
  indent_width: 'number',
  uppercase: 'boolean',
  lines_between_queries: 'number',
  ignore_case_convert: 'string[]',
  inline: 'boolean',
  max_inline_block: 'number',
  max_inline_arguments: 'number',
  max_inline_top_level: 'number',
  joins_as_top_level: 'boolean',
};

/** sql_fmt's config from settings: its own keys, and `indent_style`/`indent_size` as .editorconfig names them. */
export function sqlFmtConfig(settings: Record<string, unknown>): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  if (settings.indent_style === 'tab' || settings.indent_style === 'space') config.indent_style = settings.indent_style;
  if (typeof settings.indent_size === 'number') config.indent_width = settings.indent_size;
  for (const [key, kind] of Object.entries(OPTIONS)) {
    const value = settings[key];
    if (kind === 'string[]' ? Array.isArray(value) && value.every((v) => typeof v === 'string') : typeof value === kind) config[key] = value;
  }
  return config;
}

export function sqlFormatter(options: { wasm: WasmSource }): FormatterAdapter {
  const ready = lazy(async () => {
    initSqlFmt(await compileWasm(options.wasm, 'sql_fmt', BUILTIN_WASM_IDENTITY.sql_fmt));
  });
  return {
    name: 'sql_fmt',
    via: 'wasm',
    languages: ['sql'],
    supportsRange: false,

    async info(): Promise<FormatterInfo> {
      await ready.get();
      return { name: 'sql_fmt', version: SQL_FMT_VERSION, via: 'wasm' };
    },

    async format(request: AdapterRequest): Promise<AdapterResult> {
      await ready.get();
      try {
        const text = sqlFmtFormat(request.text, sqlFmtConfig(request.settings));
        // sqlformat returns the statements without the file's final newline: keep the file's own.
        // sqlformat joins lines with LF and has no line-ending option: the file gets LF.
        return { kind: 'ok', text: request.text.endsWith('\n') && !text.endsWith('\n') ? `${text}\n` : text, lineEnding: 'lf' };
      } catch (thrown) {
        return { kind: 'error', message: `sql_fmt failed: ${messageOf(thrown)}` };
      }
    },
  };
}
