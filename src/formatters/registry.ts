/**
 * Every built-in formatter, one line each, in selection order: the first whose project config
 * declares a file formats it (dprint's plugin list is the most specific declaration; Biome comes
 * before Prettier). Everything else about a formatter is in its folder (module.ts says what);
 * selection, ProjectConfig, the built-in adapters, build.mjs's wasm and entry lists and
 * package.json's exports are derived from this list.
 */
import { dprint } from './dprint/index.js';
import { biome } from './biome/index.js';
import { prettier } from './prettier/index.js';
import { ruff } from './ruff/index.js';
import { gofmt } from './gofmt/index.js';
import { rustfmt } from './rustfmt/index.js';
import { clangFormat } from './clang-format/index.js';
import { stylua } from './stylua/index.js';
import { shfmt } from './shfmt/index.js';
import { toml } from './toml/index.js';
import { sql } from './sql/index.js';
import { editorconfig } from './editorconfig/index.js';

export const FORMATTERS = [dprint, biome, prettier, ruff, gofmt, rustfmt, clangFormat, stylua, shfmt, toml, sql, editorconfig] as const;
