/** `formatbox/dprint`: any dprint wasm plugin in-process (`dprint-markdown.wasm`, `dprint-json.wasm`, …). */
export { dprintPluginFormatter } from '../formatters/dprint-plugin.js';
export type { DprintPluginOptions } from '../formatters/dprint-plugin.js';
