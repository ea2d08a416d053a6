/** `formatbox/biome`: Biome's web wasm build; pass `biome_wasm_bg.wasm` (formatbox/wasm/) as `wasm`. */
export { biomeFormatter, BIOME_VERSION, BIOME_LANGUAGES } from './adapter.js';
export type { BiomeFormatterOptions } from './adapter.js';
