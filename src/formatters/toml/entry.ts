/** `formatbox/toml`: TOML through dprint-plugin-toml (`dprint-toml.wasm`). */
export { tomlFormatter } from './adapter.js';
export type { TomlFormatterOptions } from './adapter.js';
