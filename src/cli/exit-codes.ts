import type { ErrorCode } from '../core/errors.js';

/**
 * The one table of CLI exit codes (documented in docs/cli.md; the help's last line is rendered from
 * `EXIT_CODE_MEANINGS`), and the map from error codes to them.
 */
export const EXIT_OK = 0;
export const EXIT_WOULD_CHANGE = 1;
export const EXIT_USAGE = 2;
/**
 * `format`: a file could not be formatted (a syntax error, a timeout, a refusal, a write that
 * failed). 2, as prettier's and the design's "2 means error", but its own name: it is not a usage error.
 */
export const EXIT_FORMAT_FAILED = 2;
export const EXIT_EDIT_NOT_APPLIED = 3;
export const EXIT_FILE_SYSTEM = 4;
export const EXIT_INTERNAL = 70;

/** What each exit code means, for the help and the docs. */
export const EXIT_CODE_MEANINGS: ReadonlyArray<readonly [number, string]> = [
  [EXIT_OK, 'ok'],
  [EXIT_WOULD_CHANGE, 'format --check: files would change'],
  [EXIT_USAGE, 'usage or config error; format: a file could not be formatted'],
  [EXIT_EDIT_NOT_APPLIED, 'the edit could not be applied'],
  [EXIT_FILE_SYSTEM, 'file system refusal or failure'],
  [EXIT_INTERNAL, 'internal error'],
];

export const EXIT_CODE_BY_ERROR: Readonly<Record<ErrorCode, number>> = {
  INVALID_REQUEST: EXIT_USAGE,
  INVALID_CONFIG: EXIT_USAGE,
  EDIT_NOT_APPLICABLE: EXIT_EDIT_NOT_APPLIED,
  MODIFIED_SINCE_READ: EXIT_EDIT_NOT_APPLIED,
  FILE_NOT_FOUND: EXIT_EDIT_NOT_APPLIED,
  FILE_EXISTS: EXIT_EDIT_NOT_APPLIED,
  PATH_REFUSED: EXIT_FILE_SYSTEM,
  WRITE_FAILED: EXIT_FILE_SYSTEM,
  WASM_LOAD_FAILED: EXIT_INTERNAL,
  FORMATTER_FETCH: EXIT_FILE_SYSTEM,
  INVARIANT_BROKEN: EXIT_INTERNAL,
};

/** `exit codes: 0 ok · 1 … ` for the help. */
export function exitCodesHelp(): string {
  return `exit codes:\n${EXIT_CODE_MEANINGS.map(([code, meaning]) => `  ${String(code).padEnd(3)} ${meaning}`).join('\n')}`;
}
