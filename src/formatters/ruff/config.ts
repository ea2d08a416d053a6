/**
 * Ruff's format settings from `.ruff.toml`, `ruff.toml` or `pyproject.toml [tool.ruff]` (Ruff's order
 * within a directory; the nearest directory wins), and `[tool.black]` as a fallback declaration.
 * Only format settings reach the wasm workspace; `extend` is never followed; values are validated
 * (the wasm throws on unknown fields and bad values).
 */
import type { IgnoredItem } from '../../core/types.js';
import { isRecord, parseData, truncate } from '../../config/data.js';
import { baseOf, dirOf } from '../../config/paths.js';
import { NOT_READ_REASON, locateKey, type ConfigError } from '../../config/config-error.js';
import { globsetRegExp } from './exclude.js';

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
  /** `per-file-target-version` as written (glob → version), resolved per file by `ruffSettingsFor`. */
  perFileTargetVersion?: Array<[pattern: string, version: string]>;
  /** `exclude` (replaces Ruff's default list when given), `extend-exclude`, `format.exclude`. */
  exclude?: string[];
  extendExclude: string[];
  formatExclude: string[];
}

type Check = (value: unknown) => boolean;
const int = (min: number, max: number): Check => (v) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
const oneOf = (...values: string[]): Check => (v) => typeof v === 'string' && values.includes(v);
const bool: Check = (v) => typeof v === 'boolean';

/**
 * Ruff 0.16.9's Python versions (its loader names them when it rejects one; a test checks this list
 * against the wasm). `target-version` itself is judged by Ruff's loader in the adapter.
 */
export const RUFF_PYTHON_VERSIONS: readonly string[] = ['py37', 'py38', 'py39', 'py310', 'py311', 'py312', 'py313', 'py314', 'py315'];

/** Top-level keys that change how Ruff formats, passed to the wasm. */
const TOP_LEVEL: Record<string, Check> = {
  'line-length': int(1, 320),
  'indent-width': int(1, 16),
  'target-version': (v) => typeof v === 'string',
  preview: bool,
};
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

/**
 * Reads Ruff and black configs; for each directory keeps the file Ruff would use (black only where no
 * Ruff config is). `allFiles` (every config file of the project, default `files`) is where Ruff's
 * `requires-python` fallback looks.
 */
export function loadRuffConfigs(files: Record<string, string | null>, ignored: IgnoredItem[], allFiles: Record<string, string | null> = files): { ruff: RuffConfigFile[]; black: RuffConfigFile[] } {
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
    if (entry.settings['target-version'] === undefined) {
      const fallback = requiresPythonTargetVersion(allFiles, dir);
      if (fallback) entry.settings['target-version'] = fallback;
    }
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
  const perFile = table['per-file-target-version'];
  if (perFile !== undefined) {
    if (!isRecord(perFile) || !Object.values(perFile).every((v) => typeof v === 'string')) reject('per-file-target-version', perFile, 'expected a table of versions');
    else entry.perFileTargetVersion = Object.entries(perFile) as Array<[string, string]>;
  }
  if (table.extension !== undefined) {
    // Ruff would format files of these extensions as the named language; formatbox picks files by its own extension list.
    entry.ignored.push({ file, item: `extension: ${truncate(JSON.stringify(table.extension) ?? '')}`, reason: 'formatbox chooses the language by its own extension list' });
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

/**
 * Ruff's fallback when a config sets no `target-version`: the lower bound of `[project] requires-python`
 * in the nearest `pyproject.toml` that has one, from the config's directory upwards (Ruff's
 * `find_fallback_target_version`; a pyproject.toml that does not parse is passed over, as Ruff does).
 */
function requiresPythonTargetVersion(files: Record<string, string | null>, configDir: string): string | undefined {
  for (let dir: string | undefined = configDir; dir !== undefined; dir = dir === '' ? undefined : dirOf(dir)) {
    const text = files[dir === '' ? 'pyproject.toml' : `${dir}/pyproject.toml`];
    if (typeof text !== 'string') continue;
    const parsed = parseData(text, 'toml');
    if (!parsed.ok || !isRecord(parsed.value) || !isRecord(parsed.value.project)) continue;
    const requires = parsed.value.project['requires-python'] ?? parsed.value.project['requires_python'];
    if (typeof requires !== 'string') continue;
    return minimumPythonVersion(requires);
  }
  return undefined;
}

/**
 * The smallest `major.minor` named by a lower-bounding specifier (`==`, `==X.*`, `===`, `~=`, `>`, `>=`)
 * of a PEP 440 `requires-python`, as one of Ruff's versions (none when Ruff has no such version).
 */
export function minimumPythonVersion(specifiers: string): string | undefined {
  let minimum: [number, number] | undefined;
  for (const part of specifiers.split(',')) {
    const match = /^\s*(===|==|~=|!=|<=|>=|<|>)\s*v?(\d+)\.(\d+)(?:[.\w*+!-]*)\s*$/.exec(part);
    if (!match || !['===', '==', '~=', '>', '>='].includes(match[1] as string)) continue;
    const version: [number, number] = [Number(match[2]), Number(match[3])];
    if (!minimum || version[0] < minimum[0] || (version[0] === minimum[0] && version[1] < minimum[1])) minimum = version;
  }
  if (!minimum) return undefined;
  const name = `py${minimum[0]}${minimum[1]}`;
  return RUFF_PYTHON_VERSIONS.includes(name) ? name : undefined;
}

/**
 * The settings Ruff applies to `path` under `config`: `per-file-target-version` picks the file's
 * `target-version`. Each pattern is matched as Ruff's per-file lists match: the pattern as written
 * against the base name, or joined onto the config's directory against the whole path; `!pattern`
 * matches what it does not. Ruff takes the first match in its hash map's order, which formatbox
 * cannot reproduce: patterns matching with different versions are refused.
 */
export function ruffSettingsFor(config: RuffConfigFile, path: string): { settings: Record<string, unknown>; error?: ConfigError } {
  if (!config.perFileTargetVersion) return { settings: config.settings };
  const base = baseOf(path);
  const versions = new Set<string>();
  for (const [written, version] of config.perFileTargetVersion) {
    const negated = written.startsWith('!');
    const pattern = negated ? written.slice(1) : written;
    const asBase = globsetRegExp(pattern);
    const asPath = globsetRegExp(config.dir === '' ? pattern : `${config.dir}/${pattern}`);
    const matched = (asBase?.test(base) ?? false) || (asPath?.test(path) ?? false);
    if (matched !== negated) versions.add(version);
  }
  if (versions.size === 0) return { settings: config.settings };
  if (versions.size > 1) {
    return { settings: config.settings, error: { file: config.file, message: `per-file-target-version: ${[...versions].join(', ')} all match ${path}; Ruff picks one in an order formatbox cannot reproduce`, refusal: true } };
  }
  return { settings: { ...config.settings, 'target-version': [...versions][0] } };
}
