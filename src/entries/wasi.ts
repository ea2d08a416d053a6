/** `formatbox/wasi`: any WASI command module as a formatter (stdin in, stdout out), with memory and fuel limits. */
export { wasiFormatter, runWasiCommand, DEFAULT_WASI_MEMORY_MAX_BYTES } from '../formatters/wasi.js';
export type { WasiFormatterOptions, WasiRunOptions, WasiRunResult } from '../formatters/wasi.js';
