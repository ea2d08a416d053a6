/**
 * The Model Context Protocol, server side, as far as `formatbox mcp` speaks it: `initialize` (with
 * the protocol-version negotiation of the spec: the client's version when it is one this server
 * knows, else the newest), `ping`, `tools/list`, `tools/call`, the client's notifications
 * (`initialized`, `roots/list_changed`, `cancelled`), and one request of its own, `roots/list`.
 * Anything else is JSON-RPC's "method not found". Its own code rather than the official SDK's
 * server: the SDK brings about 98 packages (an HTTP stack, two schema validators) into every install
 * and into start-up, for a stdio server that needs none of them. The SDK stays a dev dependency:
 * the tests drive this server with the SDK's own client.
 *
 * Every field a client sends is checked before use; a request with bad params gets JSON-RPC's
 * "invalid params" and the server stays up.
 */
import { isId, isObject, JSONRPC_ERROR, type JsonRpcErrorReply, type JsonRpcId, type JsonRpcMessage, type JsonRpcParams, type JsonRpcRequest, type Transport } from './mcp-stdio.js';

/** The protocol versions this server speaks, newest first (the SDK 1.32's list). */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'] as const;

/** How long a request to the client (roots/list) may take: the SDK's default request timeout. */
const CLIENT_REQUEST_TIMEOUT_MS = 60_000;
/** The SDK's codes for a request to the client that timed out, or a connection that closed first. */
const REQUEST_TIMEOUT = -32001;
const CONNECTION_CLOSED = -32000;

export interface CallToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: object;
  outputSchema?: object;
}

export interface ClientCapabilities {
  roots?: { listChanged?: boolean };
  [key: string]: unknown;
}

export interface McpServerOptions {
  info: { name: string; version: string };
  tools: readonly ToolDefinition[];
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  oninitialized?: () => void;
  onRootsListChanged?: () => void;
}

/** A JSON-RPC error with its code, thrown by a handler or by a request to the client. */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export class McpServer {
  private clientCapabilities: ClientCapabilities | undefined;
  private transport: Transport | undefined;
  private nextId = 0;
  private readonly pending = new Map<JsonRpcId, { resolve: (result: Record<string, unknown>) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  /** Requests from the client being handled; a `notifications/cancelled` for one drops its reply. */
  private readonly inFlight = new Map<JsonRpcId, { cancelled: boolean }>();
  onclose?: () => void;

  constructor(private readonly options: McpServerOptions) {}

  getClientCapabilities(): ClientCapabilities | undefined {
    return this.clientCapabilities;
  }

  async connect(transport: Transport): Promise<void> {
    this.transport = transport;
    transport.onmessage = (message) => this.receive(message);
    transport.onclose = () => this.closed();
    await transport.start();
  }

  /** The client's roots (`roots/list`); the caller asks only a client that offers roots. */
  async listRoots(): Promise<{ roots: Array<{ uri: string; name?: string }> }> {
    const result = await this.request('roots/list');
    const roots = result.roots;
    if (!Array.isArray(roots) || !roots.every((r) => isObject(r) && typeof r.uri === 'string' && r.uri.startsWith('file://') && (r.name === undefined || typeof r.name === 'string'))) {
      throw new JsonRpcError(JSONRPC_ERROR.INVALID_PARAMS, 'roots/list: the client\'s answer is not a list of {uri: "file://…", name?}');
    }
    return { roots: roots as Array<{ uri: string; name?: string }> };
  }

  private request(method: string): Promise<Record<string, unknown>> {
    const transport = this.transport;
    if (!transport) return Promise.reject(new JsonRpcError(CONNECTION_CLOSED, 'not connected'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new JsonRpcError(REQUEST_TIMEOUT, `${method}: no answer in ${CLIENT_REQUEST_TIMEOUT_MS} ms`));
      }, CLIENT_REQUEST_TIMEOUT_MS);
      timer.unref();
      this.pending.set(id, { resolve, reject, timer });
      transport.send({ jsonrpc: '2.0', id, method }).catch((error: unknown) => {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      });
    });
  }

  private receive(message: JsonRpcMessage): void {
    if ('method' in message) {
      if ('id' in message) void this.answer(message);
      else this.notified(message.method, message.params);
      return;
    }
    // A response to one of this server's requests; one for an id it never sent is dropped.
    if (message.id === null) return;
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    clearTimeout(waiting.timer);
    if ('error' in message) waiting.reject(new JsonRpcError(message.error.code, message.error.message));
    else waiting.resolve(message.result);
  }

  private notified(method: string, params: JsonRpcParams | undefined): void {
    switch (method) {
      case 'notifications/initialized':
        this.options.oninitialized?.();
        return;
      case 'notifications/roots/list_changed':
        this.options.onRootsListChanged?.();
        return;
      case 'notifications/cancelled': {
        const call = params && isId(params.requestId) ? this.inFlight.get(params.requestId) : undefined;
        if (call) call.cancelled = true;
        return;
      }
      default:
        return; // notifications this server has no use for (progress, …) are ignored, as the spec allows
    }
  }

  private async answer(request: JsonRpcRequest): Promise<void> {
    const call = { cancelled: false };
    this.inFlight.set(request.id, call);
    let reply: JsonRpcMessage;
    try {
      reply = { jsonrpc: '2.0', id: request.id, result: await this.handle(request.method, request.params ?? {}) };
    } catch (error) {
      const code = error instanceof JsonRpcError ? error.code : JSONRPC_ERROR.INTERNAL;
      reply = { jsonrpc: '2.0', id: request.id, error: { code, message: error instanceof Error ? error.message : String(error) } } satisfies JsonRpcErrorReply;
    } finally {
      if (this.inFlight.get(request.id) === call) this.inFlight.delete(request.id);
    }
    if (call.cancelled) return;
    await this.transport?.send(reply).catch(() => undefined);
  }

  private async handle(method: string, params: JsonRpcParams): Promise<Record<string, unknown>> {
    switch (method) {
      case 'initialize':
        return this.initialize(params);
      case 'ping':
        return {};
      case 'tools/list':
        return { tools: this.options.tools.map((tool) => ({ ...tool })) };
      case 'tools/call': {
        if (typeof params.name !== 'string') throw new JsonRpcError(JSONRPC_ERROR.INVALID_PARAMS, 'Invalid tools/call request: name must be a string');
        if (params.arguments !== undefined && !isObject(params.arguments)) throw new JsonRpcError(JSONRPC_ERROR.INVALID_PARAMS, 'Invalid tools/call request: arguments must be an object');
        return this.options.callTool(params.name, (params.arguments as Record<string, unknown> | undefined) ?? {});
      }
      default:
        throw new JsonRpcError(JSONRPC_ERROR.METHOD_NOT_FOUND, 'Method not found');
    }
  }

  private initialize(params: JsonRpcParams): Record<string, unknown> {
    const { protocolVersion, capabilities, clientInfo } = params;
    if (typeof protocolVersion !== 'string') throw new JsonRpcError(JSONRPC_ERROR.INVALID_PARAMS, 'Invalid initialize request: protocolVersion must be a string');
    if (!isObject(capabilities)) throw new JsonRpcError(JSONRPC_ERROR.INVALID_PARAMS, 'Invalid initialize request: capabilities must be an object');
    if (!isObject(clientInfo) || typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string') {
      throw new JsonRpcError(JSONRPC_ERROR.INVALID_PARAMS, 'Invalid initialize request: clientInfo must be {name, version} (strings)');
    }
    if (capabilities.roots !== undefined && !isObject(capabilities.roots)) throw new JsonRpcError(JSONRPC_ERROR.INVALID_PARAMS, 'Invalid initialize request: capabilities.roots must be an object');
    this.clientCapabilities = capabilities as ClientCapabilities;
    const negotiated = (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(protocolVersion) ? protocolVersion : SUPPORTED_PROTOCOL_VERSIONS[0];
    return { protocolVersion: negotiated, capabilities: { tools: {} }, serverInfo: this.options.info };
  }

  private closed(): void {
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(new JsonRpcError(CONNECTION_CLOSED, 'Connection closed'));
      this.pending.delete(id);
    }
    this.onclose?.();
  }
}
