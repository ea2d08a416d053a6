// The playground's engine, in a module Web Worker so formatting never blocks the page. Every built-in
// formatter, its wasm fetched from ./wasm/ on first use (and then served by the service worker offline).
import { createEngine, createFormatters, wasmUrls, type AfterEditRequest, type ProjectFiles } from '../../src/index.js';

const formatters = createFormatters(wasmUrls(new URL('./wasm/', import.meta.url)));

interface EditMessage {
  id: number;
  path: string;
  prior: string;
  input: AfterEditRequest['input'];
  projectFiles: ProjectFiles;
}

const scope = globalThis as unknown as { onmessage: ((event: { data: EditMessage }) => void) | null; postMessage(data: unknown): void };
scope.onmessage = async ({ data }) => {
  try {
    const engine = createEngine({ formatters, projectFiles: data.projectFiles, config: { mode: 'always' } });
    const receipt = await engine.afterEdit({ path: data.path, prior: data.prior, input: data.input });
    scope.postMessage({ id: data.id, ok: true, receipt });
  } catch (error) {
    scope.postMessage({ id: data.id, ok: false, error: String((error as Error)?.message ?? error) });
  }
};
