/**
 * What the registry implies, computed once: the union types of its parts, the module behind each
 * adapter name, the `mode: 'always'` defaults, the extensions of languages formatters add, and the
 * wasm files. Universal (selection and the engine read it).
 */
import type { FirstLineRule, FormatterModule, WasmAsset } from './module.js';
import { FORMATTERS } from './registry.js';

type AnyModule = FormatterModule<object, object, string>;
type Registered = (typeof FORMATTERS)[number];
type UnionToIntersection<U> = (U extends unknown ? (k: U) => void : never) extends (k: infer I) => void ? I : never;

/** Every formatter's part of `ProjectConfig`, together. */
type PartOf<M> = M extends { project?: { empty(): infer Part } } ? Part : never;
type WasmNameOf<M> = M extends { wasm: readonly WasmAsset<infer Name>[] } ? Name : never;
export type FormatterParts = UnionToIntersection<PartOf<Registered>>;
/** The name of every built-in wasm module. */
export type BuiltinWasmName = WasmNameOf<Registered>;

export const MODULES: readonly AnyModule[] = FORMATTERS as readonly AnyModule[];

const byAdapter = new Map<string, AnyModule>();
for (const module of MODULES) for (const name of module.adapterNames) byAdapter.set(name, module);

/** The formatter an adapter name belongs to. */
export function moduleOfAdapter(name: string): AnyModule | undefined {
  return byAdapter.get(name);
}

/** How a `because` line names an adapter: its formatter's display name (an adapter of several keeps its own name). */
export function displayNameOf(adapter: string): string {
  const module = byAdapter.get(adapter);
  return module && module.adapterNames.length === 1 ? module.displayName : adapter;
}

/** Every built-in adapter name (what a user config may choose by name). */
export const BUILTIN_ADAPTER_NAMES: readonly string[] = [...byAdapter.keys()];

/**
 * Language defaults for `mode: 'always'`. Prettier covers the web languages (the formatter most
 * projects without config expect, and one formatter for all of them keeps output consistent).
 */
export const DEFAULT_FORMATTER: Readonly<Record<string, string>> = Object.assign({}, ...MODULES.map((module) => module.defaults ?? {}));

/** Extensions of the languages formatters add, in `languageOf`'s shape (language → extensions). */
export const FORMATTER_EXTENSIONS: Readonly<Record<string, string[]>> = Object.assign({}, ...MODULES.map((module) => Object.fromEntries(Object.entries(module.extensions ?? {}).map(([language, extensions]) => [language, [...extensions]]))));

/** Every wasm module the built-ins load. */
export const WASM_ASSETS: readonly WasmAsset<BuiltinWasmName>[] = MODULES.flatMap((module) => module.wasm) as WasmAsset<BuiltinWasmName>[];

/** The wasm modules the built-ins load, and the file each is published as (see wasm/manifest.json). */
export const BUILTIN_WASM_FILES = Object.fromEntries(WASM_ASSETS.map((asset) => [asset.name, asset.file])) as Readonly<Record<BuiltinWasmName, string>>;

/** The formatters' rules for files recognised by their first line (shfmt's shebang), in registry order. */
export const FIRST_LINE_RULES: readonly FirstLineRule[] = MODULES.flatMap((module) => (module.byFirstLine ? [module.byFirstLine] : []));
