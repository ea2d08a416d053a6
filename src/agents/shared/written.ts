/**
 * What an agent's tool wrote, read back by its hook as a repository file is read (read-bounded.ts):
 * a regular file at its own name, at most `maxBytes`. A link, FIFO or device (a repository may
 * commit `zero.ts -> /dev/zero`) or a file over the bound is never read here: the hook then asks the
 * runtime to format the path, whose own checks decide (a link inside the project followed, one out
 * of it or to a device refused, a file over the input limit skipped).
 */
import { readBoundedText } from '../../node/fs/read-bounded.js';

/** A hook reads back at most this much; a larger file is left to the runtime (which skips it as too large). */
export const MAX_WRITTEN_BYTES = 64 * 1024 * 1024;

/** The text written, `null` when the file is gone, `undefined` when the runtime must decide (see the module comment). */
export function readWritten(absolute: string, maxBytes = MAX_WRITTEN_BYTES): string | null | undefined {
  try {
    const read = readBoundedText(absolute, maxBytes);
    if (read === null) return null;
    return read.truncated ? undefined : read.text;
  } catch {
    return undefined;
  }
}

/** The file's text as the runtime read it for a `format` receipt (its input's content), when it read one. */
export function contentRead(receipt: { input: unknown }): string | undefined {
  const content = (receipt.input as { content?: unknown } | undefined)?.content;
  return typeof content === 'string' ? content : undefined;
}
