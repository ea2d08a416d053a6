import type { BuiltinFactory } from '../module.js';
import { styluaFormatter } from './adapter.js';

export const builtins: BuiltinFactory = (wasm) => (wasm.stylua ? [styluaFormatter({ wasm: wasm.stylua })] : []);
