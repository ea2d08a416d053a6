/**
 * Surprises are errors; expected outcomes are receipt statuses.
 * Every error formatbox throws is a `FormatboxError` with a stable `code`.
 * The CLI maps codes to exit codes in one table (src/cli/exit-codes.ts).
 */
export type ErrorCode =
  /** Tool input could not be applied: oldText not found, ambiguous, overlapping edits, bad patch. */
  | 'EDIT_NOT_APPLICABLE'
  /** The file on disk is no longer what the caller read. */
  | 'MODIFIED_SINCE_READ'
  /** Path outside the root, through a symlink that leaves it, a device or a directory. */
  | 'PATH_REFUSED'
  /** File missing (edit) or already present (Add File). */
  | 'FILE_NOT_FOUND'
  | 'FILE_EXISTS'
  /** The write failed (disk full, permissions); the original file is intact. */
  | 'WRITE_FAILED'
  /** A request or config value is malformed. */
  | 'INVALID_REQUEST'
  | 'INVALID_CONFIG'
  /** A wasm module could not be loaded. */
  | 'WASM_LOAD_FAILED'
  /**
   * A pinned formatter version could not be fetched or verified (registry unreachable, integrity
   * mismatch, a tarball with links or paths out of its root, over a size or time limit).
   */
  | 'FORMATTER_FETCH'
  /** A broken internal invariant (e.g. a receipt that does not replay). Always a bug. */
  | 'INVARIANT_BROKEN';

/**
 * Every entry (`formatbox`, `formatbox/node`, each formatter's) is its own bundle with its own copy of
 * this class, so identity is a brand in the global symbol registry, not the class object:
 * `instanceof` and `isFormatboxError` recognise an error whichever entry threw it.
 */
const BRAND = Symbol.for('formatbox.FormatboxError');

export class FormatboxError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'FormatboxError';
    this.code = code;
    if (details) this.details = details;
    Object.defineProperty(this, BRAND, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return isFormatboxError(value);
  }
}

export function isFormatboxError(value: unknown): value is FormatboxError {
  return value instanceof Error && (value as { [BRAND]?: unknown })[BRAND] === true && typeof (value as { code?: unknown }).code === 'string';
}

/** Wasm-bindgen modules sometimes throw strings or plain objects; normalise to a message. */
export function messageOf(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message;
  if (typeof thrown === 'string') return thrown;
  try {
    return JSON.stringify(thrown);
  } catch {
    return String(thrown);
  }
}
