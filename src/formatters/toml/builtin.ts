import type { BuiltinFactory } from '../module.js';
import { tomlFormatter } from './adapter.js';

export const builtins: BuiltinFactory = (wasm) => (wasm.toml ? [tomlFormatter({ wasm: wasm.toml })] : []);
