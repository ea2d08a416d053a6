import type { BuiltinFactory } from '../module.js';
import { biomeFormatter } from './adapter.js';

export const builtins: BuiltinFactory = (wasm) => (wasm.biome ? [biomeFormatter({ wasm: wasm.biome })] : []);
