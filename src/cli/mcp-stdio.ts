/**
 * The MCP server's stdio transport: the SDK's (`StdioServerTransport`) closes the whole session on a
 * message over its 10 MiB buffer, so one oversized call would end the server with no reply and lose
 * the next one. This one reads line by line with the same cap: a line over it is dropped as it
 * streams (never held whole) and answered with a JSON-RPC error for its id (read from the line's
 * start, else null); a line that is not a JSON-RPC message gets a parse error. The server stays up.
 */
import process from 'node:process';
import type { Readable, Writable } from 'node:stream';
import { deserializeMessage, serializeMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC's codes: the request is not valid; the line is not JSON. */
const INVALID_REQUEST = -32600;
const PARSE_ERROR = -32700;
/** How much of an oversized line is kept to find its id. */
const HEAD_BYTES = 4096;

export class BoundedStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private bytes = 0;
  /** Set while an oversized line streams by: its first bytes and its last, to find its id. */
  private oversized: Buffer | undefined;
  private oversizedTail: Buffer = Buffer.alloc(0);
  private oversizedBytes = 0;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    private readonly maxLineBytes: number = STDIO_DEFAULT_MAX_BUFFER_SIZE,
  ) {}

  private readonly onData = (chunk: Buffer): void => {
    let start = 0;
    for (let end = chunk.indexOf(10, start); ; end = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, end === -1 ? chunk.length : end);
      this.take(piece);
      if (end === -1) return;
      this.endLine();
      start = end + 1;
    }
  };

  private readonly onError = (error: Error): void => this.onerror?.(error);

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.chunks = [];
    this.oversized = undefined;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((done) => {
      if (this.stdout.write(serializeMessage(message))) done();
      else this.stdout.once('drain', done);
    });
  }

  /** A piece of the current line (no newline in it). */
  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.oversized) {
      this.oversizedBytes += piece.length;
      this.oversizedTail = Buffer.concat([this.oversizedTail, piece.subarray(-HEAD_BYTES)]).subarray(-HEAD_BYTES);
      return;
    }
    if (this.bytes + piece.length > this.maxLineBytes) {
      // Over the cap: keep only the head and the tail (for the id) and drop the rest as it arrives.
      const all = Buffer.concat([...this.chunks, piece]);
      this.oversized = Buffer.from(all.subarray(0, HEAD_BYTES));
      this.oversizedTail = Buffer.from(all.subarray(-HEAD_BYTES));
      this.oversizedBytes = this.bytes + piece.length;
      this.chunks = [];
      this.bytes = 0;
      return;
    }
    this.chunks.push(Buffer.from(piece));
    this.bytes += piece.length;
  }

  private endLine(): void {
    if (this.oversized) {
      const id = idOf(this.oversized.toString('utf8'), this.oversizedTail.toString('utf8'));
      const size = this.oversizedBytes;
      this.oversized = undefined;
      this.oversizedTail = Buffer.alloc(0);
      this.oversizedBytes = 0;
      void this.reply(id, INVALID_REQUEST, `the message is ${size} bytes, over formatbox's limit of ${this.maxLineBytes} bytes; it was not read (the server stays up)`);
      return;
    }
    const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.bytes = 0;
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      this.onerror?.(error as Error);
      void this.reply(idOf(line.slice(0, HEAD_BYTES), line.slice(-HEAD_BYTES)), PARSE_ERROR, 'the line is not a JSON-RPC message');
      return;
    }
    this.onmessage?.(message);
  }

  private reply(id: string | number | null, code: number, message: string): Promise<void> {
    // A JSON-RPC error needs an id; null when it cannot be read (the spec's answer for that case).
    return this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  }
}

const ID_VALUE = String.raw`(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")`;
/** `id` as the message's first key, or its second after `jsonrpc`. */
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}`);
/** `id` as the message's last key (the SDK writes it last). */
const ID_AT_END = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);

/** The top-level `id` of a JSON-RPC request from the start or the end of its text, or null. */
function idOf(head: string, tail: string): string | number | null {
  const match = ID_AT_START.exec(head) ?? ID_AT_END.exec(tail.replace(/\r$/, ''));
  if (!match?.[1]) return null;
  try {
    return JSON.parse(match[1]) as string | number;
  } catch {
    return null;
  }
}
