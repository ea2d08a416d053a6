/**
 * `.editorconfig` as Biome 2.4.15's CLI reads it (biome_configuration/src/editorconfig.rs,
 * biome_service/src/configuration.rs `load_editorconfig`, biome_glob/src/editorconfig.rs), which is
 * not how editors read it:
 * - one file only: the nearest `.editorconfig` from the directory Biome runs in, and not when it lies
 *   above the root biome.json; no cascading, `root = true` is parsed and not used;
 * - only `indent_style`, `indent_size` (`tab` is a width of 4, the style untouched), `end_of_line` and
 *   `insert_final_newline` (→ `trailingNewline`) are read; keys are case-insensitive, values are not;
 *   `unset`/`off` mean Biome's default (tab, 2, lf, true); a value Biome cannot parse is an error that
 *   stops the whole run;
 * - the first `[*]` section becomes the top-level `formatter`; every other section an override, placed
 *   before biome.json's own overrides (so an `[*.ts]` section beats `javascript.formatter`); a section
 *   glob Biome cannot compile is dropped. Globs follow Biome's conversion: no slash means any depth,
 *   `*` and `?` stop at `/`, `{a,b}` (one level), `{1..3}`.
 * Pure data handling; the biome.json merge is in config.ts.
 */
import type { ConfigError } from '../../config/config-error.js';

export interface BiomeEditorconfig {
  /** The first `[*]` section, in biome.json's `formatter` shape. */
  formatter?: Record<string, unknown>;
  /** The other sections, in order: an override's formatter for paths (relative to the settings' directory) that `test` matches. */
  overrides: Array<{ glob: string; test: (relativePath: string) => boolean; formatter: Record<string, unknown> }>;
}

/** Lines past this are not read (a config file is hostile input); Biome would read them, so formatbox refuses. */
const MAX_LINES = 10_000;
const MAX_GLOB_CHARS = 1024;

type Value<T> = { set: true; value: T } | undefined;

/** Parses `.editorconfig` text as Biome does; an error is what Biome would stop on. */
export function parseBiomeEditorconfig(text: string, file: string): { ok: true; config: BiomeEditorconfig } | { ok: false; error: ConfigError } {
  const lines = text.split('\n');
  if (lines.length > MAX_LINES) return { ok: false, error: { file, message: `more than ${MAX_LINES} lines: not read`, refusal: true } };
  const sections: Array<{ glob: string; options: Record<string, unknown> }> = [];
  let current: { glob: string; options: Record<string, unknown> } | undefined;
  const close = () => {
    if (current && Object.keys(current.options).length > 0) sections.push(current);
  };
  for (const [index, line] of lines.entries()) {
    const start = line.replace(/^[\t\n\f\r ]+/, '');
    const first = start[0];
    const fail = (message: string): { ok: false; error: ConfigError } => ({ ok: false, error: { file, line: index + 1, message } });
    if (first === '#' || first === ';') continue;
    if (first === '[') {
      close();
      // Biome drops the line's first character (not the `[`, when the line is indented), trims, and wants a closing `]`.
      const name = line.slice(1).replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '');
      if (!name.endsWith(']')) return fail('A section must be closed with `]`.');
      current = { glob: name.slice(0, -1), options: {} };
      continue;
    }
    if (first === undefined || !/[a-zA-Z]/.test(first)) continue;
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const key = line.slice(0, eq).replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '').toLowerCase();
    const value = line.slice(eq + 1).replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '');
    if (!current) {
      if (key === 'root' && value !== 'true' && value !== 'false') return fail('Invalid boolean value: `true` or `false` is expected.');
      continue;
    }
    if (key === 'indent_style') {
      const parsed = editorconfigValue(value, (v) => (v === 'tab' || v === 'space' ? v : undefined), 'tab');
      if (parsed === null) return fail('Invalid `ident_style` value: `space` or `tab` is expected.');
      if (parsed) current.options.indentStyle = parsed.value;
    } else if (key === 'indent_size') {
      const parsed = editorconfigValue(value, (v) => (v === 'tab' ? 4 : /^\+?\d+$/.test(v) && Number(v) <= 255 ? Number(v) : undefined), 2);
      if (parsed === null || (parsed && (parsed.value as number) > 24)) return fail(`The indent_size should be between 0 and 24, got ${value}`);
      if (parsed) current.options.indentWidth = parsed.value;
    } else if (key === 'end_of_line') {
      const parsed = editorconfigValue(value, (v) => (['lf', 'crlf', 'cr', 'auto'].includes(v) ? v : undefined), 'lf');
      if (parsed === null) return fail('Invalid `end_of_line` value: `lf`, `cr`, or `crlf` is expected.');
      if (parsed) current.options.lineEnding = parsed.value;
    } else if (key === 'insert_final_newline') {
      const parsed = editorconfigValue(value, (v) => (v === 'true' ? true : v === 'false' ? false : undefined), true);
      if (parsed === null) return fail('Invalid boolean value: `true` or `false` is expected.');
      if (parsed) current.options.trailingNewline = parsed.value;
    }
  }
  close();
  const config: BiomeEditorconfig = { overrides: [] };
  const globalIndex = sections.findIndex((s) => s.glob === '*');
  if (globalIndex >= 0) config.formatter = (sections.splice(globalIndex, 1)[0] as { options: Record<string, unknown> }).options;
  for (const section of sections) {
    const regexp = editorconfigGlobRegExp(section.glob);
    // Biome drops a section whose glob it cannot compile.
    if (regexp) config.overrides.push({ glob: section.glob, test: (path) => regexp.test(path), formatter: section.options });
  }
  return { ok: true, config };
}

/** `unset`/`off`: Biome's default; undefined: not set; null: a value Biome rejects. */
function editorconfigValue<T>(value: string, parse: (value: string) => T | undefined, fallback: T): Value<T> | null {
  if (value === 'unset' || value === 'off') return { set: true, value: fallback };
  const parsed = parse(value);
  return parsed === undefined ? null : { set: true, value: parsed };
}

/**
 * An editorconfig section glob as Biome compiles it (its `convert_glob`, then globset with `/` kept
 * literal and `\` escapes), as a regular expression over a whole relative path; undefined when Biome
 * rejects the glob (a dangling `\`, nested `{}`, a reversed range).
 */
export function editorconfigGlobRegExp(glob: string): RegExp | undefined {
  if (glob.length > MAX_GLOB_CHARS) return undefined;
  const converted = convertGlob(glob);
  if (converted === undefined) return undefined;
  const body = globsetRegExpBody(converted);
  return body === undefined ? undefined : new RegExp(`^${body}$`, 's');
}

/** Biome's `convert_glob`: `**` made a whole path component, `[/]` and lone braces made literal, `{1..3}` spelt out, `**\/` prefixed when there is no slash. */
function convertGlob(pattern: string): string | undefined {
  const inserts: Array<{ index: number; content: string }> = [];
  const ranges: Array<{ from: number; to: number; text: string }> = [];
  let hasNoSlashes = true;
  let prevIsSlash = true;
  let alternationStart: number | undefined;
  let alternationHasComma = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      if (i + 1 >= pattern.length) return undefined; // dangling escape
      i++;
    } else if (c === '/') {
      hasNoSlashes = false;
      prevIsSlash = true;
      continue;
    } else if (c === '*') {
      if (pattern[i + 1] === '*') {
        if (!prevIsSlash) inserts.push({ index: i, content: '*/' });
        const after = pattern[i + 2];
        if (after === '*') inserts.push({ index: i + 2, content: '/' });
        else if (after !== undefined && after !== '/') inserts.push({ index: i + 2, content: '/*' });
        i++;
      }
    } else if (c === '[') {
      for (let j = i + 1; ; j++) {
        const d = pattern[j];
        if (d === '\\') {
          j++;
          continue;
        }
        if (d === undefined || d === '/') {
          inserts.push({ index: i, content: '\\' });
          break;
        }
        if (d === ']') {
          i = j;
          break;
        }
      }
    } else if (c === '{') {
      if (alternationStart !== undefined) return undefined; // nested alternates
      alternationStart = i;
    } else if (c === ',' && alternationStart !== undefined) {
      alternationHasComma = true;
    } else if (c === '}') {
      if (alternationStart !== undefined) {
        const candidate = pattern.slice(alternationStart + 1, i);
        const range = /^([+-]?\d+)\.\.([+-]?\d+)$/.exec(candidate);
        if (range) {
          const from = Number(range[1]);
          const to = Number(range[2]);
          if (from > to) return undefined;
          if (to - from > 1000) return undefined;
          ranges.push({ from: alternationStart + 1, to: i, text: Array.from({ length: to - from + 1 }, (_, k) => String(from + k)).join(',') });
        } else if (!alternationHasComma) {
          inserts.push({ index: alternationStart, content: '\\' }, { index: i, content: '\\' });
          alternationHasComma = false;
        }
        alternationStart = undefined;
      } else inserts.push({ index: i, content: '\\' });
    }
    prevIsSlash = false;
  }
  if (alternationStart !== undefined) inserts.push({ index: alternationStart, content: '\\' });
  // Applied from the end, as Biome does, so earlier indexes stay valid.
  const edits = [...inserts.map((e) => ({ at: e.index, end: e.index, text: e.content })), ...ranges.map((r) => ({ at: r.from, end: r.to, text: r.text }))].sort((a, b) => b.at - a.at);
  let out = pattern;
  for (const edit of edits) out = out.slice(0, edit.at) + edit.text + out.slice(edit.end);
  if (hasNoSlashes && out !== '' && !out.startsWith('**')) out = `**/${out}`;
  return out;
}

/** A globset pattern (literal separator, backslash escapes) as a regular expression body. */
function globsetRegExpBody(glob: string): string | undefined {
  let out = '';
  let inAlternation = false;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '\\') {
      out += escapeRegExp(glob[++i] ?? '');
    } else if (c === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0 || glob[i - 1] === '/';
        const next = glob[i + 2];
        if (!atStart || (next !== undefined && next !== '/')) return undefined; // globset refuses `**` inside a component
        if (next === '/') {
          // `**/` as a prefix or `/**/` inside: zero or more directories.
          out += '(?:.*/)?';
          i += 2;
        } else {
          // `**` alone or `/**` at the end: anything.
          out += '.*';
          i += 1;
        }
      } else out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else if (c === '[') {
      let j = i + 1;
      let negated = false;
      if (glob[j] === '!' || glob[j] === '^') {
        negated = true;
        j++;
      }
      let body = '';
      if (glob[j] === ']') {
        body += '\\]';
        j++;
      }
      for (; j < glob.length && glob[j] !== ']'; j++) {
        const d = glob[j] as string;
        if (d === '\\') body += escapeRegExp(glob[++j] ?? '');
        else if (d === '-' && body !== '' && glob[j + 1] !== ']') body += '-';
        else body += escapeRegExp(d);
      }
      if (j >= glob.length) return undefined; // unclosed class
      out += negated ? `[^/${body}]` : `[${body}]`;
      i = j;
    } else if (c === '{') {
      if (inAlternation) return undefined;
      inAlternation = true;
      out += '(?:';
    } else if (c === '}' && inAlternation) {
      inAlternation = false;
      out += ')';
    } else if (c === ',' && inAlternation) out += '|';
    else out += escapeRegExp(c);
  }
  return inAlternation ? undefined : out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
