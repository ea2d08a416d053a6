/** How a CLI run ends: its exit code, or an error mapped through the one exit-code table. */
import { isFormatboxError } from '../core/errors.js';
import { EXIT_CODE_BY_ERROR, EXIT_INTERNAL } from './exit-codes.js';
import { quietOnEpipe } from './epipe.js';

/** Exits with the run's code once output is flushed; a FormatboxError exits by its code, anything else as internal. */
export function exitWith(run: Promise<number>): void {
  run.finally(quietOnEpipe).then(
    (code) => exitWhenFlushed(code),
    (error: unknown) => {
      if (isFormatboxError(error)) {
        // The stable code is for programs (--json, apply, serve); a person reads the message.
        process.stderr.write(`formatbox: ${error.message}\n`);
        exitWhenFlushed(EXIT_CODE_BY_ERROR[error.code]);
      } else {
        process.stderr.write(`formatbox: internal error: ${error instanceof Error ? error.stack : String(error)}\n`);
        exitWhenFlushed(EXIT_INTERNAL);
      }
    },
  );
}

/** Large wasm modules make Node's teardown slow (0.5–0.7 s); exit once output is flushed. */
function exitWhenFlushed(code: number): void {
  process.stdout.write('', () => process.exit(code));
}
