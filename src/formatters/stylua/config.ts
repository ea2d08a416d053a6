/**
 * `stylua.toml` / `.stylua.toml` read as data: StyLua's options, checked against the values StyLua
 * accepts. A file that is not TOML, or a known key with a value StyLua cannot read (a wrong kind, an
 * unknown enum variant), is a config error: StyLua's CLI fails on it, so formatbox refuses the file
 * (`failed`) rather than format with defaults. A key StyLua does not know is reported and left out.
 * StyLua searches for the nearest of the two names upward from the file; in one directory
 * `stylua.toml` wins over `.stylua.toml`.
 */
import type { IgnoredItem } from '../../core/types.js';
import { NOT_READ_REASON, locateKey, type ConfigError } from '../../config/config-error.js';
import { isRecord, parseData } from '../../config/data.js';
import { baseOf, dirOf } from '../../config/paths.js';

export const STYLUA_CONFIG_NAMES = ['stylua.toml', '.stylua.toml'];

const ENUMS: Readonly<Record<string, readonly string[]>> = {
  line_endings: ['Unix', 'Windows'],
  indent_type: ['Tabs', 'Spaces'],
  quote_style: ['AutoPreferDouble', 'AutoPreferSingle', 'ForceDouble', 'ForceSingle'],
  call_parentheses: ['Always', 'NoSingleString', 'NoSingleTable', 'None', 'Input'],
  collapse_simple_statement: ['Never', 'FunctionOnly', 'ConditionalOnly', 'Always'],
  space_after_function_names: ['Never', 'Definitions', 'Calls', 'Always'],
  block_newline_gaps: ['Never', 'Preserve'],
  syntax: ['All', 'Lua51', 'Lua52', 'Lua53', 'Lua54', 'Luau', 'LuaJIT', 'CfxLua'],
};
const NUMBERS = ['column_width', 'indent_width'];
const BOOLEANS = ['no_call_parentheses'];

export interface StyluaConfigFile {
  dir: string;
  file: string;
  settings: Record<string, unknown>;
  /** Why StyLua's CLI would reject this file; then nothing is formatted with it. */
  error?: ConfigError;
}

export function loadStyluaConfigs(files: Record<string, string | null>, ignored: IgnoredItem[]): StyluaConfigFile[] {
  const byDir = new Map<string, StyluaConfigFile>();
  // `stylua.toml` first, so it wins over `.stylua.toml` in the same directory.
  const candidates = Object.entries(files)
    .filter(([file]) => STYLUA_CONFIG_NAMES.includes(baseOf(file)))
    .sort(([a], [b]) => STYLUA_CONFIG_NAMES.indexOf(baseOf(a)) - STYLUA_CONFIG_NAMES.indexOf(baseOf(b)));
  for (const [file, text] of candidates) {
    const base = baseOf(file);
    const dir = dirOf(file);
    if (byDir.has(dir)) continue;
    if (text === null) {
      ignored.push({ file, item: base, reason: NOT_READ_REASON });
      byDir.set(dir, { dir, file, settings: {} });
      continue;
    }
    const parsed = parseData(text, 'toml');
    const settings: Record<string, unknown> = {};
    let error: ConfigError | undefined;
    if (!parsed.ok || !isRecord(parsed.value)) {
      error = parsed.ok ? { file, message: 'not a TOML table (StyLua fails on it)' } : { file, ...(parsed.line !== undefined ? { line: parsed.line } : {}), ...(parsed.column !== undefined ? { column: parsed.column } : {}), message: `${parsed.reason} (StyLua fails on it)` };
    } else {
      for (const [key, value] of Object.entries(parsed.value)) {
        const reason = invalid(key, value);
        if (reason === UNKNOWN_KEY) ignored.push({ file, item: key, reason });
        else if (reason) error ??= { file, ...locateKey(text, key), message: `${key}: ${reason} (StyLua fails on it)` };
        else settings[key] = value;
      }
    }
    byDir.set(dir, { dir, file, settings, ...(error ? { error } : {}) });
  }
  return [...byDir.values()];
}

const UNKNOWN_KEY = 'not a StyLua option';

function invalid(key: string, value: unknown): string | undefined {
  if (key in ENUMS) return typeof value === 'string' && ENUMS[key]!.includes(value) ? undefined : `expected one of ${ENUMS[key]!.join(', ')}`;
  if (NUMBERS.includes(key)) return Number.isInteger(value) && (value as number) > 0 && (value as number) <= 10_000 ? undefined : 'expected a positive integer';
  if (BOOLEANS.includes(key)) return typeof value === 'boolean' ? undefined : 'expected true or false';
  if (key === 'sort_requires') return isRecord(value) && typeof value.enabled === 'boolean' ? undefined : 'expected { enabled = true|false }';
  return UNKNOWN_KEY;
}
