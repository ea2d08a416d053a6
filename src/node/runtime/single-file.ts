/**
 * edit, multiEdit and write: P read, the tool's input applied, W written (compare-and-swap against
 * P), W formatted, F written (compare-and-swap against W), the receipt. `before` observers run
 * between reading P and writing W, `after` observers once F is on disk.
 */
import type { Engine } from '../../engine/engine.js';
import { FormatboxError } from '../../core/errors.js';
import type { Receipt, SingleFileInput } from '../../core/types.js';
import { applyInput } from '../../tools/index.js';
import type { ResolvedPath } from '../fs/paths.js';
import { readSnapshot, type FileSnapshot } from '../fs/read.js';
import { writeAtomic } from '../fs/staged-write.js';
import { engineOf } from './bootstrap.js';
import { configChanged, isConfigFile, refreshConfig, refreshConfigIfNeeded } from './config-refresh.js';
import { commitFinal, FinalWrite } from './final-write.js';
import { priorText, withPath } from './input.js';
import { finish, runBefore } from './observers.js';
import { onlyTarget, withResolved } from './paths.js';
import type { RuntimeState } from './state.js';

const encoder = new TextEncoder();

export async function single(state: RuntimeState, tool: 'edit' | 'multiEdit' | 'write', path: string, input: SingleFileInput): Promise<Receipt> {
  const started = performance.now();
  const eng = await engineOf(state);
  return withResolved(state, [path], async (targets) => {
    const target = onlyTarget(targets);
    // P's and W's fds stay open until the call ends, so the renames of W over P and of F over W
    // do not have to free the file they replace (that happens at the close, in the thread pool).
    let callEnded!: () => void;
    const ended = new Promise<void>((resolve) => (callEnded = resolve));
    try {
      const snapshot = await readSnapshot(target.abs, target.shown, { ...state.readOptions, holdOpenUntil: ended });
      if (!snapshot && tool !== 'write') {
        throw new FormatboxError('FILE_NOT_FOUND', `${target.shown} does not exist; create it with write`);
      }
      const prior = snapshot ? priorText(snapshot, tool, target.shown) : '';
      const written = withPath(target.shown, () => applyInput(prior, input));
      await runBefore(state, { path: target.rel, absolutePath: target.abs, tool, prior: snapshot ? prior : null, written });
      const receipt = await writeAndFormat(state, { eng, target, snapshot: snapshot ?? undefined, prior, input, written, ended });
      return await finish(state, { path: target.rel, absolutePath: target.abs, tool, receipt }, started);
    } finally {
      callEnded();
    }
  });
}

interface SingleEdit {
  eng: Engine;
  target: ResolvedPath;
  /** P's bytes; undefined for a new file. */
  snapshot: FileSnapshot | undefined;
  prior: string;
  input: SingleFileInput;
  written: string;
  /** Settles when the call ends (W's fd is held open until then). */
  ended: Promise<void>;
}

/**
 * W written (CAS against P), formatted, F written (CAS against W). The formatter works on W in
 * memory: its request goes to the worker first; while it runs, W is written (W is on disk, or the
 * edit refused, before F can be written), F's temp file made and the config files checked; F's
 * bytes are written and flushed while the engine builds the receipt.
 */
async function writeAndFormat(state: RuntimeState, edit: SingleEdit): Promise<Receipt> {
  const { eng, target, snapshot, prior, input, written } = edit;
  let writtenBytes!: Uint8Array; // encoded while the formatter runs
  // W is usually replaced by F moments later: it is flushed in the background, and waited for
  // only when it stays (a kill leaves P, W or F either way; F is flushed before its rename).
  let flushedW: Promise<void> | undefined;
  const writeW = async () => {
    writtenBytes = encoder.encode(written);
    flushedW = (await writeAtomic(target.abs, writtenBytes, { expect: snapshot?.bytes ?? null, shown: target.shown, syncLater: true, holdOpenUntil: edit.ended, ...(snapshot ? { keep: snapshot } : {}) })).flushed;
  };
  const request = { path: target.realRel, prior, input, written };
  if (isConfigFile(target.realRel)) {
    await writeW();
    await refreshConfigIfNeeded(state, eng, [target.realRel]);
    return commitFinal(target, await eng.afterEdit(request), { written, writtenBytes, keep: snapshot, input, writtenFlushed: flushedW });
  }
  const final = new FinalWrite(target, snapshot, written);
  try {
    let pending = eng.afterEdit({ ...request, onFormatted: (outcome) => final.formatted(outcome) });
    pending.catch(() => undefined);
    await nextEventLoopTurn();
    // F's temp file is made first (W's own write makes a new file's directories): its creation goes
    // into the journal commit W's flush starts, instead of waiting behind it (measured on ext4 under
    // load: 0.1-0.3 ms less per edit), and the formatter's answer does not find this thread in it.
    if (snapshot) final.stage();
    await writeW();
    if (!snapshot) final.stage();
    if (configChanged(state, target.realRel)) {
      // That call used the config (or the pinned versions) as it was: format again with what is now on disk.
      await pending.catch(() => undefined);
      await refreshConfig(state, eng);
      pending = eng.afterEdit(request);
    }
    return await commitFinal(target, await pending, { written, writtenBytes, keep: snapshot, input, writtenFlushed: flushedW, staged: final });
  } finally {
    final.release();
  }
}

/** Settles on the next turn of the event loop (setImmediate: after I/O callbacks, not only microtasks), so the formatter request started just before has been posted to its worker. */
function nextEventLoopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
