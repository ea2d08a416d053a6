/**
 * What a formatter binary outside /usr needs in the sandbox, and nothing more: the file itself, the
 * shared libraries it loads from outside /usr (DT_NEEDED looked up in its RPATH/RUNPATH, `$ORIGIN`
 * expanded, recursively), and for a script its interpreter's: a Python virtualenv's root (the
 * directory with `pyvenv.cfg`), or the npm package a Node script belongs to. The install prefix
 * (`~/.cargo`, `~/.local`) is never bound as a whole: it holds credentials next to the binaries.
 * Nothing is run to find this: the ELF headers and the `#!` line are read as data.
 */
import { closeSync, existsSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';

/** Paths under these are bound (or linked) in every sandbox already. */
const SYSTEM_PREFIXES = ['/usr/', '/lib/', '/lib32/', '/lib64/', '/libx32/', '/bin/', '/sbin/'];
/** The dynamic loader's default search path when RUNPATH does not find a library. */
const DEFAULT_LIB_DIRS = ['/lib', '/usr/lib', '/lib64', '/usr/lib64', '/lib/x86_64-linux-gnu', '/usr/lib/x86_64-linux-gnu', '/lib/aarch64-linux-gnu', '/usr/lib/aarch64-linux-gnu'];
const MAX_FILES = 256;
const HEADER_BYTES = 4096;

export interface BinaryNeeds {
  /** Files (and, for a virtualenv or npm package, one directory each) to bind read-only at the same path. */
  paths: string[];
  /** Directories among `paths` (credentials inside them are hidden by the sandbox). */
  dirs: string[];
}

function isSystemPath(path: string): boolean {
  return SYSTEM_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/** What `binary` (an absolute path, possibly a symlink) needs from outside /usr. */
export function binaryNeeds(binary: string): BinaryNeeds {
  const needs: BinaryNeeds = { paths: [], dirs: [] };
  const seen = new Set<string>();
  collect(binary, needs, seen, 0);
  return needs;
}

function collect(path: string, needs: BinaryNeeds, seen: Set<string>, depth: number): void {
  if (seen.has(path) || seen.size >= MAX_FILES || depth > 8) return;
  seen.add(path);
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return;
  }
  if (!isSystemPath(path)) needs.paths.push(path);
  if (real !== path && !isSystemPath(real)) needs.paths.push(real);
  const head = readHead(real);
  if (!head) return;
  if (head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46) {
    const elf = readElf(real);
    if (!elf) return;
    if (elf.interpreter && !isSystemPath(elf.interpreter)) collect(elf.interpreter, needs, seen, depth + 1);
    // $ORIGIN is the directory of the path the object is loaded from (here: as bound).
    const origin = dirname(path);
    const searchDirs = [...(elf.runpath ?? elf.rpath ?? [])].flatMap((entry) => entry.split(':')).filter(Boolean).map((dir) => dir.replace(/\$(\{ORIGIN\}|ORIGIN)/g, origin));
    for (const name of elf.needed) {
      if (name.includes('/')) {
        collect(isAbsolute(name) ? name : join(origin, name), needs, seen, depth + 1);
        continue;
      }
      for (const dir of [...searchDirs, ...DEFAULT_LIB_DIRS]) {
        const candidate = join(dir, name);
        if (existsSync(candidate)) {
          collect(candidate, needs, seen, depth + 1);
          break;
        }
      }
    }
    return;
  }
  if (head[0] === 0x23 && head[1] === 0x21) scriptNeeds(real, head, needs, seen, depth);
}

/** `#!/interp` or `#!/usr/bin/env name`: the interpreter's own needs, its virtualenv, the script's npm package. */
function scriptNeeds(script: string, head: Buffer, needs: BinaryNeeds, seen: Set<string>, depth: number): void {
  const line = head.subarray(2, head.indexOf(10) < 0 ? head.length : head.indexOf(10)).toString('utf8').trim();
  const [interpreter] = line.split(/\s+/);
  if (interpreter && isAbsolute(interpreter) && !isSystemPath(interpreter)) {
    const venv = dirname(dirname(interpreter));
    if (existsSync(join(venv, 'pyvenv.cfg'))) addDir(venv, needs);
    collect(interpreter, needs, seen, depth + 1);
  }
  const pkg = npmPackageOf(script);
  if (pkg) addDir(pkg, needs);
}

/** The package directory of a file inside `…/node_modules/<pkg>/…` (its own dependencies nest inside it). */
function npmPackageOf(file: string): string | undefined {
  const parts = file.split('/');
  const index = parts.lastIndexOf('node_modules');
  if (index < 0 || index + 1 >= parts.length - 1) return undefined;
  const scoped = parts[index + 1]!.startsWith('@');
  const end = index + (scoped ? 3 : 2);
  if (end >= parts.length) return undefined;
  const dir = parts.slice(0, end).join('/');
  return existsSync(join(dir, 'package.json')) ? dir : undefined;
}

function addDir(dir: string, needs: BinaryNeeds): void {
  if (isSystemPath(`${dir}/`) || needs.dirs.includes(dir)) return;
  needs.dirs.push(dir);
  needs.paths.push(dir);
}

function readHead(path: string): Buffer | undefined {
  try {
    if (!statSync(path).isFile()) return undefined;
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(HEADER_BYTES);
      return buffer.subarray(0, readSync(fd, buffer, 0, HEADER_BYTES, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

interface Elf {
  interpreter?: string;
  needed: string[];
  rpath?: string[];
  runpath?: string[];
}

/** ELF64 little-endian (x86-64, aarch64): PT_INTERP and the dynamic section's NEEDED/RPATH/RUNPATH. */
export function readElf(path: string): Elf | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = statSync(path).size;
    const read = (offset: number, length: number): Buffer => {
      const buffer = Buffer.alloc(Math.max(0, Math.min(length, size - offset)));
      if (buffer.length > 0) readSync(fd, buffer, 0, buffer.length, offset);
      return buffer;
    };
    const header = read(0, 64);
    if (header.length < 64 || header[4] !== 2 || header[5] !== 1) return undefined;
    const phoff = Number(header.readBigUInt64LE(0x20));
    const phentsize = header.readUInt16LE(0x36);
    const phnum = header.readUInt16LE(0x38);
    if (phentsize < 56 || phnum > 256) return undefined;
    const loads: Array<{ vaddr: number; offset: number; filesz: number }> = [];
    let dynamic: { offset: number; size: number } | undefined;
    let interpreter: string | undefined;
    for (let i = 0; i < phnum; i++) {
      const ph = read(phoff + i * phentsize, 56);
      if (ph.length < 56) return undefined;
      const type = ph.readUInt32LE(0);
      const offset = Number(ph.readBigUInt64LE(8));
      const vaddr = Number(ph.readBigUInt64LE(16));
      const filesz = Number(ph.readBigUInt64LE(32));
      if (type === 1) loads.push({ vaddr, offset, filesz });
      else if (type === 2) dynamic = { offset, size: Math.min(filesz, 1 << 20) };
      else if (type === 3) interpreter = cString(read(offset, Math.min(filesz, 4096)), 0);
    }
    const elf: Elf = { needed: [], ...(interpreter ? { interpreter } : {}) };
    if (!dynamic) return elf;
    const entries = read(dynamic.offset, dynamic.size);
    const tags: Array<[number, number]> = [];
    let strtab: number | undefined;
    for (let at = 0; at + 16 <= entries.length; at += 16) {
      const tag = Number(entries.readBigInt64LE(at));
      const value = Number(entries.readBigUInt64LE(at + 8));
      if (tag === 0) break;
      if (tag === 5) strtab = value;
      else if (tag === 1 || tag === 15 || tag === 29) tags.push([tag, value]);
    }
    const load = strtab === undefined ? undefined : loads.find((l) => strtab! >= l.vaddr && strtab! < l.vaddr + l.filesz);
    if (strtab === undefined || !load) return elf;
    const strtabOffset = strtab - load.vaddr + load.offset;
    for (const [tag, value] of tags) {
      const text = cString(read(strtabOffset + value, 4096), 0);
      if (tag === 1) elf.needed.push(text);
      else if (tag === 15) (elf.rpath ??= []).push(text);
      else (elf.runpath ??= []).push(text);
    }
    return elf;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function cString(buffer: Buffer, offset: number): string {
  const end = buffer.indexOf(0, offset);
  return buffer.subarray(offset, end < 0 ? buffer.length : end).toString('utf8');
}

