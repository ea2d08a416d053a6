/**
 * `formatbox/ruff`: `ruffFormatter` (official `@astral-sh/ruff-wasm-web`, with `@wasm-fmt/ruff_fmt` for
 * ranges and stubs) and `ruffFmtFormatter` (`@wasm-fmt/ruff_fmt` alone, 1.2 MB: the edge profile's).
 */
export { ruffFormatter, RUFF_FMT_PACKAGE_VERSION } from './adapter.js';
export type { RuffFormatterOptions } from './adapter.js';
export { ruffFmtFormatter } from './ruff-fmt.js';
export type { RuffFmtFormatterOptions } from './ruff-fmt.js';
