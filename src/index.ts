/**
 * formatbox — universal entry (browser, Web Worker, workerd, Deno, Node).
 * No `node:` import anywhere in this graph (build.mjs fails the build otherwise).
 * Wasm is passed in by the host as a `WebAssembly.Module`, bytes, a URL or a Response.
 */
export { createEngine, DEFAULT_LIMITS } from './engine/engine.js';
export type { Engine, EngineOptions, FormatRequest, AfterEditRequest } from './engine/engine.js';
export type { PatchReceipt } from './reconcile/index.js';
export { applyInput } from './tools/index.js';
export { unifiedDiff, applyUnifiedDiff } from './core/diff.js';
export type * from './core/types.js';
export { FormatboxError, isFormatboxError } from './core/errors.js';
export type { ErrorCode } from './core/errors.js';
export { compileWasm } from './core/wasm.js';
export type { WasmIdentity } from './core/wasm.js';
export { LANGUAGE_BY_EXTENSION, languageOf } from './core/languages.js';

export { prettierFormatter } from './formatters/prettier/adapter.js';
export { biomeFormatter } from './formatters/biome/adapter.js';
export { ruffFormatter } from './formatters/ruff/adapter.js';
export { ruffFmtFormatter } from './formatters/ruff/ruff-fmt.js';
export { gofmtFormatter } from './formatters/gofmt/adapter.js';
export { clangFormatFormatter } from './formatters/clang-format/adapter.js';
export { tomlFormatter } from './formatters/toml/adapter.js';
export { dprintPluginFormatter } from './formatters/dprint/adapter.js';
export { shfmtFormatter } from './formatters/shfmt/adapter.js';
export { styluaFormatter } from './formatters/stylua/adapter.js';
export { sqlFormatter } from './formatters/sql/adapter.js';
export { editorconfigFormatter } from './formatters/editorconfig/adapter.js';
export { wasiFormatter } from './formatters/wasi.js';
export { createFormatters, wasmUrls, BUILTIN_WASM_FILES } from './formatters/builtins.js';
export type { BuiltinWasmName } from './formatters/builtins.js';
export { BUILTIN_WASM_IDENTITY } from './formatters/wasm-identity.js';
export { checkedWasm } from './formatters/checked.js';
