/**
 * Project config files read as data only: JSON, JSONC, JSON5, YAML, TOML (INI lives in editorconfig.ts).
 * Every parse is bounded: size, nesting depth (checked before and after parsing), node count and
 * YAML alias expansion. The result is a plain-object copy without `__proto__`/`constructor` keys.
 */
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import JSON5 from 'json5';
import { parseDocument } from 'yaml';
import { parse as parseToml } from 'smol-toml';
import { positionAt } from './config-error.js';

export type DataFormat = 'json' | 'jsonc' | 'json5' | 'yaml' | 'toml';

export interface DataLimits {
  /** Characters per file. Default 1 MiB. */
  maxChars: number;
  /** Nesting of objects/arrays. Default 64. */
  maxDepth: number;
  /** Objects, arrays and scalars in the parsed value. Default 100 000. */
  maxNodes: number;
  /** YAML aliases per document. Default 100. */
  maxAliases: number;
  /**
   * Characters per YAML or JSON5 file. Default 64 Ki. Their parsers are slow (a 250 KB YAML file
   * took 1.8 s in a fresh process here, 1 MB of JSON5 0.6 s), and one file is the unit of config
   * work that cannot be interrupted on the caller's thread. Real YAML and JSON5 configs are a few KB.
   */
  maxSlowFormatChars: number;
}

export const DATA_LIMITS: DataLimits = { maxChars: 1024 * 1024, maxDepth: 64, maxNodes: 100_000, maxAliases: 100, maxSlowFormatChars: 64 * 1024 };

/** A failed parse may say where (1-based line and column) the text went wrong. */
export type Parsed = { ok: true; value: unknown } | { ok: false; reason: string; line?: number; column?: number };

/** Parses `text` as data, within `limits`. Never throws. */
export function parseData(text: string, format: DataFormat, limits: DataLimits = DATA_LIMITS): Parsed {
  if (text.length > limits.maxChars) return { ok: false, reason: `larger than ${limits.maxChars} characters` };
  const depth = bracketDepth(text, format === 'json5' || format === 'yaml' || format === 'toml');
  if (depth > limits.maxDepth) return { ok: false, reason: `nested deeper than ${limits.maxDepth} levels` };
  if ((format === 'yaml' || format === 'json5') && text.length > limits.maxSlowFormatChars) {
    return { ok: false, reason: `${format.toUpperCase()} larger than ${limits.maxSlowFormatChars} characters (its parser is slow; config is read on the caller's thread)` };
  }
  let value: unknown;
  try {
    value = parseUnchecked(text, format, limits);
  } catch (error) {
    if (error instanceof RangeError) return { ok: false, reason: `nested too deeply to parse (${error.message})` };
    return { ok: false, reason: `not valid ${format.toUpperCase()}: ${firstLine(error)}`, ...errorPosition(error, text) };
  }
  return sanitiseValue(value, limits);
}

function parseUnchecked(text: string, format: DataFormat, limits: DataLimits): unknown {
  switch (format) {
    case 'json':
    case 'jsonc': {
      // Biome and others accept comments and trailing commas in .json too; JSONC is a superset.
      const errors: ParseError[] = [];
      const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
      const first = errors[0];
      if (first) throw Object.assign(new Error(`${printParseErrorCode(first.error)} at offset ${first.offset}`), { offset: first.offset });
      return value;
    }
    case 'json5':
      return JSON5.parse(text);
    case 'yaml': {
      // Core schema, aliases bounded. `yaml` never constructs functions or classes; a custom tag
      // (`!!js/function`, `!!python/object`) would silently become a string, so it is refused.
      const doc = parseDocument(text, { schema: 'core', merge: true, uniqueKeys: false, prettyErrors: false });
      const problem = doc.errors[0] ?? doc.warnings[0];
      if (problem) throw Object.assign(new Error(problem.code === 'TAG_RESOLVE_FAILED' ? `custom YAML tags are not allowed (${problem.message.split('\n')[0]})` : problem.message), { offset: problem.pos[0] });
      return doc.toJS({ maxAliasCount: limits.maxAliases });
    }
    case 'toml':
      return parseToml(text, { maxDepth: limits.maxDepth });
  }
}

/**
 * Deepest `[`/`{` nesting outside quoted strings: a cheap check before handing text to a
 * recursive parser. Conservative: comments are not recognised, so brackets in them count too.
 */
export function bracketDepth(text: string, singleQuotes = false): number {
  let depth = 0;
  let deepest = 0;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote || c === '\n') quote = '';
      continue;
    }
    if (c === '"' || (singleQuotes && c === "'")) quote = c;
    else if (c === '[' || c === '{') {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if ((c === ']' || c === '}') && depth > 0) depth--;
  }
  return deepest;
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A plain copy of a parsed value, bounded in depth and size, without prototype-polluting keys. */
function sanitiseValue(value: unknown, limits: DataLimits = DATA_LIMITS): Parsed {
  let nodes = 0;
  const copy = (input: unknown, depth: number): unknown => {
    if (++nodes > limits.maxNodes) throw new LimitError(`more than ${limits.maxNodes} values`);
    if (depth > limits.maxDepth) throw new LimitError(`nested deeper than ${limits.maxDepth} levels`);
    if (input === null || typeof input === 'string' || typeof input === 'boolean') return input;
    if (typeof input === 'number') return input;
    if (typeof input === 'bigint') return Number(input);
    if (input instanceof Date) return input.toISOString();
    if (Array.isArray(input)) return input.map((item) => copy(item, depth + 1));
    if (typeof input === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(input as Record<string, unknown>)) {
        if (FORBIDDEN_KEYS.has(key)) continue;
        out[key] = copy(item, depth + 1);
      }
      return out;
    }
    return undefined;
  };
  try {
    return { ok: true, value: copy(value, 0) };
  } catch (error) {
    if (error instanceof LimitError || error instanceof RangeError) return { ok: false, reason: error.message };
    throw error;
  }
}

class LimitError extends Error {}

/** Line and column of a parser's error: an offset (jsonc-parser, yaml), or the line/column JSON5 and smol-toml report. */
function errorPosition(error: unknown, text: string): { line?: number; column?: number } {
  const e = error as { offset?: unknown; lineNumber?: unknown; columnNumber?: unknown; line?: unknown; column?: unknown };
  if (typeof e.offset === 'number') return positionAt(text, e.offset);
  if (typeof e.lineNumber === 'number') return { line: e.lineNumber, ...(typeof e.columnNumber === 'number' ? { column: e.columnNumber } : {}) };
  if (typeof e.line === 'number') return { line: e.line, ...(typeof e.column === 'number' ? { column: e.column } : {}) };
  return {};
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.split('\n')[0] ?? '';
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A config value quoted in a message, cut at `max` characters. */
export function truncate(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
