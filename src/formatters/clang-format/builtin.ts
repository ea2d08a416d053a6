import type { BuiltinFactory } from '../module.js';
import { clangFormatFormatter } from './adapter.js';

export const builtins: BuiltinFactory = (wasm) => (wasm['clang-format'] ? [clangFormatFormatter({ wasm: wasm['clang-format'] })] : []);
