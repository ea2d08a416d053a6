/**
 * A built-in module's source wrapped in a loader that checks it, at load, against the shipped build's
 * size and export names (`BUILTIN_WASM_IDENTITY`, from wasm/manifest.json). `createFormatters` does this
 * for every module; an app that builds adapters one by one (`biomeFormatter({ wasm: checkedWasm('biome', m) })`)
 * calls it itself.
 */
import type { WasmSource } from '../core/types.js';
import { compileWasm } from '../core/wasm.js';
import { BUILTIN_WASM_IDENTITY } from './wasm-identity.js';

export function checkedWasm(name: string, source: WasmSource): WasmSource {
  const identity = BUILTIN_WASM_IDENTITY[name];
  return identity ? () => compileWasm(source, name, identity) : source;
}
