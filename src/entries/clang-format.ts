/** `formatbox/clang-format`: clang-format as an Emscripten wasm build (`clang-format.wasm`). */
export { clangFormatFormatter } from '../formatters/clang-format.js';
export type { ClangFormatFormatterOptions } from '../formatters/clang-format.js';
