/**
 * applyPatch: one patch over several files, all or nothing. Every file is read and every operation
 * checked before anything is written; each path's final W is then written (a failure puts back what
 * was already written), the engine formats and reconciles them, and each F is written as for one file.
 */
import type { Engine } from '../../engine/engine.js';
import { FormatboxError } from '../../core/errors.js';
import type { ApplyPatchInput, Receipt } from '../../core/types.js';
import { shownPath } from '../../core/shown.js';
import { applyParsedPatch, finalStates, parsePatch, wrapPatch, type ParsedPatch, type PatchedFile } from '../../tools/index.js';
import type { PatchReceipt } from '../../reconcile/index.js';
import type { ResolvedPath } from '../fs/paths.js';
import { readSnapshot, type FileSnapshot } from '../fs/read.js';
import { removeFileSync, writeAtomic } from '../fs/staged-write.js';
import { engineOf } from './bootstrap.js';
import { refreshConfigIfNeeded } from './config-refresh.js';
import { commitFinal } from './final-write.js';
import { decode, withPath } from './input.js';
import { runAfter, runBefore } from './observers.js';
import { withResolved } from './paths.js';
import { elapsed } from './receipts.js';
import type { RuntimeState } from './state.js';

const encoder = new TextEncoder();

/** What the patch found on disk, under the locks: each named path's target, bytes (null: absent) and text. */
interface PatchDisk {
  targets: Map<string, ResolvedPath>;
  snapshots: Map<string, FileSnapshot | null>;
  priors: Map<string, string>;
}

export async function applyPatch(state: RuntimeState, request: ApplyPatchInput): Promise<PatchReceipt> {
  const started = performance.now();
  const eng = await engineOf(state);
  const parsed = withPath(undefined, () => parsePatch(request.patch));
  const named: string[] = [];
  for (const file of parsed.files) {
    named.push(file.path);
    if (file.kind === 'update' && file.moveTo) named.push(file.moveTo);
  }
  return withResolved(state, named, async (resolved) => {
    const disk = await readPatchDisk(state, named, resolved);
    // All or nothing: every file op is checked before anything is written.
    const files = withPath(undefined, () => applyParsedPatch(parsed, (path) => disk.priors.get(path)));
    await checkAndObserve(state, files, disk.targets);
    const final = finalStates(files);
    await writeFinalStates(final, files, disk);
    await refreshConfigIfNeeded(state, eng, files.map((f) => disk.targets.get(f.finalPath)!.realRel));
    const out = await formatPatched(state, eng, { request, parsed, files, final, disk });
    return { ...out, ms: elapsed(started) };
  });
}

async function readPatchDisk(state: RuntimeState, named: string[], resolved: ResolvedPath[]): Promise<PatchDisk> {
  const targets = new Map<string, ResolvedPath>(named.map((path, index) => [path, resolved[index]!]));
  const snapshots = new Map<string, FileSnapshot | null>();
  const priors = new Map<string, string>();
  for (const [path, target] of targets) {
    const snapshot = await readSnapshot(target.abs, target.shown, state.readOptions);
    snapshots.set(path, snapshot);
    if (!snapshot) continue;
    const text = decode(snapshot.bytes);
    if (text === undefined) throw new FormatboxError('EDIT_NOT_APPLICABLE', `${target.shown} is not UTF-8 text; applyPatch works on UTF-8 files only`);
    priors.set(path, text);
  }
  return { targets, snapshots, priors };
}

/** Links refused for the operations that act on the file itself; then the `before` observers, per file. */
async function checkAndObserve(state: RuntimeState, files: PatchedFile[], targets: Map<string, ResolvedPath>): Promise<void> {
  for (const file of files) {
    // Delete, Move (both ends) and replacing a file act on the file itself, never through a link.
    if (file.kind === 'delete' || file.finalPath !== file.path) refuseLink(targets.get(file.path)!, file.kind === 'delete' ? 'delete' : 'move');
    if (file.finalPath !== file.path || file.replaced) refuseLink(targets.get(file.finalPath)!, 'replace');
  }
  for (const file of files) {
    const target = targets.get(file.path)!;
    await runBefore(state, { path: target.rel, absolutePath: target.abs, tool: 'applyPatch', prior: file.prior, written: file.finalPath === file.path ? file.written : null });
    if (file.finalPath !== file.path) {
      const moved = targets.get(file.finalPath)!;
      await runBefore(state, { path: moved.rel, absolutePath: moved.abs, tool: 'applyPatch', prior: null, written: file.written });
    }
  }
}

/** Writes each path's final state (a path may be named twice); on a failure, puts back what was already written. */
async function writeFinalStates(final: Map<string, string | null>, files: PatchedFile[], { targets, snapshots }: PatchDisk): Promise<void> {
  const undo: Array<() => unknown> = [];
  try {
    for (const [path, content] of final) {
      if (content === null) continue;
      const target = targets.get(path)!;
      const snapshot = snapshots.get(path) ?? null;
      const movedFrom = files.find((f) => f.finalPath === path && f.path !== path);
      const keep = snapshot ?? (movedFrom ? snapshots.get(movedFrom.path) ?? null : null);
      const bytes = encoder.encode(content);
      await writeAtomic(target.abs, bytes, { expect: snapshot?.bytes ?? null, shown: target.shown, ...(keep ? { keep } : {}) });
      undo.push(() =>
        snapshot
          ? writeAtomic(target.abs, snapshot.bytes, { expect: bytes, shown: target.shown, keep: snapshot })
          : removeIfSame(target.abs, bytes),
      );
    }
    for (const [path, content] of final) {
      const snapshot = snapshots.get(path) ?? null;
      if (content !== null || !snapshot) continue;
      const target = targets.get(path)!;
      removeAtomic(target, snapshot.bytes);
      undo.push(() => writeAtomic(target.abs, snapshot.bytes, { expect: null, shown: target.shown, keep: snapshot }));
    }
  } catch (error) {
    for (const step of undo.reverse()) {
      try {
        await step();
      } catch {
        // Someone else changed the file meanwhile; their bytes stand.
      }
    }
    throw error;
  }
}

/**
 * The engine formats and reconciles the patched files; each F is written (CAS against its W) and the
 * `after` observers run, per file in patch order.
 */
async function formatPatched(state: RuntimeState, eng: Engine, patch: { request: ApplyPatchInput; parsed: ParsedPatch; files: PatchedFile[]; final: Map<string, string | null>; disk: PatchDisk }): Promise<PatchReceipt> {
  const { request, parsed, files, final, disk } = patch;
  const priorMap: Record<string, string | null> = {};
  const writtenMap: Record<string, string | null> = {};
  // The disk before the patch (the engine runs the operations again, in order), and each path's final W.
  for (const path of disk.targets.keys()) priorMap[path] = disk.priors.get(path) ?? null;
  for (const [path, content] of final) writtenMap[path] = content;
  const result = (await eng.afterEdit({ path: files[0]?.finalPath ?? '', prior: priorMap, input: request, written: writtenMap })) as PatchReceipt;
  const receipts: Receipt[] = [];
  const parts: string[] = [];
  let changed = false;
  for (const [index, file] of files.entries()) {
    const finalTarget = disk.targets.get(file.finalPath)!;
    let receipt = result.receipts[index]!;
    if (file.written !== null && !file.superseded) {
      const before = receipt;
      receipt = await commitFinal(finalTarget, receipt, { written: file.written, writtenBytes: encoder.encode(file.written), keep: disk.snapshots.get(file.path) ?? undefined, input: { patch: wrapPatch(parsed.format, [file.patch.source ?? '']) } });
      if (receipt !== before) changed = true;
    }
    receipt = await runAfter(state, { path: finalTarget.rel, absolutePath: finalTarget.abs, tool: 'applyPatch', receipt });
    receipts.push(receipt);
    parts.push(unwrapPatch((receipt.input as ApplyPatchInput).patch, parsed.format));
  }
  const out: PatchReceipt = { ...result, receipts };
  if (changed) {
    // A file changed on disk while it was formatted: its part of the patch stays as the agent wrote it.
    out.input = { patch: wrapPatch(parsed.format, parts) };
    out.note = receipts.map((r) => r.note).filter((n) => n !== '').join('\n');
  }
  return out;
}

/** The file part of a one-file patch made by `wrapPatch`. */
function unwrapPatch(patch: string, format: 'codex' | 'unified'): string {
  if (format !== 'codex') return patch;
  const head = '*** Begin Patch\n';
  const tail = '*** End Patch\n';
  return patch.startsWith(head) && patch.endsWith(tail) ? patch.slice(head.length, patch.length - tail.length) : patch;
}

/**
 * Delete, Move (both ends) and replacing an existing file act on the named file itself. A path that
 * is a symlink, or lies under one, is refused: the link's target is never deleted, moved or replaced.
 */
function refuseLink(target: ResolvedPath, action: 'delete' | 'move' | 'replace'): void {
  if (target.realRel === target.rel) return;
  const what = action === 'delete' ? 'delete the link itself with your shell' : 'name the real path';
  throw new FormatboxError('PATH_REFUSED', `${target.shown} is a symlink or lies under one (it leads to ${shownPath(target.realRel)}); applyPatch does not ${action} through a link, so its target is never touched: ${what}`);
}

function removeAtomic(target: ResolvedPath, expect: Uint8Array): void {
  if (!removeFileSync(target.abs, target.shown, expect)) throw new FormatboxError('MODIFIED_SINCE_READ', `${target.shown} was modified since it was read; read it again and redo the patch`);
}

function removeIfSame(abs: string, bytes: Uint8Array): void {
  removeFileSync(abs, abs, bytes);
}
