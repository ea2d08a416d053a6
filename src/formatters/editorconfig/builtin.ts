import type { BuiltinFactory } from '../module.js';
import { editorconfigFormatter } from './adapter.js';

export const builtins: BuiltinFactory = (wasm) => (wasm.editorconfig ? [editorconfigFormatter({ wasm: wasm.editorconfig })] : []);
