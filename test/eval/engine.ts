/**
 * The real formatbox engine with the real formatters the eval uses: Prettier (TypeScript),
 * Ruff wasm (Python), gofmt wasm (Go) and dprint's TOML plugin, each chosen explicitly by
 * user config, as a project declaring them would.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import { prettierFormatter } from '../../src/formatters/prettier/adapter.js';
import { ruffFormatter } from '../../src/formatters/ruff/adapter.js';
import { gofmtFormatter } from '../../src/formatters/gofmt/adapter.js';
import { tomlFormatter } from '../../src/formatters/toml/adapter.js';

const require = createRequire(import.meta.url);

function wasmFile(specifier: string): () => Promise<Uint8Array> {
  return () => readFile(require.resolve(specifier));
}

export const EVAL_FORMATTERS = { typescript: 'prettier', python: 'ruff', go: 'gofmt', toml: 'toml' } as const;

export function createEvalEngine(): Engine {
  return createEngine({
    formatters: [
      prettierFormatter(),
      ruffFormatter({ wasm: wasmFile('@astral-sh/ruff-wasm-web/ruff_wasm_bg.wasm') }),
      gofmtFormatter({ wasm: wasmFile('@wasm-fmt/gofmt/gofmt.wasm') }),
      tomlFormatter({ wasm: wasmFile('@dprint/toml/plugin.wasm') }),
    ],
    config: { formatters: { ...EVAL_FORMATTERS } },
  });
}
