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

export const RUFF_CONFIG_NAMES = ['.ruff.toml', 'ruff.toml', 'pyproject.toml'];

export interface RuffConfigFile {
  dir: string;
  file: string;
  kind: 'ruff' | 'black';
  /** ruff.toml-shaped options with kebab-case keys. */
  settings: Record<string, unknown>;
  ignored: IgnoredItem[];
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
    const parsed = text === null || text === undefined ? { ok: false as const, reason: 'not read (too large, not a regular file, or outside the root)' } : parseData(text, 'toml');
    if (!parsed.ok || !isRecord(parsed.value)) {
      const reason = parsed.ok ? 'not a TOML table' : parsed.reason;
      if (base === 'pyproject.toml') {
        if (text !== null && text !== undefined) ignored.push({ file, item: base, reason });
        continue;
      }
      // A ruff.toml that cannot be read still declares Ruff: its defaults are used.
      if (!ruff.has(dir)) {
        const entry: RuffConfigFile = { dir, file, kind: 'ruff', settings: {}, ignored: [{ file, item: base, reason: `${reason}; Ruff defaults are used` }] };
        ignored.push(...entry.ignored);
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
    const entry: RuffConfigFile = { dir, file, kind: 'ruff', settings: {}, ignored: [] };
    entry.settings = ruffFormatSettings(table, file, entry.ignored);
    ignored.push(...entry.ignored);
    ruff.set(dir, entry);
  }
  return { ruff: [...ruff.values()], black: black.filter((b) => !ruff.has(b.dir)) };
}

function ruffFormatSettings(table: Record<string, unknown>, file: string, ignored: IgnoredItem[]): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  if (table.extend !== undefined) {
    ignored.push({ file, item: `extend: ${truncate(String(table.extend))}`, reason: 'extend is never followed in untrusted mode' });
  }
  for (const [key, check] of Object.entries(TOP_LEVEL)) {
    const value = table[key];
    if (value === undefined) continue;
    if (check(value)) settings[key] = value;
    else ignored.push({ file, item: `${key}: ${truncate(String(value))}`, reason: 'invalid value' });
  }
  if (table.format !== undefined) {
    if (!isRecord(table.format)) ignored.push({ file, item: 'format', reason: 'not a table' });
    else {
      const format: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(table.format)) {
        const check = FORMAT[key];
        if (!check) {
          // Not style settings; the wasm workspace would reject them. Ruff applies `exclude` only when
          // walking directories (without force-exclude), never to a file named explicitly, as here.
          ignored.push({ file, item: `format.${key}`, reason: key === 'exclude' ? 'file exclusion is not applied to a file formatted by name (as Ruff without force-exclude)' : 'not passed to the wasm formatter (only style settings are)' });
        } else if (check(value)) format[key] = value;
        else ignored.push({ file, item: `format.${key}: ${truncate(String(value))}`, reason: 'invalid value' });
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
  return { dir, file, kind: 'black', settings, ignored: [] };
}
