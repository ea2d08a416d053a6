/**
 * Which files shfmt takes for shell scripts without a shell extension, as mvdan/sh v3.13's
 * `fileutil` (the version sh-syntax 0.7.0 carries) and `shfmt`'s directory walk decide it:
 *
 * - `fileutil.CouldBeScript2`: a name starting with `.` is never a script; a regular file whose name
 *   ends in `.sh`, `.bash`, `.mksh`, `.bats` or `.zsh` is one; a name with any other `.` past its
 *   first character is not; a name with no `.` past its first character is one if its shebang says so.
 * - `shfmt`'s walk reads the first 32 bytes of such a file (at least 10, `len("#!/bin/sh\n")`: a
 *   shorter file is not a script) and keeps it when `fileutil.Shebang` finds a shell in them.
 * - `fileutil.Shebang`: `#!`, any spaces or tabs, `/bin/` or `/usr/bin/`, optionally `env` and
 *   spaces or tabs, then `sh`, `bash`, `mksh`, `bats` or `zsh` followed by whitespace (Go's `\s`,
 *   `[\t\n\f\r ]`) or the end of the bytes read (so a longer line is cut at 32): SHELL_SHEBANG.
 *
 * `env -S bash`, `/usr/local/bin/bash`, `dash` and `ksh` are not matched (shfmt 3.13 does not match
 * them either). A zsh script is parsed as zsh (mvdan/sh has a zsh parser since 3.13). Debian's
 * shfmt 3.6 differs in the space after `#!` (at most one, of any whitespace) and after `env` (any
 * whitespace), and parses a zsh script as bash.
 */

/** The bytes of a file's start shfmt's walk reads to find a shebang. */
export const SHEBANG_HEAD_BYTES = 32;
/** A file shorter than this is not read as a script by shfmt's walk (`len("#!/bin/sh\n")`). */
export const SHEBANG_MIN_BYTES = 10;

const SHELL_SHEBANG = /^#![ \t]*\/(?:usr\/)?bin\/(?:env[ \t]+)?(sh|bash|mksh|bats|zsh)(?:[\t\n\f\r ]|$)/;

/**
 * The shell a file's shebang names (`sh`, `bash`, `mksh`, `bats`, `zsh`), looking at its first 32
 * bytes as shfmt does, or undefined. Only the start of `text` is read.
 */
export function shellOfShebang(text: string): string | undefined {
  if (!text.startsWith('#!')) return undefined;
  // Every character before the end of a match is ASCII, so 32 UTF-16 units are the 32 bytes shfmt reads.
  return SHELL_SHEBANG.exec(text.slice(0, SHEBANG_HEAD_BYTES))?.[1];
}

/**
 * Whether a file of this name, edited or named, is shell when its shebang says so: no `.` past its
 * first character (shfmt formats a file named to it whatever its name; formatbox asks the shebang
 * only of names without an extension, so `notes.txt` stays text).
 */
export function mayBeScriptByShebang(name: string): boolean {
  return name.length > 0 && name.indexOf('.', 1) < 0;
}

/** Whether shfmt's walk reads this name's first bytes (`fileutil.CouldBeScript2`'s "if shebang" case: hidden names are not read). */
export function walkReadsShebangOf(name: string): boolean {
  return mayBeScriptByShebang(name) && !name.startsWith('.');
}
