import type { BuiltinFactory } from '../module.js';
import { ruffFormatter } from './adapter.js';
import { ruffFmtFormatter } from './ruff-fmt.js';

/**
 * `ruff_fmt` is optional: without it Ruff formats no ranges and skips `.pyi`; given without `ruff`,
 * as in the edge profile, it is the Python formatter.
 */
export const builtins: BuiltinFactory = (wasm) => {
  if (wasm.ruff) return [ruffFormatter({ wasm: wasm.ruff, ...(wasm.ruff_fmt ? { ruffFmtWasm: wasm.ruff_fmt } : {}) })];
  return wasm.ruff_fmt ? [ruffFmtFormatter({ wasm: wasm.ruff_fmt })] : [];
};
