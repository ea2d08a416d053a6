/**
 * A bounded reader for npm package tarballs (gzip'd ustar, with pax and GNU long-name headers).
 * Every entry is checked before it is kept: only regular files and directories; no links, devices
 * or FIFOs; no absolute path, no `..`, no backslash or NUL; the `package/` prefix npm puts on every
 * path is removed. Sizes are bounded (compressed, uncompressed, per file, file count). A tarball that
 * breaks any rule is refused whole: nothing of it is used.
 */
import { gunzipSync } from 'node:zlib';
import { FormatboxError } from '../../core/errors.js';

export interface TarLimits {
  /** Bytes after gunzip. */
  maxUnpackedBytes: number;
  maxFileBytes: number;
  maxFiles: number;
}

export const TAR_LIMITS: TarLimits = { maxUnpackedBytes: 256 * 1024 * 1024, maxFileBytes: 128 * 1024 * 1024, maxFiles: 20_000 };

interface TarFile {
  /** POSIX path inside the package (`package/` removed), e.g. `plugins/babel.mjs`. */
  path: string;
  bytes: Uint8Array;
  /** The entry's mode has an execute bit (a native binary); stored 0755, everything else 0644. */
  executable: boolean;
}

const BLOCK = 512;

/** The files of a gzip'd npm tarball, or a FormatboxError('FORMATTER_FETCH') saying why it is refused. */
export function readPackageTarball(gzipped: Uint8Array, limits: TarLimits = TAR_LIMITS): TarFile[] {
  let tar: Buffer;
  try {
    tar = gunzipSync(gzipped, { maxOutputLength: limits.maxUnpackedBytes });
  } catch (error) {
    throw refuse(`not a gzip stream within ${limits.maxUnpackedBytes} bytes (${(error as Error).message})`);
  }
  const files: TarFile[] = [];
  const seen = new Set<string>();
  let offset = 0;
  let longName: string | undefined;
  let paxPath: string | undefined;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break; // End of archive.
    if (!checksumOk(header)) throw refuse(`bad header checksum at byte ${offset}`);
    const size = octal(header.subarray(124, 136));
    if (size === undefined || size > limits.maxFileBytes) throw refuse(`an entry of ${size ?? 'unreadable'} bytes (limit ${limits.maxFileBytes})`);
    const type = String.fromCharCode(header[156]!);
    const dataStart = offset + BLOCK;
    const dataEnd = dataStart + size;
    if (dataEnd > tar.length) throw refuse('truncated');
    const data = tar.subarray(dataStart, dataEnd);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;

    if (type === 'L') {
      longName = cString(data);
      continue;
    }
    if (type === 'x') {
      paxPath = paxValue(data, 'path') ?? paxPath;
      continue;
    }
    if (type === 'g') continue; // Global pax header: nothing npm needs.
    const prefix = cString(header.subarray(345, 500));
    const name = paxPath ?? longName ?? (prefix ? `${prefix}/${cString(header.subarray(0, 100))}` : cString(header.subarray(0, 100)));
    paxPath = undefined;
    longName = undefined;
    if (type === '5') {
      checkPath(name);
      continue;
    }
    if (type !== '0' && type !== '\0' && type !== '7') {
      const kind = type === '1' ? 'a hard link' : type === '2' ? 'a symbolic link' : `an entry of type ${JSON.stringify(type)}`;
      throw refuse(`${kind}: ${JSON.stringify(name)}`);
    }
    const path = checkPath(name);
    if (seen.has(path)) throw refuse(`${JSON.stringify(path)} twice`);
    seen.add(path);
    if (files.length >= limits.maxFiles) throw refuse(`more than ${limits.maxFiles} files`);
    const mode = octal(header.subarray(100, 108)) ?? 0;
    files.push({ path, bytes: new Uint8Array(data), executable: (mode & 0o111) !== 0 });
  }
  if (files.length === 0) throw refuse('no files');
  return files;
}

/** `package/lib/x.js` → `lib/x.js`; refuses anything that could leave the package's directory. */
function checkPath(name: string): string {
  if (name === '' || name.includes('\0') || name.includes('\\')) throw refuse(`a path with NUL or backslash: ${JSON.stringify(name)}`);
  if (name.startsWith('/')) throw refuse(`an absolute path: ${JSON.stringify(name)}`);
  const segments = name.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.some((segment) => segment === '..')) throw refuse(`a path that leaves the package: ${JSON.stringify(name)}`);
  // npm packs everything under one top directory (`package/`, or the name for a few old packages).
  const inside = segments.slice(1);
  if (inside.length === 0) return '';
  return inside.join('/');
}

function checksumOk(header: Uint8Array): boolean {
  const stored = octal(header.subarray(148, 156));
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
  return stored === sum;
}

function octal(field: Uint8Array): number | undefined {
  // Base-256 (GNU) sizes are for files over 8 GiB: refused.
  if ((field[0]! & 0x80) !== 0) return undefined;
  const text = cString(field).trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) return undefined;
  return parseInt(text, 8);
}

function cString(bytes: Uint8Array): string {
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end === -1 ? bytes : bytes.subarray(0, end));
}

function paxValue(data: Uint8Array, key: string): string | undefined {
  const text = new TextDecoder().decode(data);
  let found: string | undefined;
  let at = 0;
  while (at < text.length) {
    const space = text.indexOf(' ', at);
    if (space === -1) break;
    const length = Number(text.slice(at, space));
    if (!Number.isInteger(length) || length <= 0) break;
    const record = text.slice(space + 1, at + length - 1);
    const equals = record.indexOf('=');
    if (equals !== -1 && record.slice(0, equals) === key) found = record.slice(equals + 1);
    at += length;
  }
  return found;
}

function refuse(why: string): FormatboxError {
  return new FormatboxError('FORMATTER_FETCH', `package tarball refused: ${why}`);
}
