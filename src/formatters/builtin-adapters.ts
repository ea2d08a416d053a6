// Written by build.mjs from src/formatters/registry.ts (each folder's builtin.ts). Do not edit: run `node build.mjs --write-exports`.
import type { BuiltinFactory } from './module.js';
import { builtins as dprintBuiltins } from './dprint/builtin.js';
import { builtins as biomeBuiltins } from './biome/builtin.js';
import { builtins as prettierBuiltins } from './prettier/builtin.js';
import { builtins as ruffBuiltins } from './ruff/builtin.js';
import { builtins as gofmtBuiltins } from './gofmt/builtin.js';
import { builtins as rustfmtBuiltins } from './rustfmt/builtin.js';
import { builtins as clangFormatBuiltins } from './clang-format/builtin.js';
import { builtins as styluaBuiltins } from './stylua/builtin.js';
import { builtins as shfmtBuiltins } from './shfmt/builtin.js';
import { builtins as tomlBuiltins } from './toml/builtin.js';
import { builtins as sqlBuiltins } from './sql/builtin.js';
import { builtins as editorconfigBuiltins } from './editorconfig/builtin.js';

/** Each registered formatter's built-in adapters, in registry order. */
export const BUILTIN_FACTORIES: readonly BuiltinFactory[] = [dprintBuiltins, biomeBuiltins, prettierBuiltins, ruffBuiltins, gofmtBuiltins, rustfmtBuiltins, clangFormatBuiltins, styluaBuiltins, shfmtBuiltins, tomlBuiltins, sqlBuiltins, editorconfigBuiltins];
