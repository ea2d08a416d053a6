/**
 * `.editorconfig` read as data (INI), resolved for one file the way editorconfig-core does,
 * and mapped to Prettier options the way Prettier's `editorconfig: true` does.
 * Bounded: section and line counts, glob complexity (see glob.ts).
 */
import { compileGlob, type GlobBudget } from './glob.js';
import type { IgnoredItem } from '../core/types.js';

const EDITORCONFIG_LIMITS = { maxSections: 1000, maxLineChars: 4096 };

interface EditorconfigSection {
  glob: string;
  test: (relativePath: string) => boolean;
  properties: Record<string, string>;
}

export interface EditorconfigFile {
  /** Project-relative directory of the file ('' for the root). */
  dir: string;
  file: string;
  root: boolean;
  sections: EditorconfigSection[];
  /** The file as written: Biome reads it its own way (formatters/biome/editorconfig.ts). */
  text?: string;
}

/** Known properties whose values editorconfig-core lower-cases. */
const KNOWN = new Set(['end_of_line', 'indent_style', 'indent_size', 'insert_final_newline', 'trim_trailing_whitespace', 'charset', 'tab_width', 'max_line_length', 'quote_type']);

/** Parses one `.editorconfig`. Sections whose glob is refused are reported in `ignored`. */
export function parseEditorconfig(text: string, file: string, dir: string, ignored: IgnoredItem[], budget?: GlobBudget): EditorconfigFile {
  const result: EditorconfigFile = { dir, file, root: false, sections: [], text };
  let section: EditorconfigSection | undefined;
  let skipping = false;
  const lines = text.split(/\r\n|\r|\n/);
  for (const [index, raw] of lines.entries()) {
    if (raw.length > EDITORCONFIG_LIMITS.maxLineChars) {
      ignored.push({ file, item: `line ${index + 1}`, reason: `line longer than ${EDITORCONFIG_LIMITS.maxLineChars} characters` });
      continue;
    }
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    if (line.startsWith('[') && line.endsWith(']')) {
      if (result.sections.length >= EDITORCONFIG_LIMITS.maxSections) {
        ignored.push({ file, item: `[${line.slice(1, 40)}…]`, reason: `more than ${EDITORCONFIG_LIMITS.maxSections} sections` });
        break;
      }
      const glob = line.slice(1, -1);
      const compiled = compileGlob(fullGlob(glob), budget);
      if (!compiled.ok) {
        ignored.push({ file, item: `[${glob.length > 60 ? `${glob.slice(0, 60)}…` : glob}]`, reason: compiled.reason });
        section = undefined;
        skipping = true;
        continue;
      }
      skipping = false;
      section = { glob, test: compiled.test, properties: {} };
      result.sections.push(section);
      continue;
    }
    const eq = line.search(/[=:]/);
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim().toLowerCase();
    let value = line.slice(eq + 1).trim();
    if (KNOWN.has(key)) value = value.toLowerCase();
    if (section) section.properties[key] = value;
    else if (!skipping && key === 'root') result.root = value.toLowerCase() === 'true';
  }
  return result;
}

/** EditorConfig: a glob without `/` matches in any directory; a leading `/` anchors to the file's dir. */
function fullGlob(glob: string): string {
  const slash = glob.indexOf('/');
  if (slash === -1) return `**/${glob}`;
  if (slash === 0) return glob.slice(1);
  return glob;
}

/**
 * Properties for `path` (project-relative), from the given files ordered from the root down.
 * Files above the nearest `root = true` are not used. Later sections and nearer files win.
 */
export function editorconfigFor(files: EditorconfigFile[], path: string, options: { postProcess?: boolean } = {}): Record<string, string | number> {
  const applicable = files.filter((f) => f.dir === '' || path.startsWith(`${f.dir}/`));
  let start = 0;
  applicable.forEach((f, index) => {
    if (f.root) start = index;
  });
  const merged: Record<string, string> = {};
  for (const f of applicable.slice(start)) {
    const relative = f.dir === '' ? path : path.slice(f.dir.length + 1);
    for (const section of f.sections) {
      if (section.test(relative)) Object.assign(merged, section.properties);
    }
  }
  const out: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(merged)) {
    if (value === 'unset') continue;
    out[key] = /^\d+$/.test(value) ? Number(value) : value;
  }
  // editorconfig-core's post-processing (Prettier uses it; Biome reads the raw properties).
  if (options.postProcess === false) return out;
  if (out.indent_style === 'tab' && !('indent_size' in out)) out.indent_size = 'tab';
  if ('indent_size' in out && !('tab_width' in out) && out.indent_size !== 'tab') out.tab_width = out.indent_size;
  if (out.indent_size === 'tab' && 'tab_width' in out) out.indent_size = out.tab_width as number;
  return out;
}

/** Prettier's editorconfig-to-prettier mapping. */
export function editorconfigToPrettier(ec: Record<string, string | number>): Record<string, unknown> {
  const positive = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
  const result: Record<string, unknown> = {};
  if (ec.indent_style === 'space') result.useTabs = false;
  else if (ec.indent_style === 'tab' || ec.indent_size === 'tab') result.useTabs = true;
  if (result.useTabs === false && positive(ec.indent_size)) result.tabWidth = ec.indent_size;
  else if (positive(ec.tab_width)) result.tabWidth = ec.tab_width;
  if (ec.max_line_length === 'off') result.printWidth = Number.POSITIVE_INFINITY;
  else if (positive(ec.max_line_length)) result.printWidth = ec.max_line_length;
  if (ec.quote_type === 'single') result.singleQuote = true;
  else if (ec.quote_type === 'double') result.singleQuote = false;
  if (ec.end_of_line === 'lf' || ec.end_of_line === 'crlf' || ec.end_of_line === 'cr') result.endOfLine = ec.end_of_line;
  return result;
}

/** Values of the properties formatbox's EditorConfig normaliser applies (src/formatters/editorconfig/adapter.ts). */
const NORMALISED: Readonly<Record<string, readonly unknown[]>> = {
  trim_trailing_whitespace: ['true'],
  insert_final_newline: ['true', 'false'],
  end_of_line: ['lf', 'crlf', 'cr'],
  indent_style: ['space', 'tab'],
  charset: ['utf-8', 'utf-8-bom'],
};

/** The properties of a file's EditorConfig that the normaliser would apply (none: it is not used). */
export function normalisedProperties(properties: Record<string, string | number>): string[] {
  return Object.keys(NORMALISED).filter((key) => NORMALISED[key]!.includes(properties[key]));
}

/** Keys only shfmt reads: a section that sets one is about shell files. */
const SHFMT_KEYS = ['shell_variant', 'binary_next_line', 'switch_case_indent', 'space_redirects', 'keep_padding', 'function_next_line'];

/**
 * The `.editorconfig` section that declares shell formatting for `path`: one that applies to it and
 * either names shell files in its glob (`[*.sh]`, `[{*.bash,*.sh}]`) or sets a key only shfmt reads.
 */
export function shellSectionFor(files: EditorconfigFile[], path: string): { file: string; glob: string } | undefined {
  for (const f of [...files].reverse()) {
    if (f.dir !== '' && !path.startsWith(`${f.dir}/`)) continue;
    const relative = f.dir === '' ? path : path.slice(f.dir.length + 1);
    for (const section of [...f.sections].reverse()) {
      if (!section.test(relative)) continue;
      if (/\b(sh|bash|bats|mksh|ksh|zsh)\b/.test(section.glob) || SHFMT_KEYS.some((key) => key in section.properties)) return { file: f.file, glob: section.glob };
    }
  }
  return undefined;
}
