/** `formatbox/clang-format`: clang-format as an Emscripten wasm build (`clang-format.wasm`). */
export { clangFormatFormatter } from './adapter.js';
export type { ClangFormatFormatterOptions } from './adapter.js';
