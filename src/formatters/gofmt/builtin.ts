import type { BuiltinFactory } from '../module.js';
import { gofmtFormatter } from './adapter.js';

export const builtins: BuiltinFactory = (wasm) => (wasm.gofmt ? [gofmtFormatter({ wasm: wasm.gofmt })] : []);
