/** Lines with their endings, for the two dialects. */

/**
 * Lines with their endings, where LF, CRLF and a lone CR each end a line (as everywhere else in
 * formatbox, src/core/text.ts); the last line may have none. The Codex dialect reads files so.
 */
export function linesWithEndings(text: string): string[] {
  return text.match(/[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$/g) ?? [];
}

/** Lines split after each `\n` only, as `git apply` splits them (a CR stays in the line). */
export function linesAtLf(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
    out.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/** A line without its ending (LF, CRLF or a lone CR). */
export function lineContent(line: string): string {
  if (line.endsWith('\r\n')) return line.slice(0, -2);
  if (line.endsWith('\n') || line.endsWith('\r')) return line.slice(0, -1);
  return line;
}

export function hasEnding(line: string): boolean {
  return line.endsWith('\n') || line.endsWith('\r');
}
