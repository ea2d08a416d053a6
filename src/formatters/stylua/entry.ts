/** `formatbox/stylua`: Lua through StyLua's own wasm build (`stylua_lib_bg.wasm`). */
export { styluaFormatter, STYLUA_VERSION } from './adapter.js';
