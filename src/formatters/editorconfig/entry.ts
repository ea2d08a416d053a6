/** `formatbox/editorconfig`: the EditorConfig normaliser (formatbox's own WASI module, `editorconfig.wasm`). */
export { editorconfigFormatter, EDITORCONFIG_NORMALISER_NAME, EDITORCONFIG_NORMALISER_VERSION } from './adapter.js';
