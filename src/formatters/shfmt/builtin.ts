import type { BuiltinFactory } from '../module.js';
import { shfmtFormatter } from './adapter.js';

export const builtins: BuiltinFactory = (wasm) => (wasm['sh-syntax'] ? [shfmtFormatter({ wasm: wasm['sh-syntax'] })] : []);
