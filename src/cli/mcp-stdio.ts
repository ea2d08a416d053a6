/**
 * The MCP server's stdio transport: newline-delimited JSON-RPC 2.0 messages, each checked for the
 * shape JSON-RPC gives it before anything reads it (the client is hostile until checked). The SDK's
 * stdio transport closes the whole session on a message over its 10 MiB buffer, so one oversized
 * call would end the server with no reply and lose the next one. This one reads line by line with
 * the same cap: a line over it is dropped as it streams (never held whole) and answered with a
 * JSON-RPC error for its id (read from the line's start, else null); a line that is not a JSON-RPC
 * message gets a parse error. The server stays up.
 */
import process from 'node:process';
import type { Readable, Writable } from 'node:stream';

/** JSON-RPC's codes. */
export const JSONRPC_ERROR = { PARSE: -32700, INVALID_REQUEST: -32600, METHOD_NOT_FOUND: -32601, INVALID_PARAMS: -32602, INTERNAL: -32603 } as const;
const INVALID_REQUEST = JSONRPC_ERROR.INVALID_REQUEST;
const PARSE_ERROR = JSONRPC_ERROR.PARSE;
/** The MCP SDK's stdio cap (`STDIO_DEFAULT_MAX_BUFFER_SIZE`): a client built on it sends no more. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export type JsonRpcId = string | number;
export type JsonRpcParams = Record<string, unknown>;
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: JsonRpcParams;
}
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonRpcParams;
}
export interface JsonRpcResult {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: Record<string, unknown>;
}
export interface JsonRpcErrorReply {
  jsonrpc: '2.0';
  /** Null when the request's id could not be read (JSON-RPC's answer for that case). */
  id: JsonRpcId | null;
  error: { code: number; message: string; data?: unknown };
}
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResult | JsonRpcErrorReply;

/** A message transport as the server sees it. */
export interface Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JsonRpcMessage) => void;
  start(): Promise<void>;
  close(): Promise<void>;
  send(message: JsonRpcMessage): Promise<void>;
}
/** How much of an oversized line is kept to find its id. */
const HEAD_BYTES = 4096;

export class BoundedStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JsonRpcMessage) => void;

  private chunks: Buffer[] = [];
  private bytes = 0;
  /** Set while an oversized line streams by: its first bytes and its last, to find its id. */
  private oversized: Buffer | undefined;
  private oversizedTail: Buffer = Buffer.alloc(0);
  private oversizedBytes = 0;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    private readonly maxLineBytes: number = MAX_MESSAGE_BYTES,
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

  send(message: JsonRpcMessage): Promise<void> {
    return new Promise((done) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) done();
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
    const message = parseMessage(line);
    if (typeof message === 'string') {
      this.onerror?.(new Error(message));
      void this.reply(idOf(line.slice(0, HEAD_BYTES), line.slice(-HEAD_BYTES)), PARSE_ERROR, 'the line is not a JSON-RPC message');
      return;
    }
    this.onmessage?.(message);
  }

  private reply(id: string | number | null, code: number, message: string): Promise<void> {
    // A JSON-RPC error needs an id; null when it cannot be read (the spec's answer for that case).
    return this.send({ jsonrpc: '2.0', id, error: { code, message } });
  }
}

/** Top-level keys each kind of message may have: JSON-RPC 2.0's, nothing else (as the SDK's strict schemas). */
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const NOTIFICATION_KEYS = new Set(['jsonrpc', 'method', 'params']);
const RESULT_KEYS = new Set(['jsonrpc', 'id', 'result']);
const ERROR_KEYS = new Set(['jsonrpc', 'id', 'error']);

/** One line as a JSON-RPC 2.0 message, or why it is not one. */
export function parseMessage(line: string): JsonRpcMessage | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not JSON';
  }
  if (!isObject(value) || value.jsonrpc !== '2.0') return 'not a JSON-RPC 2.0 message';
  const keys = Object.keys(value);
  const only = (allowed: ReadonlySet<string>): boolean => keys.every((k) => allowed.has(k));
  if ('method' in value) {
    if (typeof value.method !== 'string') return 'method is not a string';
    if ('params' in value && !isObject(value.params)) return 'params is not an object';
    if ('id' in value) return isId(value.id) && only(REQUEST_KEYS) ? (value as unknown as JsonRpcRequest) : 'not a valid request';
    return only(NOTIFICATION_KEYS) ? (value as unknown as JsonRpcNotification) : 'not a valid notification';
  }
  if ('result' in value) return isId(value.id) && isObject(value.result) && only(RESULT_KEYS) ? (value as unknown as JsonRpcResult) : 'not a valid result';
  if ('error' in value) {
    const error = value.error;
    const idOk = !('id' in value) || isId(value.id);
    return idOk && isObject(error) && Number.isSafeInteger(error.code) && typeof error.message === 'string' && only(ERROR_KEYS) ? ({ id: null, ...value } as unknown as JsonRpcErrorReply) : 'not a valid error';
  }
  return 'neither a request, a notification nor a response';
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON-RPC ids here: a string or an integer (as the SDK's schema). */
export function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

const ID_VALUE = String.raw`(-?\d{1,15}(?=\s*[,}])|"(?:[^"\\]|\\.){0,200}")`;
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
