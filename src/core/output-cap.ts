/**
 * The most a formatter may write for a given input: max(4 × input, input + 1 MiB), in UTF-8 bytes.
 * Real formatting changes the size by a few percent; wide indentation on deeply nested code can
 * triple it. Far past that, the config is inflating the file (`tabWidth: 100000` turned 2.3 KB into
 * 155 MB), so the result is refused as a `failed` receipt and the file stays as the agent wrote it.
 * Applied to every formatter in the engine (and in the formatter worker before the text is copied
 * out of it); the sandboxed subprocess path also caps what it reads.
 */
import { utf8ByteLength } from './text.js';

export const OUTPUT_CAP = { factor: 4, slackBytes: 1024 * 1024 };

/** The cap, in UTF-8 bytes, for an input of `inputBytes`. */
export function maxOutputBytes(inputBytes: number): number {
  return Math.max(OUTPUT_CAP.factor * inputBytes, inputBytes + OUTPUT_CAP.slackBytes);
}

/** Why `output` is refused as a formatting of `input`, or undefined when it is within the cap. */
export function outputOverCap(input: string, output: string): string | undefined {
  // A UTF-16 code unit is 1 to 3 UTF-8 bytes: most outputs need no exact count, of either text
  // (the input has at least input.length bytes, so its cap is at least that length's cap).
  if (output.length <= input.length) return undefined;
  if (output.length * 3 <= maxOutputBytes(input.length)) return undefined;
  const inputBytes = utf8ByteLength(input);
  const cap = maxOutputBytes(inputBytes);
  if (output.length * 3 <= cap) return undefined;
  const outputBytes = output.length > cap ? output.length : utf8ByteLength(output);
  if (outputBytes <= cap) return undefined;
  return `formatter output of ${output.length > cap ? 'more than ' : ''}${outputBytes} bytes is past the output cap of ${cap} bytes (max(4 × input, input + 1 MiB), input ${inputBytes} bytes); the file is left as written`;
}
