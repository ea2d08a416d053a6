import type { BuiltinFactory } from '../module.js';
import { sqlFormatter } from './adapter.js';

export const builtins: BuiltinFactory = (wasm) => (wasm.sql_fmt ? [sqlFormatter({ wasm: wasm.sql_fmt })] : []);
