/**
 * The two changes between Debian's shfmt 3.6 and the mvdan/sh v3.13 that sh-syntax 0.7.0 carries,
 * recognised by the shfmt agreement tests (and counted there); anything else is a difference.
 */

/** mvdan/sh 3.7+ puts a case clause's `;;` on its own line: the same layout either way once joined. */
export function joinCaseTerminators(text: string): string {
  return text.replace(/\n[ \t]*;;(?=[ \t]*(\n|$))/g, ' ;;');
}

/** mvdan/sh 3.7+ unescapes backslashes when it rewrites `…` as $(…); 3.6 kept them doubled. */
export function onlyBackquoteUnescaping(a: string, b: string, original: string): boolean {
  if (!original.includes('`')) return false;
  const left = a.split('\n');
  const right = b.split('\n');
  return left.length === right.length && left.every((line, i) => line === right[i] || line.replace(/\\/g, '') === right[i]!.replace(/\\/g, ''));
}
