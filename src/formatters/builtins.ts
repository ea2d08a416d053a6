/**
 * Every built-in in-process formatter from its wasm sources, in any runtime: one `WasmSource` (a
 * `WebAssembly.Module`, bytes, a URL, a Response, or a loader) per module name. Nothing is loaded
 * until a formatter is used. Node passes file loaders (src/node/builtins.ts); a browser, Web Worker
 * or edge host passes URLs or imported modules (`wasmUrls(base)` names the files).
 */
import type { FormatterAdapter, WasmSource } from '../core/types.js';
import { biomeFormatter } from './biome/adapter.js';
import { clangFormatFormatter } from './clang-format/adapter.js';
import { gofmtFormatter } from './gofmt/adapter.js';
import { prettierFormatter } from './prettier/adapter.js';
import type { ShippedPrettierPlugin } from './prettier-plugins.js';
import { ruffFormatter } from './ruff/adapter.js';
import { tomlFormatter } from './toml/adapter.js';
import { dprintPluginFormatter } from './dprint/adapter.js';
import { editorconfigFormatter } from './editorconfig/adapter.js';
import { shfmtFormatter } from './shfmt/adapter.js';
import { styluaFormatter } from './stylua/adapter.js';
import { sqlFormatter } from './sql/adapter.js';
import { unavailableFormatters } from './rustfmt/unavailable.js';
import { ruffFmtFormatter } from './ruff/ruff-fmt.js';
import { FormatboxError } from '../core/errors.js';
import { checkedWasm } from './checked.js';

/** The wasm modules the built-ins load, and the file each is published as (see wasm/manifest.json). */
export const BUILTIN_WASM_FILES = {
  biome: 'biome_wasm_bg.wasm',
  ruff: 'ruff_wasm_bg.wasm',
  ruff_fmt: 'ruff_fmt_bg.wasm',
  gofmt: 'gofmt.wasm',
  'clang-format': 'clang-format.wasm',
  // The dprint plugins are all `plugin.wasm` in their packages; published under distinct names.
  toml: 'dprint-toml.wasm',
  'dprint-markdown': 'dprint-markdown.wasm',
  'dprint-json': 'dprint-json.wasm',
  'dprint-dockerfile': 'dprint-dockerfile.wasm',
  'sh-syntax': 'sh-syntax.wasm',
  stylua: 'stylua_lib_bg.wasm',
  sql_fmt: 'sql_fmt_bg.wasm',
  // Built from wasm/editorconfig/editorconfig.c (WASI).
  editorconfig: 'editorconfig.wasm',
} as const;

export type BuiltinWasmName = keyof typeof BUILTIN_WASM_FILES;

/**
 * The built-in adapters. Prettier needs no wasm; a formatter whose wasm is not given is left out
 * (`ruff_fmt` is optional: without it Ruff formats no ranges and skips `.pyi`; given without `ruff`,
 * as in the edge profile, it is the Python formatter). Each module is checked against the shipped
 * build's size and export names when it loads (`BUILTIN_WASM_IDENTITY`, from wasm/manifest.json).
 */
export function createFormatters(given: Partial<Record<BuiltinWasmName, WasmSource>>, options: { prettierPlugins?: Readonly<Record<string, ShippedPrettierPlugin>> } = {}): FormatterAdapter[] {
  const wasm = checkedSources(given);
  const adapters: FormatterAdapter[] = [prettierFormatter(options.prettierPlugins ? { shippedPlugins: options.prettierPlugins } : {})];
  if (wasm.biome) adapters.push(biomeFormatter({ wasm: wasm.biome }));
  if (wasm.ruff) adapters.push(ruffFormatter({ wasm: wasm.ruff, ...(wasm.ruff_fmt ? { ruffFmtWasm: wasm.ruff_fmt } : {}) }));
  else if (wasm.ruff_fmt) adapters.push(ruffFmtFormatter({ wasm: wasm.ruff_fmt }));
  if (wasm.gofmt) adapters.push(gofmtFormatter({ wasm: wasm.gofmt }));
  if (wasm['clang-format']) adapters.push(clangFormatFormatter({ wasm: wasm['clang-format'] }));
  if (wasm.toml) adapters.push(tomlFormatter({ wasm: wasm.toml }));
  // Chosen by a project's dprint.json or the user's `{dprint: 'markdown' | 'json'}`, never by default.
  if (wasm['dprint-markdown']) adapters.push(dprintPluginFormatter({ wasm: wasm['dprint-markdown'], name: 'dprint:markdown', section: 'markdown', languages: ['markdown'] }));
  if (wasm['dprint-json']) adapters.push(dprintPluginFormatter({ wasm: wasm['dprint-json'], name: 'dprint:json', section: 'json', languages: ['json', 'jsonc'] }));
  if (wasm['dprint-dockerfile']) adapters.push(dprintPluginFormatter({ wasm: wasm['dprint-dockerfile'], name: 'dprint:dockerfile', section: 'dockerfile', languages: ['dockerfile'] }));
  if (wasm['sh-syntax']) adapters.push(shfmtFormatter({ wasm: wasm['sh-syntax'] }));
  if (wasm.stylua) adapters.push(styluaFormatter({ wasm: wasm.stylua }));
  if (wasm.sql_fmt) adapters.push(sqlFormatter({ wasm: wasm.sql_fmt }));
  if (wasm.editorconfig) adapters.push(editorconfigFormatter({ wasm: wasm.editorconfig }));
  // Rust: a clear `skipped` where only the Node runtime's sandbox could run rustfmt.
  adapters.push(...unavailableFormatters());
  return adapters;
}

/** Each source wrapped in a loader that checks the module against the shipped build's identity. */
function checkedSources(given: Partial<Record<BuiltinWasmName, WasmSource>>): Partial<Record<BuiltinWasmName, WasmSource>> {
  const out: Partial<Record<BuiltinWasmName, WasmSource>> = {};
  for (const [name, source] of Object.entries(given) as Array<[BuiltinWasmName, WasmSource | undefined]>) {
    if (!source) continue;
    out[name] = checkedWasm(name, source);
  }
  return out;
}

/**
 * URLs of every module under one base (a directory holding the files of `BUILTIN_WASM_FILES`, e.g.
 * copied next to the bundle): `createFormatters(wasmUrls(new URL('./wasm/', import.meta.url)))`.
 */
export function wasmUrls(base: URL | string): Record<BuiltinWasmName, URL> {
  const root = absoluteBase(base);
  if (!root.pathname.endsWith('/')) root.pathname += '/';
  const out = {} as Record<BuiltinWasmName, URL>;
  for (const [name, file] of Object.entries(BUILTIN_WASM_FILES)) out[name as BuiltinWasmName] = new URL(file, root);
  return out;
}

/**
 * `base` as an absolute URL. A relative string is taken relative to the page (`location.href`). An
 * empty `import.meta.url` (esbuild's IIFE output empties `import.meta`) is a clear error, not `Invalid URL`.
 */
function absoluteBase(base: URL | string | undefined): URL {
  if (base instanceof URL) return new URL(base.href);
  const page = (globalThis as { location?: { href?: string } }).location?.href;
  if (typeof base === 'string' && base !== '' && base !== 'undefined') {
    try {
      return new URL(base, page);
    } catch {
      // Reported below.
    }
  }
  throw new FormatboxError(
    'INVALID_REQUEST',
    `wasmUrls needs the absolute URL of the directory holding the .wasm files, got ${JSON.stringify(String(base))}. ` +
      "If it came from import.meta.url: a bundle in esbuild's default IIFE format has an empty import.meta; " +
      "bundle with format: 'esm', or pass the URL yourself, e.g. wasmUrls(new URL('/wasm/', location.href)).",
  );
}
