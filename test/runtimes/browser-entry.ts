// Bundled for Chromium (page and module Web Worker): the universal entry, the shared cases, wasm by URL.
import * as formatbox from '../../src/index.js';
import { runCases } from './cases.js';

async function run(base: string): Promise<unknown[]> {
  return runCases(formatbox, () => formatbox.createFormatters(formatbox.wasmUrls(base)));
}

/**
 * Another module at Biome's URL (Ruff's), given to the per-formatter adapter directly (no
 * `createFormatters`): what the engine says, instead of wasm-bindgen's own TypeError.
 */
async function wrongModuleAtBiomeUrl(base: string): Promise<unknown> {
  const engine = formatbox.createEngine({ formatters: [formatbox.biomeFormatter({ wasm: new URL('ruff_wasm_bg.wasm', base) })], projectFiles: { 'biome.json': '{}' } });
  const receipt = await engine.format({ path: 'a.ts', text: 'const a=1\n' });
  const check = await engine.check();
  // The error the adapter's load throws (the receipt and check carry its message).
  const thrown = await formatbox.compileWasm(new URL('ruff_wasm_bg.wasm', base), 'Biome', formatbox.BUILTIN_WASM_IDENTITY.biome).then(
    () => undefined,
    (error: { code?: string; details?: { wasm?: string } }) => ({ code: error.code, wasm: error.details?.wasm }),
  );
  return { status: receipt.status, reason: receipt.reason, check, thrown };
}

const scope = globalThis as unknown as { runFormatboxCases?: typeof run; runWrongModule?: typeof wrongModuleAtBiomeUrl; document?: unknown; onmessage?: unknown; postMessage?: (data: unknown) => void };
if (scope.document !== undefined) {
  scope.runFormatboxCases = run;
  scope.runWrongModule = wrongModuleAtBiomeUrl;
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
