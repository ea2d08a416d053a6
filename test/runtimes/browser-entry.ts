// Bundled for Chromium (page and module Web Worker): the universal entry, the shared cases, wasm by URL.
import * as formatbox from '../../src/index.js';
import { runCases } from './cases.js';

async function run(base: string): Promise<unknown[]> {
  return runCases(formatbox, () => formatbox.createFormatters(formatbox.wasmUrls(base)));
}

const scope = globalThis as unknown as { runFormatboxCases?: typeof run; document?: unknown; onmessage?: unknown; postMessage?: (data: unknown) => void };
if (scope.document !== undefined) {
  scope.runFormatboxCases = run;
} else {
  // A module worker: one message with the wasm base, one reply with the receipts (or the error).
  scope.onmessage = async (event: { data: string }) => {
    try {
      scope.postMessage?.({ ok: true, results: await run(event.data) });
    } catch (error) {
      scope.postMessage?.({ ok: false, error: String((error as Error)?.stack ?? error) });
    }
  };
}
