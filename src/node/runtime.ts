/**
 * `createRuntime`: formatbox on a real file system. It performs the agent's edit, writes W
 * atomically (compare-and-swap against P), formats W in a worker thread through the engine,
 * writes F only if the disk still holds W, and returns the receipt.
 *
 * Order around each write (as the harnesses in prior-art do): `before` observers (e.g. a
 * checkpoint of P) → write W → formatter → write F → `after` observers (e.g. LSP diagnostics on
 * the final bytes).
 *
 * The pieces, in runtime/, each over the one state object (state.ts): bootstrap (the engine, on the
 * first call), config-refresh (config and pins as they are on disk), paths (resolve and lock),
 * observers, single-file (edit, multiEdit, write), final-write (F, compare-and-swap against W),
 * apply-patch, format-file (format, afterWrite, beforeWrite, formatText; cache-key) and doctor.
 */
import type { ProjectFiles, ToolInput } from '../core/types.js';
import { applyPatch } from './runtime/apply-patch.js';
import { doctor } from './runtime/doctor.js';
import { afterWrite, beforeWrite, format, formatText } from './runtime/format-file.js';
import { single } from './runtime/single-file.js';
import { closeRuntime, createRuntimeState } from './runtime/state.js';
import type { Runtime, RuntimeOptions } from './runtime/types.js';

/** The public types (RuntimeOptions, Runtime, the requests, events and reports). */
export type * from './runtime/types.js';
export type { ProjectFiles, ToolInput };

export function createRuntime(options: RuntimeOptions): Runtime {
  const state = createRuntimeState(options);
  return {
    root: state.rootReal,
    edit: ({ path, ...input }) => single(state, 'edit', path, input),
    multiEdit: ({ path, edits }) => single(state, 'multiEdit', path, { edits }),
    write: ({ path, content }) => single(state, 'write', path, { content }),
    applyPatch: (request) => applyPatch(state, request),
    afterWrite: (request) => afterWrite(state, request),
    beforeWrite: (request) => beforeWrite(state, request),
    format: (request) => format(state, request),
    formatText: (request) => formatText(state, request),
    doctor: (request) => doctor(state, request),
    close: () => closeRuntime(state),
  };
}
