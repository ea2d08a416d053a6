/** `formatbox/biome`: Biome's web wasm build; pass `biome_wasm_bg.wasm` (formatbox/wasm/) as `wasm`. */
export { biomeFormatter, BIOME_VERSION, BIOME_LANGUAGES } from '../formatters/biome.js';
export type { BiomeFormatterOptions } from '../formatters/biome.js';
