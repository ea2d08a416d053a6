/**
 * Lua through StyLua's own wasm build (`@johnnymorganz/stylua`, wasm-bindgen, web target). The
 * package's glue holds one module-wide instance, initialised once from the host's `WasmSource`.
 *
 * `settings` are `stylua.toml` keys (config.ts), mapped onto StyLua's `Config`.
 * `line_endings` is applied by the engine as the adapter's line-ending policy: StyLua writes `Unix` (LF,
 * its default) or `Windows` (CRLF) whatever the file had, as its CLI does. Ranges: StyLua formats the statements a byte range touches (`Range`), the
 * rest of the file stays as written.
 */
import * as glue from '@johnnymorganz/stylua/web';
import { compileWasm, lazy } from '../../core/wasm.js';
import { BUILTIN_WASM_IDENTITY } from '../wasm-identity.js';
import { messageOf } from '../../core/errors.js';
import { utf16ToByteOffset } from '../../core/text.js';
import type { AdapterRequest, AdapterResult, FormatterAdapter, FormatterInfo, LineEndingPolicy, WasmSource } from '../../core/types.js';
import { isPlainObject } from '../shared.js';

/** The `@johnnymorganz/stylua` version (StyLua's own version; a test checks the installed package). */
export const STYLUA_VERSION = '2.5.2';

const ENUM_VALUES: Readonly<Record<string, Record<string, number>>> = {
  indent_type: glue.IndentType as unknown as Record<string, number>,
  quote_style: glue.QuoteStyle as unknown as Record<string, number>,
  call_parentheses: glue.CallParenType as unknown as Record<string, number>,
  collapse_simple_statement: glue.CollapseSimpleStatement as unknown as Record<string, number>,
  space_after_function_names: glue.SpaceAfterFunctionNames as unknown as Record<string, number>,
  block_newline_gaps: glue.BlockNewlineGaps as unknown as Record<string, number>,
  syntax: glue.LuaVersion as unknown as Record<string, number>,
};

/** A StyLua `Config` from stylua.toml keys; line endings stay Unix (the engine writes `line_endings`). */
function configFrom(settings: Record<string, unknown>): glue.Config {
  const config = glue.Config.new();
  const target = config as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(settings)) {
    if (key in ENUM_VALUES && typeof value === 'string' && ENUM_VALUES[key]![value] !== undefined) target[key] = ENUM_VALUES[key]![value];
    else if ((key === 'column_width' || key === 'indent_width') && typeof value === 'number') target[key] = value;
    else if (key === 'no_call_parentheses' && typeof value === 'boolean') target[key] = value;
    else if (key === 'sort_requires' && isPlainObject(value) && typeof value.enabled === 'boolean') config.sort_requires = glue.SortRequiresConfig.new().set_enabled(value.enabled);
  }
  config.line_endings = glue.LineEndings.Unix;
  return config;
}

/** StyLua's `line_endings`: `Windows` is CRLF, anything else its default `Unix` (LF). */
export function styluaLineEnding(settings: Record<string, unknown>): LineEndingPolicy {
  return settings.line_endings === 'Windows' ? 'crlf' : 'lf';
}

/**
 * StyLua formats the statements that lie wholly inside a byte range; an edit is widened to whole
 * lines so the statements on the edited lines are formatted.
 */
function byteRangeOfLines(text: string, utf16Start: number, utf16End: number): glue.Range {
  const start = text.lastIndexOf('\n', utf16Start - 1) + 1;
  const newline = text.indexOf('\n', utf16End);
  const end = newline === -1 ? text.length : newline + 1;
  return glue.Range.from_values(utf16ToByteOffset(text, start), utf16ToByteOffset(text, end));
}

/** `error parsing: \n - unexpected token `=` (1:7 to 1:8), expected …` → `1:7: unexpected token `=`, expected …`. */
export function locateStyluaError(message: string): string {
  const detail = message.split('\n').find((line) => line.trim().startsWith('- '));
  if (!detail) return message.split('\n').find((line) => line.trim() !== '')?.trim() ?? message;
  const text = detail.trim().slice(2);
  const at = /\((\d+):(\d+) to \d+:\d+\)/.exec(text);
  return at ? `${at[1]}:${at[2]}: ${text.replace(at[0], '').replace(/\s+,/, ',').trim()}` : text;
}

export function styluaFormatter(options: { wasm: WasmSource }): FormatterAdapter {
  const ready = lazy(async () => {
    glue.initSync({ module: await compileWasm(options.wasm, 'stylua', BUILTIN_WASM_IDENTITY.stylua) });
  });
  return {
    name: 'stylua',
    via: 'wasm',
    languages: ['lua'],
    supportsRange: true,

    async info(): Promise<FormatterInfo> {
      await ready.get();
      return { name: 'stylua', version: STYLUA_VERSION, via: 'wasm' };
    },

    async format(request: AdapterRequest): Promise<AdapterResult> {
      await ready.get();
      const config = configFrom(request.settings);
      const range = request.range ? byteRangeOfLines(request.text, request.range.utf16Start, request.range.utf16End) : undefined;
      try {
        // formatCode takes ownership of `config` and `range` (wasm-bindgen moves them): nothing to free here.
        return { kind: 'ok', text: glue.formatCode(request.text, config, range, glue.OutputVerification.None), lineEnding: styluaLineEnding(request.settings) };
      } catch (thrown) {
        const message = messageOf(thrown);
        if (thrown instanceof WebAssembly.RuntimeError) return { kind: 'error', message: `stylua trapped: ${message}` };
        return { kind: 'error', message: locateStyluaError(message) };
      }
    },
  };
}
