/**
 * Ruff's format settings from `.ruff.toml`, `ruff.toml` or `pyproject.toml [tool.ruff]` (Ruff's order
 * within a directory; the nearest directory wins), and `[tool.black]` as a fallback declaration.
 * Only format settings reach the wasm workspace; `extend` is never followed; values are validated
 * (the wasm throws on unknown fields and bad values).
 */
import type { IgnoredItem } from '../core/types.js';
import { isRecord, parseData } from './data.js';
import { baseOf, dirOf } from './paths.js';
import { truncate } from './prettier.js';
import { NOT_READ_REASON, locateKey, type ConfigError } from './config-error.js';

export const RUFF_CONFIG_NAMES = ['.ruff.toml', 'ruff.toml', 'pyproject.toml'];

export interface RuffConfigFile {
  dir: string;
  file: string;
  kind: 'ruff' | 'black';
  /** ruff.toml-shaped options with kebab-case keys. */
  settings: Record<string, unknown>;
  ignored: IgnoredItem[];
  /** Ruff would reject this file (a value of the wrong type or out of range, an unknown format key). */
  error?: ConfigError;
  /** The whole Ruff table and the file's text, for Ruff's own loader to judge (the adapter validates it). */
  source?: { text: string; options: Record<string, unknown> };
  /** `exclude` (replaces Ruff's default list when given), `extend-exclude`, `format.exclude`. */
  exclude?: string[];
  extendExclude: string[];
  formatExclude: string[];
}

type Check = (value: unknown) => boolean;
const int = (min: number, max: number): Check => (v) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
const oneOf = (...values: string[]): Check => (v) => typeof v === 'string' && values.includes(v);
const bool: Check = (v) => typeof v === 'boolean';

const TOP_LEVEL: Record<string, Check> = { 'line-length': int(1, 320), 'indent-width': int(1, 16) };
const FORMAT: Record<string, Check> = {
  'quote-style': oneOf('double', 'single', 'preserve'),
  'indent-style': oneOf('space', 'tab'),
  'line-ending': oneOf('auto', 'lf', 'cr-lf', 'native'),
  'skip-magic-trailing-comma': bool,
  'docstring-code-format': bool,
  preview: bool,
};
/** `[format]` keys Ruff accepts that are not passed on as style (or are checked elsewhere). */
const FORMAT_OTHER: Record<string, Check> = {
  exclude: (v) => Array.isArray(v) && v.every((p) => typeof p === 'string'),
  'docstring-code-line-length': (v) => v === 'dynamic' || int(1, 320)(v),
  'nested-string-quote-style': oneOf('alternating', 'preferred'),
};
const stringList: Check = (v) => Array.isArray(v) && v.every((p) => typeof p === 'string');

/** Reads Ruff and black configs; for each directory keeps the file Ruff would use (black only where no Ruff config is). */
export function loadRuffConfigs(files: Record<string, string | null>, ignored: IgnoredItem[]): { ruff: RuffConfigFile[]; black: RuffConfigFile[] } {
  const ruff = new Map<string, RuffConfigFile>();
  const black: RuffConfigFile[] = [];
  const paths = Object.keys(files)
    .filter((path) => RUFF_CONFIG_NAMES.includes(baseOf(path)))
    .sort((a, b) => RUFF_CONFIG_NAMES.indexOf(baseOf(a)) - RUFF_CONFIG_NAMES.indexOf(baseOf(b)));
  for (const file of paths) {
    const dir = dirOf(file);
    const base = baseOf(file);
    const text = files[file];
    const parsed = text === null || text === undefined ? { ok: false as const, reason: NOT_READ_REASON } : parseData(text, 'toml');
    if (!parsed.ok || !isRecord(parsed.value)) {
      const reason = parsed.ok ? 'not a TOML table' : parsed.reason;
      if (base === 'pyproject.toml') {
        if (text !== null && text !== undefined) ignored.push({ file, item: base, reason });
        continue;
      }
      // A ruff.toml that cannot be read still declares Ruff: its defaults are used.
      // A ruff.toml Ruff cannot parse stops Ruff: formatbox refuses rather than use Ruff's defaults.
      if (!ruff.has(dir)) {
        const where = !parsed.ok ? { ...(parsed.line !== undefined ? { line: parsed.line } : {}), ...(parsed.column !== undefined ? { column: parsed.column } : {}) } : {};
        const entry: RuffConfigFile = { dir, file, kind: 'ruff', settings: {}, ignored: [], extendExclude: [], formatExclude: [], error: { file, ...where, message: reason } };
        ruff.set(dir, entry);
      }
      continue;
    }
    let table: Record<string, unknown> | undefined = parsed.value;
    if (base === 'pyproject.toml') {
      const tool = isRecord(parsed.value.tool) ? parsed.value.tool : {};
      if (isRecord(tool.black) && !ruff.has(dir)) black.push(blackEntry(tool.black, file, dir, ignored));
      table = isRecord(tool.ruff) ? tool.ruff : undefined;
      if (!table) continue; // A pyproject.toml without [tool.ruff] is not a Ruff config.
    }
    if (ruff.has(dir)) {
      ignored.push({ file, item: base, reason: `${ruff.get(dir)?.file} is used instead (Ruff reads the first config in a directory)` });
      continue;
    }
    const entry: RuffConfigFile = { dir, file, kind: 'ruff', settings: {}, ignored: [], extendExclude: [], formatExclude: [] };
    entry.settings = ruffFormatSettings(table, entry, text ?? '');
    entry.source = { text: text ?? '', options: table };
    ignored.push(...entry.ignored);
    ruff.set(dir, entry);
  }
  return { ruff: [...ruff.values()], black: black.filter((b) => !ruff.has(b.dir)) };
}

/**
 * The format settings, and Ruff's own verdict on the values formatbox reads: a wrong type, a value out
 * of range or an unknown `[format]` key makes Ruff refuse the file, so `entry.error` is set.
 */
function ruffFormatSettings(table: Record<string, unknown>, entry: RuffConfigFile, text: string): Record<string, unknown> {
  const { file } = entry;
  const settings: Record<string, unknown> = {};
  const reject = (key: string, value: unknown, what = 'invalid value') => {
    entry.error ??= { file, ...locateKey(text, key.split('.').pop() as string), message: `${what} for ${key}: ${truncate(JSON.stringify(value) ?? String(value))}` };
  };
  if (table.extend !== undefined) {
    entry.ignored.push({ file, item: `extend: ${truncate(String(table.extend))}`, reason: 'extend is never followed in untrusted mode' });
  }
  for (const [key, check] of Object.entries(TOP_LEVEL)) {
    const value = table[key];
    if (value === undefined) continue;
    if (check(value)) settings[key] = value;
    else reject(key, value);
  }
  for (const key of ['exclude', 'extend-exclude'] as const) {
    const value = table[key];
    if (value === undefined) continue;
    if (!stringList(value)) reject(key, value, 'expected a list of strings');
    else if (key === 'exclude') entry.exclude = value as string[];
    else entry.extendExclude = value as string[];
  }
  if (table.format !== undefined) {
    if (!isRecord(table.format)) reject('format', table.format, 'expected a table');
    else {
      const format: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(table.format)) {
        const check = FORMAT[key] ?? FORMAT_OTHER[key];
        if (!check) reject(`format.${key}`, value, 'unknown field');
        else if (!check(value)) reject(`format.${key}`, value);
        else if (key === 'exclude') entry.formatExclude = value as string[];
        else if (FORMAT[key]) format[key] = value;
        else format[key] = value;
      }
      if (Object.keys(format).length > 0) settings.format = format;
    }
  }
  return settings;
}

/** `[tool.black]` mapped to Ruff's formatter: line-length, skip-string-normalization, skip-magic-trailing-comma. */
function blackEntry(black: Record<string, unknown>, file: string, dir: string, ignored: IgnoredItem[]): RuffConfigFile {
  const settings: Record<string, unknown> = {};
  const format: Record<string, unknown> = {};
  const lineLength = black['line-length'] ?? black.line_length;
  if (lineLength !== undefined) {
    if (TOP_LEVEL['line-length']?.(lineLength)) settings['line-length'] = lineLength;
    else ignored.push({ file, item: `tool.black.line-length: ${truncate(String(lineLength))}`, reason: 'invalid value' });
  }
  if ((black['skip-string-normalization'] ?? black.skip_string_normalization) === true) format['quote-style'] = 'preserve';
  if ((black['skip-magic-trailing-comma'] ?? black.skip_magic_trailing_comma) === true) format['skip-magic-trailing-comma'] = true;
  if (Object.keys(format).length > 0) settings.format = format;
  return { dir, file, kind: 'black', settings, ignored: [], extendExclude: [], formatExclude: [] };
}
