import type { ErrorCode } from '../core/errors.js';

/**
 * The one table from error codes to CLI exit codes (documented in docs/cli.md).
 * 0 ok · 1 `format --check` found files that would change · 2 usage/config error ·
 * 3 the edit could not be applied · 4 file system refusal or failure · 70 internal error (a bug).
 */
export const EXIT_OK = 0;
export const EXIT_WOULD_CHANGE = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERNAL = 70;

export const EXIT_CODE_BY_ERROR: Readonly<Record<ErrorCode, number>> = {
  INVALID_REQUEST: 2,
  INVALID_CONFIG: 2,
  EDIT_NOT_APPLICABLE: 3,
  MODIFIED_SINCE_READ: 3,
  FILE_NOT_FOUND: 3,
  FILE_EXISTS: 3,
  PATH_REFUSED: 4,
  WRITE_FAILED: 4,
  WASM_LOAD_FAILED: 70,
  FORMATTER_FETCH: 4,
  INVARIANT_BROKEN: 70,
};
