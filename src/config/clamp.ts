/**
 * Untrusted mode clamps the numeric options that multiply output: indentation widths (applied once
 * per nesting level on every line) and padding counts. `tabWidth: 100000` in a .prettierrc turned a
 * 2.3 KB file into 155 MB. Values above the range real projects use (2, 3, 4, 8; 16 leaves room) are
 * lowered to its top, and each clamp is listed (doctor() and the receipt's `ignored`): the output
 * then differs from what the formatter's own CLI writes, and says so.
 *
 * Line widths are not clamped: a wider line only joins lines (Prettier with `printWidth: 1e9` writes
 * fewer bytes than with 80, and faster), so no width inflates the output, and "never wrap" configs
 * (`printWidth: 9999`) are real. Values a formatter rejects are left to its own validation.
 */
import type { IgnoredItem } from '../core/types.js';
import { isRecord } from './data.js';
import type { ProjectBase } from './project.js';

/** The largest indentation width (and padding) untrusted config may set. */
export const MAX_UNTRUSTED_INDENT = 16;

/**
 * Clamps `.editorconfig`'s amplifying options in place and records each clamp; each formatter clamps
 * its own options in its declaration (`project.clamp`, run by project.ts, which reads the registry).
 */
export function clampEditorconfigOptions(project: ProjectBase): void {
  for (const file of project.editorconfig) {
    const clamped: IgnoredItem[] = [];
    for (const section of file.sections) {
      for (const key of ['indent_size', 'tab_width']) {
        const value = section.properties[key];
        if (value === undefined || !/^\d+$/.test(value) || Number(value) <= MAX_UNTRUSTED_INDENT) continue;
        section.properties[key] = String(MAX_UNTRUSTED_INDENT);
        clamped.push(clampItem(file.file, `[${truncate(section.glob)}] ${key} = ${truncate(value)}`, value, 'Prettier (through .editorconfig)'));
      }
    }
    recordClamps(clamped, project.ignored);
  }
}

/** Lowers each of `keys` in `object` past the limit to it; one item per clamp into `out`. */
export function clampKeys(object: Record<string, unknown>, keys: readonly string[], file: string, prefix: string, tool: string, out: IgnoredItem[]): void {
  for (const key of keys) {
    const value = object[key];
    if (typeof value !== 'number' || !(Math.abs(value) > MAX_UNTRUSTED_INDENT)) continue;
    object[key] = value < 0 ? -MAX_UNTRUSTED_INDENT : MAX_UNTRUSTED_INDENT;
    out.push(clampItem(file, `${prefix}${key}: ${value}`, String(value), tool));
  }
}

/** Every `keys` entry at any depth (Biome and dprint repeat them per language and per override). */
export function clampDeep(value: unknown, keys: readonly string[], file: string, path: string, tool: string, out: IgnoredItem[]): void {
  if (Array.isArray(value)) value.forEach((item, index) => clampDeep(item, keys, file, `${path}[${index}]`, tool, out));
  else if (isRecord(value)) {
    clampKeys(value, keys, file, path === '' ? '' : `${path}.`, tool, out);
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === 'object' && item !== null) clampDeep(item, keys, file, path === '' ? key : `${path}.${key}`, tool, out);
    }
  }
}

export function clampItem(file: string, item: string, value: string, tool: string): IgnoredItem {
  return {
    file,
    item,
    reason: `clamped from ${truncate(value)} to ${MAX_UNTRUSTED_INDENT} in untrusted mode (indentation repeats on every nested line, so a large value only inflates the output); the result differs from what ${tool}'s own CLI writes`,
  };
}

/** Clamps each config file with `clampOne` and records its clamps (first in the file's own list, when it keeps one). */
export function clampEach<T>(files: readonly T[], ignored: IgnoredItem[], clampOne: (file: T, clamped: IgnoredItem[]) => void, ownList?: (file: T) => IgnoredItem[]): void {
  for (const file of files) {
    const clamped: IgnoredItem[] = [];
    clampOne(file, clamped);
    recordClamps(clamped, ...(ownList ? [ownList(file)] : []), ignored);
  }
}

/** Clamps go first in each list: receipts show only the first items. */
export function recordClamps(clamped: IgnoredItem[], ...lists: IgnoredItem[][]): void {
  if (clamped.length === 0) return;
  const [own, ...rest] = lists;
  own?.unshift(...clamped);
  for (const list of rest) if (list !== own) list.push(...clamped);
}

export function dedupeClamps(items: IgnoredItem[]): IgnoredItem[] {
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(item.item) && seen.add(item.item));
}

function truncate(text: string, max = 40): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
