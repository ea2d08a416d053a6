/** `formatbox/toml`: TOML through dprint-plugin-toml (`dprint-toml.wasm`). */
export { tomlFormatter } from '../formatters/toml.js';
export type { TomlFormatterOptions } from '../formatters/toml.js';
