/**
 * formatbox's EditorConfig normaliser (a WASI module built here from wasm/editorconfig/editorconfig.c).
 * Nothing declares it: selection falls back to it for a file no formatter covers when the project's
 * `.editorconfig` gives that file a property it applies (config/select.ts `editorconfigFallback`).
 */
import type { FormatterModule } from '../module.js';

/** VERSION in editorconfig.c (a test checks `--version`; build.mjs checks it against the C source). */
export const EDITORCONFIG_NORMALISER_VERSION = '1.0.0';

export const editorconfig: FormatterModule<object, object, 'editorconfig'> = {
  id: 'editorconfig',
  displayName: 'the EditorConfig normaliser',
  adapterNames: ['editorconfig'],
  languages: ['text'],
  configFiles: ['.editorconfig'],
  wasm: [{ name: 'editorconfig', package: 'formatbox', source: 'wasm/editorconfig/editorconfig.wasm', file: 'editorconfig.wasm', version: EDITORCONFIG_NORMALISER_VERSION }],
};
