/**
 * The WASI runner's memory cap (wasi.ts): a rewrite of a module's memory limits before it is
 * compiled, so `memory.grow` past the cap fails inside the module instead of growing the host.
 */
import { messageOf } from '../core/errors.js';

const PAGE_BYTES = 65536;

export type CapResult = { ok: true; bytes: Uint8Array; declaredMaxBytes?: number } | { ok: false; reason: string };

/**
 * Gives every memory a module defines a maximum of at most `maxBytes`. Refuses memory64, shared
 * memories, imported memories, and an initial size above the cap. Returns new bytes; the input is untouched.
 */
export function capModuleMemory(input: Uint8Array, maxBytes: number): CapResult {
  const capPages = Math.max(1, Math.floor(maxBytes / PAGE_BYTES));
  if (input.length < 8 || input[0] !== 0 || input[1] !== 0x61 || input[2] !== 0x73 || input[3] !== 0x6d) {
    return { ok: false, reason: 'not a WebAssembly module' };
  }
  if (input[4] !== 1 || input[5] !== 0 || input[6] !== 0 || input[7] !== 0) {
    return { ok: false, reason: 'not a core WebAssembly module (a component or an unknown version)' };
  }
  const reader = new Reader(input, 8);
  const out: Uint8Array[] = [input.subarray(0, 8)];
  let declaredMax: number | undefined;
  try {
    while (reader.at < input.length) {
      const start = reader.at;
      const id = reader.byte();
      const size = reader.u32();
      const bodyStart = reader.at;
      const bodyEnd = bodyStart + size;
      if (bodyEnd > input.length) return { ok: false, reason: 'truncated module' };
      if (id === 2) {
        const refused = importedMemoryOrTable(new Reader(input.subarray(0, bodyEnd), bodyStart));
        if (refused) return { ok: false, reason: refused };
      }
      if (id !== 5) {
        out.push(input.subarray(start, bodyEnd));
        reader.at = bodyEnd;
        continue;
      }
      const section = new Reader(input.subarray(0, bodyEnd), bodyStart);
      const count = section.u32();
      const body: number[] = [...leb(count)];
      for (let i = 0; i < count; i++) {
        const flags = section.byte();
        if (flags & 0x04) return { ok: false, reason: 'a 64-bit memory (memory64) is not supported' };
        if (flags & 0x02) return { ok: false, reason: 'a shared memory (threads) is not supported' };
        const minPages = section.u32();
        const maxPages = flags & 0x01 ? section.u32() : undefined;
        if (maxPages !== undefined) declaredMax = Math.max(declaredMax ?? 0, maxPages * PAGE_BYTES);
        if (minPages > capPages) {
          return { ok: false, reason: `the module needs ${mib(minPages * PAGE_BYTES)} of memory at start; the cap is ${mib(capPages * PAGE_BYTES)}` };
        }
        body.push(0x01, ...leb(minPages), ...leb(Math.min(maxPages ?? capPages, capPages)));
      }
      if (section.at !== bodyEnd) return { ok: false, reason: 'malformed memory section' };
      out.push(Uint8Array.of(5, ...leb(body.length), ...body));
      reader.at = bodyEnd;
    }
  } catch (error) {
    return { ok: false, reason: `malformed module: ${messageOf(error)}` };
  }
  return { ok: true, bytes: concat(out), ...(declaredMax !== undefined ? { declaredMaxBytes: declaredMax } : {}) };
}

/** An imported memory or table would come from the host, uncapped by this rewrite: refused. */
function importedMemoryOrTable(section: Reader): string | undefined {
  const count = section.u32();
  for (let i = 0; i < count; i++) {
    const module = section.name();
    const field = section.name();
    const kind = section.byte();
    if (kind === 0x00) section.u32();
    else if (kind === 0x01 || kind === 0x02) return `it imports a ${kind === 0x01 ? 'table' : 'memory'} (${module}.${field}); a WASI formatter must define its own`;
    else if (kind === 0x03) {
      section.byte();
      section.byte();
    } else if (kind === 0x04) {
      section.byte();
      section.u32();
    } else return `unknown import kind ${kind}`;
  }
  return undefined;
}

class Reader {
  constructor(readonly bytes: Uint8Array, public at: number) {}
  byte(): number {
    if (this.at >= this.bytes.length) throw new Error('unexpected end');
    return this.bytes[this.at++]!;
  }
  u32(): number {
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
    }
    throw new Error('bad LEB128');
  }
  name(): string {
    const length = this.u32();
    const text = new TextDecoder().decode(this.bytes.subarray(this.at, this.at + length));
    this.at += length;
    return text;
  }
}

function leb(value: number): number[] {
  const out: number[] = [];
  do {
    let b = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) b |= 0x80;
    out.push(b);
  } while (value > 0);
  return out;
}

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function mib(bytes: number): string {
  return `${Math.round((bytes / 1048576) * 10) / 10} MiB`;
}
