/** `formatbox/shfmt`: shell through sh-syntax (mvdan/sh's shfmt as a Go wasm build, `sh-syntax.wasm`). */
export { shfmtFormatter, SH_SYNTAX_PACKAGE_VERSION } from './adapter.js';
