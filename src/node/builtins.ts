/**
 * The built-in adapters for Node, with their wasm read from formatbox's own `wasm/` directory (the
 * one copy an install holds: the wasm packages are build-time dependencies), or from the wasm
 * packages themselves in a checkout that has not been built. Nothing is read at construction: each
 * adapter gets a loader that reads its wasm on first use. This module
 * is loaded inside the format worker (format-worker.ts), never on the runtime's main thread.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { FormatterAdapter } from '../core/types.js';
import { BUILTIN_WASM_FILES, createFormatters } from '../formatters/builtins.js';
import { WASM_ASSETS } from '../formatters/derived.js';
import { NODE_PRETTIER_PLUGINS } from './prettier-plugins.js';

/** Where each built-in's wasm comes from: package specifier of the file (the build copies it to `wasm/`), from each formatter's declared assets. */
export const BUILTIN_WASM: Readonly<Record<string, string>> = Object.fromEntries(WASM_ASSETS.map((asset) => [asset.name, `${asset.package}/${asset.source}`]));

/** Resolves a file inside an installed package, also when its package.json `exports` hides it. */
export function resolvePackageFile(specifier: string): string {
  const require = createRequire(import.meta.url);
  try {
    return require.resolve(specifier);
  } catch {
    const [scope, name, ...rest] = specifier.split('/');
    const pkg = specifier.startsWith('@') ? `${scope}/${name}` : scope!;
    const file = specifier.startsWith('@') ? rest.join('/') : [name, ...rest].join('/');
    const pkgJson = require.resolve(`${pkg}/package.json`);
    return pkgJson.slice(0, -'package.json'.length) + file;
  }
}

/** formatbox's own copy (`wasm/<file>`, byte-identical: build.mjs copies it, checked against the manifest), else the package's file. */
export function builtinWasmPath(name: string): string {
  const file = BUILTIN_WASM_FILES[name as keyof typeof BUILTIN_WASM_FILES];
  if (file) {
    try {
      const own = resolvePackageFile(`formatbox/wasm/${file}`);
      if (existsSync(own)) return own;
    } catch {
      // not resolvable by name: the package's file below
    }
  }
  return resolvePackageFile(BUILTIN_WASM[name]!);
}

export interface BuiltinOptions {
  /** Modules compiled earlier (e.g. by a worker that was since replaced): used instead of compiling again. */
  compiled?: Readonly<Record<string, WebAssembly.Module>>;
  /** Called once per module compiled here, so the host can hand it to the next worker. */
  onCompiled?: (name: string, module: WebAssembly.Module) => void;
  /**
   * Asks the host for a module another worker compiled (or is compiling); undefined means
   * "compile it here". Lets a pool of workers compile each wasm once and share it.
   */
  sharedModule?: (name: string) => Promise<WebAssembly.Module | undefined>;
}

function wasmFile(name: string, options: BuiltinOptions): () => Promise<WebAssembly.Module> {
  return async () => {
    const cached = options.compiled?.[name] ?? (await options.sharedModule?.(name));
    if (cached) return cached;
    const module = await WebAssembly.compile(await readFile(builtinWasmPath(name)));
    options.onCompiled?.(name, module);
    return module;
  };
}

/** Every built-in adapter this host can run in-process. */
export function createBuiltinAdapters(options: BuiltinOptions = {}): FormatterAdapter[] {
  return createFormatters(Object.fromEntries(Object.keys(BUILTIN_WASM).map((name) => [name, wasmFile(name, options)])), { prettierPlugins: NODE_PRETTIER_PLUGINS });
}
