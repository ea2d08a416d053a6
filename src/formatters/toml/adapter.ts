/**
 * TOML through dprint-plugin-toml (`@dprint/toml`), a dprint wasm plugin (see ../dprint/adapter.ts).
 * Chosen over `@taplo/lib` and `prettier-plugin-toml` by measurement (test/bench/toml-choice.ts): it
 * loads in milliseconds, stays fast on large files, and runs in workerd from a `WebAssembly.Module`.
 *
 * The adapter's config name is `toml`; `info()` reports the real formatter, `dprint-plugin-toml` and
 * its version, read from the plugin. Settings are flat or in dprint.json shape (a `toml: {…}` section).
 * dprint's `cargo.applyConventions` (default true) reorders `[package]` keys of files named Cargo.toml.
 */
import type { FormatterAdapter, WasmSource } from '../../core/types.js';
import { dprintConfig, dprintPluginFormatter } from '../dprint/adapter.js';

export { locateDprintError } from '../dprint/adapter.js';

export interface TomlFormatterOptions {
  /** `plugin.wasm` of `@dprint/toml`. */
  wasm: WasmSource;
}

/** Splits adapter settings into dprint's global and plugin configuration (`toml` section). */
export function dprintTomlConfig(settings: Record<string, unknown>): ReturnType<typeof dprintConfig> {
  return dprintConfig(settings, 'toml');
}

export function tomlFormatter(options: TomlFormatterOptions): FormatterAdapter {
  return dprintPluginFormatter({ wasm: options.wasm, name: 'toml', section: 'toml', languages: ['toml'] });
}
