/** `formatbox/sql`: SQL through `@wasm-fmt/sql_fmt` (sqlformat-rs, `sql_fmt_bg.wasm`). */
export { sqlFormatter, SQL_FMT_VERSION } from './adapter.js';
