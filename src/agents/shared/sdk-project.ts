/**
 * One project for the in-process SDK adapters whose agent writes the files itself (Claude Agent SDK,
 * Mastra): its root (files outside it are left alone), a warm runtime created on first use, P read
 * before a tool runs (bounded), and the format after the write with what the model is told about it
 * (the Claude Code hook's context: each edit's text on disk, a bounded diff or a reread hint).
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { resolveLimits } from '../../config/limits.js';
import { messageOf } from '../../core/errors.js';
import { shownPath, shownText } from '../../core/shown.js';
import type { EditInput, Limits, Receipt, SingleFileInput, UserConfig } from '../../core/types.js';
import { createRuntime } from '../../node/runtime.js';
import type { Runtime, Trust } from '../../node/runtime.js';
import { applyInput } from '../../tools/index.js';
import { clip, contextFor, MAX_LINE_CHARS } from './context.js';

export interface SdkProjectOptions {
  /** The project root; files outside it are left alone. Default: the process's working directory. */
  root?: string;
  /** Trusted formatbox user config (formatters, limits, …). */
  config?: UserConfig;
  /** Default 'untrusted': the project's config is read as data and its code runs only in the OS sandbox. */
  trust?: Trust;
  limits?: Partial<Limits>;
}

export interface SdkProject {
  readonly root: string;
  readonly limits: Limits;
  runtime(): Runtime;
  /** The project-relative POSIX path of a file the model named, or undefined when it is not inside the root. */
  projectPath(filePath: unknown, cwd?: string): string | undefined;
  /** P: the file's text; null when it does not exist; undefined when it cannot be read or is over `maxInputBytes`. */
  readPrior(path: string): string | null | undefined;
  /** The file as it is now, or undefined when it is gone. */
  readNow(path: string): string | undefined;
  /**
   * Formats what the tool wrote (`written`, applied from `prior` with `input`) and says what the model
   * must know, shown-safe and bounded; undefined when the formatter changed nothing. Never throws.
   */
  formatAfterWrite(path: string, input: SingleFileInput, prior: string | null | undefined, written: string): Promise<string | undefined>;
  /** What the model is told for a receipt already in hand (`written` is what the tool wrote). */
  contextOf(receipt: Receipt, input: SingleFileInput, written: string, prior: string | null | undefined, path: string): string | undefined;
  close(): Promise<void>;
}

export function createSdkProject(options: SdkProjectOptions = {}): SdkProject {
  const root = realpathSync(resolve(options.root ?? process.cwd()));
  const limits = resolveLimits(options.config, options.limits);
  let runtime: Runtime | undefined;
  const absoluteOf = (path: string) => join(root, ...path.split('/'));
  const contextOf = (receipt: Receipt, input: SingleFileInput, written: string, prior: string | null | undefined, path: string): string | undefined => {
    const text = contextFor(receipt, input, written, prior, path, limits.maxDiffChars);
    // Shown to the model: control characters and bidi overrides escaped, whatever their source.
    return text === undefined ? undefined : shownText(text, { multiline: true });
  };
  const project: SdkProject = {
    root,
    limits,
    runtime: () =>
      (runtime ??= createRuntime({ root, ...(options.config ? { config: options.config } : {}), ...(options.trust ? { trust: options.trust } : {}), ...(options.limits ? { limits: options.limits } : {}) })),
    projectPath(filePath, cwd) {
      if (typeof filePath !== 'string' || filePath === '' || filePath.includes('\0')) return undefined;
      const absolute = resolve(cwd ?? root, filePath);
      let rel = relative(root, absolute);
      if (rel.startsWith('..') || isAbsolute(rel)) {
        // The model's path may reach the root through a symlink.
        try {
          rel = relative(root, join(realpathSync(resolve(absolute, '..')), absolute.slice(absolute.lastIndexOf(sep) + 1)));
        } catch {
          return undefined;
        }
        if (rel.startsWith('..') || isAbsolute(rel)) return undefined;
      }
      return rel === '' ? undefined : rel.split(sep).join('/');
    },
    readPrior(path) {
      try {
        if (statSync(absoluteOf(path)).size > limits.maxInputBytes) return undefined;
        return readFileSync(absoluteOf(path), 'utf8');
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
      }
    },
    readNow(path) {
      try {
        return readFileSync(absoluteOf(path), 'utf8');
      } catch {
        return undefined;
      }
    },
    async formatAfterWrite(path, input, prior, written) {
      // A prior that does not give what is on disk with this input is not this edit's P.
      let known = prior;
      if (typeof prior === 'string') {
        try {
          if (applyInput(prior, input) !== written) known = undefined;
        } catch {
          known = undefined;
        }
      }
      try {
        const receipt = known === undefined
          ? await project.runtime().format({ path })
          : await project.runtime().afterWrite({ path, input, ...(known !== null ? { prior: known } : {}) });
        return contextOf(receipt, input, written, known, path);
      } catch (error) {
        return shownText(clip(`formatbox: ${shownPath(path)} was not formatted: ${messageOf(error)}`, MAX_LINE_CHARS));
      }
    },
    contextOf,
    async close() {
      await runtime?.close();
      runtime = undefined;
    },
  };
  return project;
}

/**
 * A tool's arguments in formatbox's shape, under the names Claude Code's tools use and others copied
 * (Mastra's workspace tools): `old_string`, `new_string`, `replace_all`, `edits`, `content`.
 * Undefined when they are not what the tool takes.
 */
export function inputOf(kind: 'edit' | 'multiEdit' | 'write', raw: Record<string, unknown>): SingleFileInput | undefined {
  const edit = (e: unknown): EditInput | undefined => {
    if (typeof e !== 'object' || e === null) return undefined;
    const fields = e as Record<string, unknown>;
    return typeof fields.old_string === 'string' && typeof fields.new_string === 'string'
      ? { oldText: fields.old_string, newText: fields.new_string, ...(fields.replace_all === true ? { replaceAll: true } : {}) }
      : undefined;
  };
  if (kind === 'write') return typeof raw.content === 'string' ? { content: raw.content } : undefined;
  if (kind === 'edit') return edit(raw);
  if (!Array.isArray(raw.edits)) return undefined;
  const edits = raw.edits.map(edit);
  return edits.every((e): e is EditInput => e !== undefined) ? { edits } : undefined;
}
