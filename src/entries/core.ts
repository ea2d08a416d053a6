/**
 * `formatbox/core`: the engine without any formatter. Pair it with the formatter entries an app uses
 * (`formatbox/biome`, `formatbox/prettier`, …) so nothing else is bundled. No `node:` import.
 */
export { createEngine, DEFAULT_LIMITS } from '../engine/engine.js';
export type { Engine, EngineOptions, FormatRequest, AfterEditRequest } from '../engine/engine.js';
export type { PatchReceipt } from '../reconcile/index.js';
export { applyInput } from '../tools/index.js';
export { unifiedDiff, applyUnifiedDiff } from '../core/diff.js';
export type * from '../core/types.js';
export { FormatboxError, isFormatboxError } from '../core/errors.js';
export type { ErrorCode } from '../core/errors.js';
export { compileWasm } from '../core/wasm.js';
export type { WasmIdentity } from '../core/wasm.js';
export { LANGUAGE_BY_EXTENSION, languageOf } from '../core/languages.js';
export { checkedWasm } from '../formatters/checked.js';
export { BUILTIN_WASM_IDENTITY } from '../formatters/wasm-identity.js';
