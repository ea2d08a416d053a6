/** `formatbox/gofmt`: gofmt as a TinyGo wasm build (`gofmt.wasm`). */
export { gofmtFormatter, GOFMT_PACKAGE_VERSION } from './adapter.js';
export type { GofmtFormatterOptions, GofmtAdapter, GofmtStats, GofmtRecycle } from './adapter.js';
