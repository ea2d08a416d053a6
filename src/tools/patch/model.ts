/**
 * The parsed form of a patch, shared by both dialects (Codex `*** Begin Patch` and unified diffs).
 * Each dialect parses and matches its own way (codex.ts, unified.ts); the file operations and the
 * writing of lines (splice.ts) are common.
 */
import { FormatboxError } from '../../core/errors.js';

export type PatchFormat = 'codex' | 'unified';

/** One line of a unified hunk, in patch order. */
export interface HunkRow {
  tag: ' ' | '-' | '+';
  /** The line's text without its `\n` (a CR before it is kept: `git apply` compares bytes). */
  text: string;
  /** Followed by `\ No newline at end of file`. */
  noEol: boolean;
}

/** A unified hunk as `git apply` reads it. */
export interface UnifiedHunk {
  rows: HunkRow[];
  oldStart: number;
  newStart: number;
  /** Context rows before the first change and after the last. */
  leading: number;
  trailing: number;
  /** The whole patch has no context row (`git diff -U0`): applied as `git apply --unidiff-zero`. */
  zero: boolean;
}

export interface PatchChunk {
  /** `@@ <context>`: a line to seek before the chunk (Codex). */
  context?: string;
  /** Context and removed lines, in order, without line endings. */
  oldLines: string[];
  /** Context and added lines, in order, without line endings. */
  newLines: string[];
  /** `*** End of File`: the chunk ends at the end of the file. */
  endOfFile: boolean;
  /** Unified diffs: the hunk's rows and header, as `git apply` reads them. */
  unified?: UnifiedHunk;
}

export type FilePatch = (
  | { kind: 'add'; path: string; lines: string[]; noEol?: boolean }
  | { kind: 'delete'; path: string; chunks?: PatchChunk[] }
  | { kind: 'update'; path: string; moveTo?: string; chunks: PatchChunk[] }
) & {
  /** This file's part of the patch text, as given (lines joined with `\n`, ending with one). */
  source?: string;
};

export interface ParsedPatch {
  format: PatchFormat;
  files: FilePatch[];
  /** Unified diffs: no hunk has a context line (`git diff -U0`): applied as `git apply --unidiff-zero`. */
  unidiffZero?: boolean;
}

/** A chunk as applied: prior lines [priorStart, priorEnd) became written lines [writtenStart, writtenEnd). */
export interface AppliedChunk {
  priorStart: number;
  priorEnd: number;
  writtenStart: number;
  writtenEnd: number;
}

export function bad(message: string): FormatboxError {
  return new FormatboxError('EDIT_NOT_APPLICABLE', message);
}
