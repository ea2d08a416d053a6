import type { BuiltinFactory } from '../module.js';
import { prettierFormatter } from './adapter.js';

/** Prettier needs no wasm: always there, with the shipped plugins the host gives (Node's load from files). */
export const builtins: BuiltinFactory = (_wasm, options) => [prettierFormatter(options.prettierPlugins ? { shippedPlugins: options.prettierPlugins } : {})];
