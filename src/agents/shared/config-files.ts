/**
 * How `formatbox init` changes an agent's config files: read the file (JSON with comments, or
 * TOML as text), add only what is missing, never replace a value the user set, write the result
 * atomically and show the change as a diff. Running init twice changes nothing the second time.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync, lstatSync } from 'node:fs';
import { dirname } from 'node:path';
import { applyEdits, modify, parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { unifiedDiff } from '../../core/diff.js';
import { FormatboxError } from '../../core/errors.js';

/** One file's planned change. `after === before` means nothing to do. */
export interface FileChange {
  path: string;
  before: string | undefined;
  after: string;
  /** Things found set differently and left as the user has them. */
  kept: string[];
  /** Create the file with this mode (a file holding a secret: 0600). */
  mode?: number;
}

export function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new FormatboxError('PATH_REFUSED', `cannot read ${path}: ${(error as Error).message}`);
  }
}

/** A JSON (or JSONC) document being edited in place: comments and layout are kept. */
export class JsonDocument {
  text: string;
  readonly kept: string[] = [];

  constructor(readonly path: string, before: string | undefined) {
    this.text = before === undefined || before.trim() === '' ? '{}\n' : before;
    const errors: ParseError[] = [];
    const value = parse(this.text, errors, { allowTrailingComma: true });
    if (errors.length > 0) throw new FormatboxError('INVALID_CONFIG', `${path} is not valid JSON (${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}); fix it, then run init again`);
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new FormatboxError('INVALID_CONFIG', `${path} does not hold a JSON object`);
  }

  get value(): Record<string, unknown> {
    return parse(this.text, [], { allowTrailingComma: true }) as Record<string, unknown>;
  }

  get(path: Array<string | number>): unknown {
    let at: unknown = this.value;
    for (const key of path) at = at && typeof at === 'object' ? (at as Record<string, unknown>)[key as string] : undefined;
    return at;
  }

  set(path: Array<string | number>, value: unknown): void {
    this.text = applyEdits(this.text, modify(this.text, path, value, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } }));
  }

  /** Sets `path` to `value` unless it is set already; a different value is kept and reported. */
  ensure(path: string[], value: unknown, what = path.join('.')): void {
    const current = this.get(path);
    if (current === undefined) this.set(path, value);
    else if (JSON.stringify(current) !== JSON.stringify(value)) this.kept.push(`${what} is already set (to ${JSON.stringify(current)}); left as it is`);
  }

  /** Appends `item` to the array at `path` (created when missing) unless `isOurs` finds one already. */
  ensureInArray(path: string[], item: unknown, isOurs: (existing: unknown) => boolean): 'added' | 'present' {
    const current = this.get(path);
    if (current !== undefined && !Array.isArray(current)) {
      this.kept.push(`${path.join('.')} is not a list; left as it is`);
      return 'present';
    }
    const list = (current as unknown[] | undefined) ?? [];
    if (list.some(isOurs)) return 'present';
    this.set([...path, list.length], item);
    return 'added';
  }

  change(mode?: number): FileChange {
    return { path: this.path, before: undefined, after: this.text, kept: this.kept, ...(mode !== undefined ? { mode } : {}) };
  }
}

export function jsonChange(path: string, edit: (doc: JsonDocument) => void, mode?: number): FileChange {
  const before = readText(path);
  const doc = new JsonDocument(path, before);
  edit(doc);
  return { ...doc.change(mode), before };
}

/** Writes each change that changes something; returns the diffs shown to the user. */
export function applyChanges(changes: FileChange[], write: boolean): string[] {
  const shown: string[] = [];
  for (const change of changes) {
    for (const kept of change.kept) shown.push(`${change.path}: ${kept}`);
    if (change.before === change.after) continue;
    shown.push(unifiedDiff(change.before ?? '', change.after, { path: change.path }).replace(/\n$/, ''));
    if (!write) continue;
    mkdirSync(dirname(change.path), { recursive: true });
    const existing = lstatSync(change.path, { throwIfNoEntry: false });
    if (existing?.isSymbolicLink()) throw new FormatboxError('PATH_REFUSED', `${change.path} is a symlink; refusing to replace it`);
    const temp = `${change.path}.formatbox-${process.pid}.tmp`;
    writeFileSync(temp, change.after, { mode: change.mode ?? (existing ? existing.mode & 0o777 : 0o644) });
    renameSync(temp, change.path);
  }
  return shown;
}
