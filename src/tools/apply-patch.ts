/**
 * The applyPatch tool: patches over several files, in two dialects, each in its own module:
 * - patch/codex.ts: the `*** Begin Patch` format coding agents use, applied as Codex applies it;
 * - patch/unified.ts: unified diffs, applied as `git apply` applies them.
 * This module parses either, and runs the file operations in order over a virtual file system, so
 * the same path may appear twice (Add then Update, Move then Update of the destination). All or
 * nothing: every operation is checked before the caller writes anything.
 *
 * Byte-exactness: lines a patch keeps keep their bytes; lines it writes get the file's dominant
 * ending (CRLF stays CRLF, lone CR stays CR). A file's missing final newline is kept unless a chunk
 * rewrites its last line.
 */
import { FormatboxError } from '../core/errors.js';
import { utf8ByteLength } from '../core/text.js';
import { applyCodexChunks, isCodexPatch, parseCodexPatch } from './patch/codex.js';
import { applyUnifiedHunks, isUnifiedDiff, parseUnifiedDiff } from './patch/unified.js';
import { bad, type AppliedChunk, type FilePatch, type ParsedPatch, type PatchChunk } from './patch/model.js';
import { shownPath } from '../core/shown.js';
import { assertWellFormedInput } from './well-formed.js';

export type { AppliedChunk, FilePatch, ParsedPatch, PatchChunk, HunkRow, UnifiedHunk, PatchFormat } from './patch/model.js';
export { linesWithEndings, lineContent } from './patch/lines.js';
export { seekSequence } from './patch/codex.js';
export { renderFilePatch, wrapPatch, type RenderFile, type RenderRegion } from './patch/render.js';

/** Parses either dialect. Throws EDIT_NOT_APPLICABLE with the offending line. */
export function parsePatch(patch: string): ParsedPatch {
  if (typeof patch !== 'string') throw new FormatboxError('INVALID_REQUEST', 'patch must be a string');
  assertWellFormedInput({ patch });
  // Codex reads `patch.trim().lines()`: split at LF, a CR before it dropped.
  const codexLines = patch.trim().split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (isCodexPatch(codexLines)) return { format: 'codex', files: parseCodexPatch(codexLines) };
  const lines = patch.split('\n');
  if (isUnifiedDiff(lines)) {
    const files = parseUnifiedDiff(lines);
    const zero = files.some((f) => 'chunks' in f && f.chunks?.some((c) => c.unified?.zero));
    return { format: 'unified', files, ...(zero ? { unidiffZero: true } : {}) };
  }
  throw bad("patch must start with '*** Begin Patch' or be a unified diff ('--- a/path', '+++ b/path', '@@ … @@')");
}

/**
 * Applies one file's chunks to its prior text, each dialect its own way (unified chunks carry their
 * hunk rows). Returns W and where the chunks landed; throws EDIT_NOT_APPLICABLE.
 */
export function applyChunks(prior: string, chunks: readonly PatchChunk[], path: string): { text: string; applied: AppliedChunk[] } {
  if (chunks.length > 0 && chunks.every((c) => c.unified !== undefined)) return applyUnifiedHunks(prior, chunks, path);
  return applyCodexChunks(prior, chunks, path);
}

/** One file operation's result. `prior` null: added; `written` null: deleted. */
export interface PatchedFile {
  path: string;
  /** Where the file ends up (Move to), or `path`. */
  finalPath: string;
  kind: FilePatch['kind'];
  /** The file before this operation (for a path named twice, after the earlier operation). */
  prior: string | null;
  written: string | null;
  /** Update only: where each chunk landed. */
  applied: AppliedChunk[];
  patch: FilePatch;
  /** An existing file this operation overwrote (Add File over it, or Move to it), as Codex does. */
  replaced?: { path: string; bytes: number };
  /** A later operation of the same patch changes `finalPath` again: this result is not the final one. */
  superseded?: boolean;
}

/**
 * Runs a parsed patch's file operations in order over files given by `read` (undefined: the file
 * does not exist). All or nothing: throws before anything is returned when an operation cannot apply.
 */
export function applyParsedPatch(parsed: ParsedPatch, read: (path: string) => string | undefined): PatchedFile[] {
  const state = new Map<string, string | null>();
  const get = (path: string): string | null => (state.has(path) ? (state.get(path) as string | null) : (read(path) ?? null));
  const codex = parsed.format === 'codex';
  const out: PatchedFile[] = [];
  for (const file of parsed.files) {
    const existing = get(file.path);
    if (file.kind === 'add') {
      if (existing !== null && !codex) throw new FormatboxError('FILE_EXISTS', `${shownPath(file.path)} already exists (git apply refuses a new file over it)`);
      const text = file.lines.length === 0 ? '' : file.lines.join('\n') + (file.noEol ? '' : '\n');
      state.set(file.path, text);
      out.push({
        path: file.path, finalPath: file.path, kind: 'add', prior: null, written: text, applied: [], patch: file,
        ...(existing !== null ? { replaced: { path: file.path, bytes: utf8ByteLength(existing) } } : {}),
      });
      continue;
    }
    if (existing === null) throw new FormatboxError('FILE_NOT_FOUND', `${shownPath(file.path)} does not exist`);
    if (file.kind === 'delete') {
      if (file.chunks && file.chunks.length > 0 && applyUnifiedHunks(existing, file.chunks, file.path).text !== '') {
        throw bad(`${shownPath(file.path)}: the deletion does not remove all of the file (git apply: "removal patch leaves file contents")`);
      }
      state.set(file.path, null);
      out.push({ path: file.path, finalPath: file.path, kind: 'delete', prior: existing, written: null, applied: [], patch: file });
      continue;
    }
    const { text, applied } = file.chunks.length === 0 ? { text: existing, applied: [] } : applyChunks(existing, file.chunks, file.path);
    const finalPath = file.moveTo ?? file.path;
    let replaced: PatchedFile['replaced'];
    if (finalPath !== file.path) {
      const destination = get(finalPath);
      if (destination !== null) {
        if (!codex) throw new FormatboxError('FILE_EXISTS', `${shownPath(finalPath)} already exists; git apply does not rename ${shownPath(file.path)} onto it`);
        replaced = { path: finalPath, bytes: utf8ByteLength(destination) };
      }
      state.set(file.path, null);
    }
    state.set(finalPath, text);
    out.push({ path: file.path, finalPath, kind: 'update', prior: existing, written: text, applied, patch: file, ...(replaced ? { replaced } : {}) });
  }
  out.forEach((file, index) => {
    if (file.written === null) return;
    const later = out.slice(index + 1).some((next) => next.path === file.finalPath || next.finalPath === file.finalPath);
    if (later) file.superseded = true;
  });
  return out;
}

/** The final state of every path a patch touches: path → W, or null for a path that ends up absent. */
export function finalStates(files: readonly PatchedFile[]): Map<string, string | null> {
  const result = new Map<string, string | null>();
  for (const file of files) {
    if (file.finalPath !== file.path) result.set(file.path, null);
    result.set(file.finalPath, file.written);
  }
  return result;
}

/** Applies a patch text: a map from each touched path to its final W (null for an absent file). */
export function applyPatchText(patch: string, read: (path: string) => string | undefined): Map<string, string | null> {
  return finalStates(applyParsedPatch(parsePatch(patch), read));
}
