/**
 * Languages a project declares that no in-process formatter covers, answered with the reason as a
 * `skipped` receipt instead of a bare "not available". In Node the sandboxed subprocess adapter of
 * the same name (rustfmt) is registered after these and takes their place.
 */
import type { FormatterAdapter } from '../../core/types.js';

export const NO_IN_PROCESS_FORMATTER: Readonly<Record<string, { languages: string[]; reason: string }>> = {
  rustfmt: {
    languages: ['rust'],
    reason: 'no in-process Rust formatter exists (rustfmt has no wasm build here, and prettier-plugin-rust 0.1.9 throws with Prettier 3); rustfmt runs only in the Node runtime, inside its OS sandbox',
  },
};

/** One adapter per entry, answering every call `unsupported` with its reason. */
export function unavailableFormatters(): FormatterAdapter[] {
  return Object.entries(NO_IN_PROCESS_FORMATTER).map(([name, { languages, reason }]) => ({
    name,
    via: 'sandbox',
    languages,
    supportsRange: false,
    async info() {
      return { name, version: 'not available in this runtime', via: 'sandbox' as const };
    },
    async format() {
      return { kind: 'unsupported' as const, reason };
    },
  }));
}
