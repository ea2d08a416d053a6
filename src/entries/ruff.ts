/**
 * `formatbox/ruff`: `ruffFormatter` (official `@astral-sh/ruff-wasm-web`, with `@wasm-fmt/ruff_fmt` for
 * ranges and stubs) and `ruffFmtFormatter` (`@wasm-fmt/ruff_fmt` alone, 1.2 MB: the edge profile's).
 */
export { ruffFormatter, RUFF_FMT_PACKAGE_VERSION } from '../formatters/ruff.js';
export type { RuffFormatterOptions } from '../formatters/ruff.js';
export { ruffFmtFormatter } from '../formatters/ruff-fmt.js';
export type { RuffFmtFormatterOptions } from '../formatters/ruff-fmt.js';
