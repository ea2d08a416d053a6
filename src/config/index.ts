/**
 * Project config read as data (sanitised in untrusted mode), user config normalisation, and
 * formatter selection. Universal: no I/O; files come in as `ProjectFiles` (see src/node/discover.ts).
 */
export { loadProjectConfig, MAX_CONFIG_FILES } from './project.js';
export type { ProjectConfig, LoadOptions } from './project.js';
export { selectFormatter, settingsFor, languageOfPath, languageOfFirstLine } from './select.js';
export { DEFAULT_FORMATTER } from '../formatters/derived.js';
export type { Selection } from './select.js';
export { normaliseUserConfig, splitCommand, isGlobKey, BUILT_IN_NAMES } from './user.js';
export type { NormalisedUserConfig, UserRule } from './user.js';
export { PRETTIER_CONFIG_NAMES, PRETTIER_CODE_CONFIG_NAMES, PRETTIER_BUILTIN_PARSERS, PRETTIER_OPTIONS } from '../formatters/prettier/config.js';
export type { Trust, ProjectBase } from './project.js';
export { BIOME_CONFIG_NAMES, BIOME_MAX_SIZE } from '../formatters/biome/config.js';
export { RUFF_CONFIG_NAMES } from '../formatters/ruff/config.js';
export { CLANG_FORMAT_NAMES } from '../formatters/clang-format/config.js';
export { parseData, DATA_LIMITS } from './data.js';
export type { DataFormat, DataLimits, Parsed } from './data.js';
export { compileGlob, globCost, GLOB_LIMITS } from './glob.js';
export { ConfigBudget, CONFIG_BUDGET } from './budget.js';
export type { ConfigBudgetLimits, ConfigBudgetReport } from './budget.js';
export { MAX_UNTRUSTED_INDENT } from './clamp.js';
export { parseIgnoreFile, readIgnoreFile, isIgnoredBy, insideNodeModules } from './ignore-file.js';
export type { IgnoreFile } from './ignore-file.js';

import { MODULES } from '../formatters/derived.js';
import { BIOME_LANGUAGES as BIOME_LANGUAGE_LIST } from '../formatters/biome/index.js';

/** Languages Biome formats, as a set (the list is the Biome formatter's, formatters/biome/index.ts). */
export const BIOME_LANGUAGES: ReadonlySet<string> = new Set(BIOME_LANGUAGE_LIST);

/**
 * Every file name config discovery should collect (data files are read; code files are only noted):
 * the files no one formatter owns, and each registered formatter's `configFiles`.
 */
export const CONFIG_FILE_NAMES: readonly string[] = [
  ...new Set([
    // Biome and Prettier's CLI read .gitignore; every package.json's "type" (Biome's script mode); EditorConfig.
    '.gitignore',
    'package.json',
    '.editorconfig',
    ...MODULES.flatMap((module) => module.configFiles),
  ]),
];

/** Names that are code: discovery records them as `null` (present, never read). */
export const CODE_CONFIG_FILE_NAMES: readonly string[] = CONFIG_FILE_NAMES.filter((name) => /\.[cm]?[jt]s$/.test(name));
