/** `formatbox/dprint`: any dprint wasm plugin in-process (`dprint-markdown.wasm`, `dprint-json.wasm`, …). */
export { dprintPluginFormatter } from './adapter.js';
export type { DprintPluginOptions } from './adapter.js';
