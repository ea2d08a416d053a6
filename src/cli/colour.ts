/**
 * Colour for a person's terminal, as prettier and biome do it: only on a TTY, never with `NO_COLOR`
 * set (no-color.org: any non-empty value) or `--no-color`, never on a pipe or a file. Each stream
 * decides for itself (stdout piped, stderr a terminal: only stderr is coloured).
 */
export interface Paint {
  red(text: string): string;
  yellow(text: string): string;
  green(text: string): string;
  bold(text: string): string;
  dim(text: string): string;
}

const plain = (text: string): string => text;
const PLAIN: Paint = { red: plain, yellow: plain, green: plain, bold: plain, dim: plain };
const sgr = (open: number, close: number) => (text: string): string => `\x1b[${open}m${text}\x1b[${close}m`;
const ANSI: Paint = { red: sgr(31, 39), yellow: sgr(33, 39), green: sgr(32, 39), bold: sgr(1, 22), dim: sgr(2, 22) };

/** Whether `stream` gets colour: a TTY, no `NO_COLOR`, no `--no-color`. */
export function colourOn(stream: { isTTY?: boolean }, flags: { color?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return flags.color !== false && stream.isTTY === true && !env.NO_COLOR;
}

export function paintFor(stream: { isTTY?: boolean }, flags: { color?: boolean }, env: NodeJS.ProcessEnv = process.env): Paint {
  return colourOn(stream, flags, env) ? ANSI : PLAIN;
}

/** `1 file`, `2 files`. */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}
