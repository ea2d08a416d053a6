/**
 * The embedding program's observers around each write: every `before` before the file is touched (a
 * throwing one cancels the edit), every `after` once the final bytes are on disk (a throwing one is
 * reported in the receipt's note; the write stands).
 */
import { messageOf } from '../../core/errors.js';
import type { Receipt } from '../../core/types.js';
import { elapsed } from './receipts.js';
import type { RuntimeState } from './state.js';
import type { AfterWriteEvent, BeforeWriteEvent } from './types.js';

export async function runBefore(state: RuntimeState, event: BeforeWriteEvent): Promise<void> {
  for (const observer of state.observers) await observer.before?.(event);
}

export async function runAfter(state: RuntimeState, event: AfterWriteEvent): Promise<Receipt> {
  let receipt = event.receipt;
  for (const observer of state.observers) {
    if (!observer.after) continue;
    try {
      await observer.after({ ...event, receipt });
    } catch (error) {
      const name = observer.name ?? 'observer';
      receipt = { ...receipt, note: `${receipt.note}\n(${name} failed after the write: ${messageOf(error)})` };
    }
  }
  return receipt;
}

/** The `after` observers, then the call's time on the receipt. */
export async function finish(state: RuntimeState, event: AfterWriteEvent, started: number): Promise<Receipt> {
  const receipt = await runAfter(state, event);
  return { ...receipt, ms: elapsed(started) };
}
