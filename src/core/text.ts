/**
 * Text bookkeeping around formatters: the UTF-8 BOM, line endings (EOL profiles and their
 * restoration after a formatter that works on LF text), UTF-8/UTF-16 offsets, hashes.
 * Pure and universal: no `node:` import, no Buffer.
 */
import { diffLineChanges, splitLines } from './diff.js';
import type { FileRecord, LineEndingPolicy, Utf16Range } from './types.js';

export const BOM = '\uFEFF';

/** Splits a leading UTF-8 BOM (U+FEFF as the first code unit) off the text. */
export function splitBom(text: string): { bom: boolean; body: string } {
  return text.startsWith(BOM) ? { bom: true, body: text.slice(1) } : { bom: false, body: text };
}

/** Puts the BOM back when the original had one (and never doubles it). */
function restoreBom(body: string, bom: boolean): string {
  if (!bom) return body;
  return body.startsWith(BOM) ? body : BOM + body;
}

type Eol = '\n' | '\r\n' | '\r';

/**
 * The line endings a text uses. `kind` is `none` for a text without any line break;
 * `dominant` is the most frequent ending (ties: LF, then CRLF, then CR), LF when there is none.
 */
interface EolProfile {
  kind: 'none' | 'lf' | 'crlf' | 'cr' | 'mixed';
  dominant: Eol;
  counts: { lf: number; crlf: number; cr: number };
}

export function detectEol(text: string): EolProfile {
  // Counted with native indexOf scans: this runs on every formatted file, twice.
  let newlines = 0;
  let crlf = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
    newlines++;
    if (at > 0 && text.charCodeAt(at - 1) === 13) crlf++;
  }
  let carriageReturns = 0;
  for (let at = text.indexOf('\r'); at !== -1; at = text.indexOf('\r', at + 1)) carriageReturns++;
  const lf = newlines - crlf;
  const cr = carriageReturns - crlf;
  const kinds = (lf > 0 ? 1 : 0) + (crlf > 0 ? 1 : 0) + (cr > 0 ? 1 : 0);
  const kind = kinds === 0 ? 'none' : kinds > 1 ? 'mixed' : lf > 0 ? 'lf' : crlf > 0 ? 'crlf' : 'cr';
  const dominant: Eol = crlf > lf && crlf >= cr ? '\r\n' : cr > lf && cr > crlf ? '\r' : '\n';
  return { kind, dominant, counts: { lf, crlf, cr } };
}

/** CRLF and lone CR become LF (what Prettier, Biome, Ruff and gofmt expect). */
export function normaliseEol(text: string): string {
  return text.indexOf('\r') === -1 ? text : text.replace(/\r\n?/g, '\n');
}

/** The BOM-free, LF-only text an adapter gets, plus what is needed to undo both. */
interface NormalisedText {
  text: string;
  bom: boolean;
  readonly eol: EolProfile;
}

export function normaliseForFormatter(original: string): NormalisedText {
  const { bom, body } = splitBom(original);
  let eol: EolProfile | undefined;
  // Counted on demand: the engine sends `text` and never asks (a scan of every line of each file).
  return {
    text: normaliseEol(body),
    bom,
    get eol() {
      return (eol ??= detectEol(body));
    },
  };
}

/**
 * Gives a formatter's LF output the original's BOM and line endings.
 * Uniform files (LF, CRLF, CR) get their one ending on every line. In a mixed file, lines the
 * formatter left unchanged keep their own ending and new or changed lines take the dominant one
 * (found with a line diff of the normalised original against the output).
 */
export function restoreText(original: string, formattedLf: string): string {
  const { bom, body } = splitBom(original);
  return restoreBom(restoreEol(body, normaliseEol(splitBom(formattedLf).body)), bom);
}

/** `original` is BOM-free; `formattedLf` uses LF only. */
function restoreEol(original: string, formattedLf: string): string {
  const profile = detectEol(original);
  if (profile.kind === 'none' || profile.kind === 'lf') {
    // A formatter may add line breaks to a one-line file: LF is then the ending.
    return formattedLf;
  }
  if (profile.kind !== 'mixed') return formattedLf.replace(/\n/g, profile.dominant);
  const originalLines = splitLinesAnyEol(original);
  const originalNormalised = originalLines.map((line) => normaliseEol(line));
  const formattedLines = splitLines(formattedLf);
  const changes = diffLineChanges(originalNormalised, formattedLines);
  const out: string[] = [];
  let a = 0;
  let b = 0;
  const keep = (until: number): void => {
    // Equal lines: the original's bytes, ending included.
    while (b < until) {
      out.push(originalLines[a] as string);
      a++;
      b++;
    }
  };
  for (const change of changes) {
    keep(change.bStart);
    a = change.aEnd;
    for (let i = change.bStart; i < change.bEnd; i++) {
      out.push((formattedLines[i] as string).replace(/\n$/, profile.dominant));
    }
    b = change.bEnd;
  }
  keep(formattedLines.length);
  return out.join('');
}

/**
 * The ending a formatter with `policy` writes for a file whose (BOM-free) text is `original`.
 * `undefined` for `output` (the formatter's text is final).
 */
function lineEndingFor(policy: Exclude<LineEndingPolicy, 'output'>, original: string): Eol;
function lineEndingFor(policy: LineEndingPolicy, original: string): Eol | undefined;
function lineEndingFor(policy: LineEndingPolicy, original: string): Eol | undefined {
  switch (policy) {
    case 'lf':
      return '\n';
    case 'crlf':
      return '\r\n';
    case 'cr':
      return '\r';
    case 'output':
      return undefined;
    case 'first': {
      // Ruff's and rustfmt's `auto`: the first line break decides; none: LF.
      const at = original.search(/[\r\n]/);
      if (at === -1 || original[at] === '\n') return '\n';
      return original[at + 1] === '\n' ? '\r\n' : '\r';
    }
    case 'first-cr': {
      // Prettier's guessEndOfLine: the first CR anywhere decides, else LF.
      const at = original.indexOf('\r');
      if (at === -1) return '\n';
      return original[at + 1] === '\n' ? '\r\n' : '\r';
    }
    case 'last': {
      // dprint's `auto`: the last LF decides (CRLF when a CR precedes it), else LF.
      const at = original.lastIndexOf('\n');
      return at > 0 && original[at - 1] === '\r' ? '\r\n' : '\n';
    }
    case 'majority-lf':
    case 'majority-crlf': {
      // clang-format's DeriveLF / DeriveCRLF: count lines ending in CRLF against the others.
      const { counts } = detectEol(original);
      const lf = counts.lf + counts.cr;
      if (counts.crlf === lf) return policy === 'majority-lf' ? '\n' : '\r\n';
      return counts.crlf > lf ? '\r\n' : '\n';
    }
  }
}

/**
 * The bytes a formatter with `policy` writes: its LF output with the policy's ending on every line,
 * and the original's BOM. Without a policy the file keeps its own endings (`restoreText`).
 */
export function applyLineEnding(original: string, formatted: string, policy: LineEndingPolicy | undefined): string {
  if (policy === undefined) return restoreText(original, formatted);
  const { bom, body } = splitBom(original);
  const out = splitBom(formatted).body;
  const eol = lineEndingFor(policy, body);
  if (eol === undefined) return restoreBom(out, bom);
  const lf = normaliseEol(out);
  return restoreBom(eol === '\n' ? lf : lf.replace(/\n/g, eol), bom);
}

/** Lines with their endings, where LF, CRLF and a lone CR each end a line. */
function splitLinesAnyEol(text: string): string[] {
  return text.match(/[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$/g) ?? [];
}

/**
 * Maps a UTF-16 range in the original text (BOM and CR included) to the same range in the
 * BOM-free, LF-normalised text an adapter sees (for `scope: 'edit'`).
 */
export function rangeToNormalised(original: string, range: Utf16Range): Utf16Range {
  const map = (offset: number): number => {
    let start = 0;
    if (original.startsWith(BOM)) start = 1;
    const clamped = Math.max(start, Math.min(offset, original.length));
    let removed = start;
    for (let i = start; i < clamped; i++) {
      if (original.charCodeAt(i) === 13 && original.charCodeAt(i + 1) === 10) removed++;
    }
    return clamped - removed;
  };
  return { utf16Start: map(range.utf16Start), utf16End: map(range.utf16End) };
}

// ---------------------------------------------------------------------------
// Offsets and sizes

/** UTF-8 byte length of a string (lone surrogates count as U+FFFD, 3 bytes, like TextEncoder). */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** The UTF-8 byte offset of a UTF-16 offset. An offset inside a surrogate pair moves back to the start of the pair. */
export function utf16ToByteOffset(text: string, utf16Offset: number): number {
  // An offset inside a surrogate pair moves back to the start of the pair (a wasm formatter's byte
  // offsets must fall on character boundaries).
  let end = Math.max(0, Math.min(utf16Offset, text.length));
  if (end > 0 && end < text.length && text.charCodeAt(end - 1) >= 0xd800 && text.charCodeAt(end - 1) <= 0xdbff && isLowSurrogate(text.charCodeAt(end))) end--;
  return utf8ByteLength(text.slice(0, end));
}

/** The UTF-16 offset of a UTF-8 byte offset. A byte offset inside a character maps to that character's start. */
export function byteToUtf16Offset(text: string, byteOffset: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    let width: number;
    let units = 1;
    if (c < 0x80) width = 1;
    else if (c < 0x800) width = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      width = 4;
      units = 2;
    } else width = 3;
    if (bytes + width > byteOffset) return i;
    bytes += width;
    i += units;
  }
  return text.length;
}

/**
 * A host's SHA-256 (lowercase hex) of some bytes. The default is WebCrypto, which every runtime has
 * but which is asynchronous (a thread-pool hop per call in Node); a host with a synchronous hash
 * (Node's `createHash`) passes it in, which matters when thousands of files are hashed in a row.
 */
export type Sha256Port = (bytes: Uint8Array) => string | Promise<string>;

/** WebCrypto's SHA-256 as lowercase hex. */
const webCryptoSha256: Sha256Port = async (bytes) => {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
};

/** Lowercase hex SHA-256 of the text's UTF-8 bytes (BOM included when present). */
export async function sha256Hex(text: string, sha256: Sha256Port = webCryptoSha256): Promise<string> {
  return (await fileRecord(text, sha256)).sha256;
}

/** `{sha256, bytes}` of a final file. */
export async function fileRecord(text: string, sha256: Sha256Port = webCryptoSha256): Promise<FileRecord> {
  const bytes = new TextEncoder().encode(text);
  return { sha256: await sha256(bytes), bytes: bytes.length };
}

/** 1-based line number of a UTF-16 offset (any of LF, CRLF, CR ends a line). */
export function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    else if (c === 13 && text.charCodeAt(i + 1) !== 10) line++;
  }
  return line;
}
