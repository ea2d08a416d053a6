/**
 * Project config read as data (sanitised in untrusted mode), user config normalisation, and
 * formatter selection. Universal: no I/O; files come in as `ProjectFiles` (see src/node/discover.ts).
 */
export { loadProjectConfig, MAX_CONFIG_FILES } from './project.js';
export type { ProjectConfig, LoadOptions } from './project.js';
export { selectFormatter, settingsFor, DEFAULT_FORMATTER, BIOME_LANGUAGES, PRETTIER_LANGUAGES } from './select.js';
export type { Selection } from './select.js';
export { normaliseUserConfig, splitCommand, isGlobKey, BUILT_IN_NAMES } from './user.js';
export type { NormalisedUserConfig, UserRule } from './user.js';
export { PRETTIER_CONFIG_NAMES, PRETTIER_CODE_CONFIG_NAMES, PRETTIER_BUILTIN_PARSERS, PRETTIER_OPTIONS } from '../formatters/prettier/config.js';
export type { Trust } from '../formatters/prettier/config.js';
export { BIOME_CONFIG_NAMES, BIOME_MAX_SIZE } from '../formatters/biome/config.js';
export { RUFF_CONFIG_NAMES } from '../formatters/ruff/config.js';
export { CLANG_FORMAT_NAMES } from './toolchains.js';
export { parseData, DATA_LIMITS } from './data.js';
export type { DataFormat, DataLimits, Parsed } from './data.js';
export { compileGlob, globCost, GLOB_LIMITS } from './glob.js';
export { ConfigBudget, CONFIG_BUDGET } from './budget.js';
export type { ConfigBudgetLimits, ConfigBudgetReport } from './budget.js';
export { MAX_UNTRUSTED_INDENT } from './clamp.js';
export { parseIgnoreFile, readIgnoreFile, isIgnoredBy, insideNodeModules } from './ignore-file.js';
export type { IgnoreFile } from './ignore-file.js';

/** Every file name config discovery should collect (data files are read; code files are only noted). */
export const CONFIG_FILE_NAMES: readonly string[] = [
  // Prettier (data and code), and its ignore file
  'package.json', 'package.yaml', '.prettierrc', '.prettierrc.json', '.prettierrc.yml', '.prettierrc.yaml', '.prettierrc.json5',
  '.prettierrc.toml', '.prettierrc.js', 'prettier.config.js', '.prettierrc.ts', 'prettier.config.ts', '.prettierrc.mjs',
  'prettier.config.mjs', '.prettierrc.mts', 'prettier.config.mts', '.prettierrc.cjs', 'prettier.config.cjs', '.prettierrc.cts',
  'prettier.config.cts', '.prettierignore', '.editorconfig',
  // Prettier's CLI reads the root .gitignore; Biome every .gitignore (vcs.useIgnoreFile)
  '.gitignore',
  // Biome
  'biome.json', 'biome.jsonc', '.biome.json', '.biome.jsonc',
  // Python
  '.ruff.toml', 'ruff.toml', 'pyproject.toml',
  // Go, Rust, C-family, TOML
  'go.mod', 'Cargo.toml', 'rustfmt.toml', '.rustfmt.toml', 'rust-toolchain', 'rust-toolchain.toml', '.clang-format', '_clang-format',
  'taplo.toml', '.taplo.toml', 'dprint.json', 'dprint.jsonc', '.dprint.json', '.dprint.jsonc',
  // Lua (StyLua)
  'stylua.toml', '.stylua.toml',
];

/** Names that are code: discovery records them as `null` (present, never read). */
export const CODE_CONFIG_FILE_NAMES: readonly string[] = CONFIG_FILE_NAMES.filter((name) => /\.[cm]?[jt]s$/.test(name));
