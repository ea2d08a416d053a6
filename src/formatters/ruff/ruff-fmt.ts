/**
 * Ruff's formatter through `@wasm-fmt/ruff_fmt` alone (Ruff 0.15.x built to wasm by another project,
 * 1.2 MB against the official build's 11 MB): the Python formatter of the edge profile. It formats
 * whole files, `.pyi` stubs with stub rules, and ranges; every receipt names `ruff 0.15.20`.
 * `ruffFormatter` (adapter.ts) uses the official 0.16 build for whole `.py` files instead; the two can
 * differ where Ruff's style changed between 0.15 and 0.16.
 */
import initRuffFmt, { format as ruffFmtFormat } from '@wasm-fmt/ruff_fmt/web';
import { compileWasm, lazy } from '../../core/wasm.js';
import { BUILTIN_WASM_IDENTITY } from '../wasm-identity.js';
import type { AdapterRequest, AdapterResult, FormatterAdapter, FormatterInfo, WasmSource } from '../../core/types.js';
import { RUFF_FMT_INFO, formatRange, ruffFmtConfig, ruffFmtErrorMessage } from './adapter.js';

export interface RuffFmtFormatterOptions {
  /** `ruff_fmt_bg.wasm` of `@wasm-fmt/ruff_fmt`. */
  wasm: WasmSource;
}

export function ruffFmtFormatter(options: RuffFmtFormatterOptions): FormatterAdapter {
  // The web glue keeps one instance per JS realm, shared with ruffFormatter's range path.
  const module = lazy(async () => {
    await initRuffFmt(await compileWasm(options.wasm, 'ruff_fmt', BUILTIN_WASM_IDENTITY.ruff_fmt));
  });

  return {
    name: 'ruff',
    via: 'wasm',
    languages: ['python'],
    supportsRange: true,
    rangeLanguages: ['python'],

    info(): Promise<FormatterInfo> {
      return Promise.resolve(RUFF_FMT_INFO);
    },

    async format(request: AdapterRequest): Promise<AdapterResult> {
      await module.get();
      if (request.range) return formatRange(request.text, request.path, request.range, request.settings);
      try {
        return { kind: 'ok', text: ruffFmtFormat(request.text, request.path, ruffFmtConfig(request.settings) as never) };
      } catch (thrown) {
        return { kind: 'error', message: ruffFmtErrorMessage(thrown, request.text) };
      }
    },

    preload() {
      return module.get();
    },
  };
}
