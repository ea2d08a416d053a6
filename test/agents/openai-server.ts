/**
 * A scripted model on 127.0.0.1 that speaks OpenAI's Chat Completions API (streaming) and Responses
 * API (streaming server-sent events, what Codex uses), so a real agent CLI can be driven through
 * exact tool calls. Every request is recorded: a test reads the request that followed a tool call
 * to see what the agent told the model.
 *
 * The script is a list of steps. The step taken for a request is the number of tool results the
 * request already holds, so a retried request gets the same answer. A request that offers no tools
 * (opencode's title generation) is answered with a short text and takes no step.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ModelTurn =
  /** A function call; `namespace` for a tool offered inside a Responses API namespace (Codex's `mcp__<server>`). */
  | { tool: string; args: Record<string, unknown>; namespace?: string }
  /** A Responses API freeform (custom) tool call, e.g. Codex's apply_patch: `input` is the raw text. */
  | { customTool: string; input: string }
  | { text: string };

export interface ModelRequest {
  api: 'chat' | 'responses';
  body: Record<string, unknown>;
  /** The tool results this request holds, in order: what the agent sent back for each call. */
  toolResults: string[];
  /** The names of the tools the agent offered. */
  tools: string[];
}

/** A step: the turn to play, given the request (which holds the previous tool results). */
export type ScriptStep = (request: ModelRequest) => ModelTurn;

export interface ScriptedModel {
  baseUrl: string;
  requests: ModelRequest[];
  /** Requests that took a step (not title generation and the like). */
  scripted(): ModelRequest[];
  /** Errors a step threw (the model then answered with text, ending the run). */
  errors: string[];
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

export async function startScriptedModel(script: ScriptStep[]): Promise<ScriptedModel> {
  const requests: ModelRequest[] = [];
  const errors: string[] = [];
  let calls = 0;

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      errors.push(String(error));
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted', object: 'model', owned_by: 'formatbox' }] }));
      return;
    }
    const api = url.pathname.endsWith('/chat/completions') ? 'chat' : url.pathname.endsWith('/responses') ? 'responses' : undefined;
    if (req.method !== 'POST' || !api) {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    const request: ModelRequest = { api, body, toolResults: api === 'chat' ? chatToolResults(body) : responsesToolResults(body), tools: toolNames(body) };
    requests.push(request);
    let turn: ModelTurn;
    if (request.tools.length === 0) turn = { text: 'formatbox scripted session' };
    else {
      const step = script[request.toolResults.length];
      try {
        turn = step ? step(request) : { text: 'done' };
      } catch (error) {
        errors.push(`step ${request.toolResults.length}: ${(error as Error).message}`);
        turn = { text: `script error: ${(error as Error).message}` };
      }
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const id = `call_${++calls}`;
    if (api === 'chat') writeChat(res, turn, id, String(body.model ?? 'scripted'));
    else writeResponses(res, turn, id, String(body.model ?? 'scripted'));
    res.end();
  }

  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    errors,
    scripted: () => requests.filter((r) => r.tools.length > 0),
    close: () => new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_BODY_BYTES) reject(new Error('request body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Tool names; a tool inside a namespace (Responses API) is named `<namespace>.<name>`. */
function toolNames(body: Record<string, unknown>): string[] {
  const tools = Array.isArray(body.tools) ? (body.tools as Record<string, unknown>[]) : [];
  return tools.flatMap((tool) => {
    if (tool.type === 'namespace' && Array.isArray(tool.tools)) return (tool.tools as Record<string, unknown>[]).map((inner) => `${String(tool.name)}.${String(inner.name)}`);
    const fn = tool.function as Record<string, unknown> | undefined;
    return [String(fn?.name ?? tool.name ?? tool.type ?? '')];
  });
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === 'string' ? part : String((part as Record<string, unknown>)?.text ?? ''))).join('');
  return content === undefined || content === null ? '' : JSON.stringify(content);
}

/** The arguments of the last tool call the request's transcript shows as the model's own (chat API). */
export function lastToolCallArgs(request: ModelRequest): Record<string, unknown> | undefined {
  const messages = Array.isArray(request.body.messages) ? (request.body.messages as Record<string, unknown>[]) : [];
  const calls = messages.flatMap((m) => (m.role === 'assistant' && Array.isArray(m.tool_calls) ? (m.tool_calls as Array<{ function?: { arguments?: string } }>) : []));
  const last = calls[calls.length - 1]?.function?.arguments;
  return typeof last === 'string' ? (JSON.parse(last) as Record<string, unknown>) : undefined;
}

function chatToolResults(body: Record<string, unknown>): string[] {
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  return messages.filter((m) => m.role === 'tool').map((m) => textOf(m.content));
}

function responsesToolResults(body: Record<string, unknown>): string[] {
  const input = Array.isArray(body.input) ? (body.input as Record<string, unknown>[]) : [];
  return input.filter((item) => item.type === 'function_call_output' || item.type === 'custom_tool_call_output').map((item) => textOf(item.output));
}

function sse(res: ServerResponse, data: unknown, event?: string): void {
  res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

function writeChat(res: ServerResponse, turn: ModelTurn, id: string, model: string): void {
  const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) => ({
    id: `chatcmpl-${id}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model,
    choices: [{ index: 0, delta, finish_reason: finish }], ...extra,
  });
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if ('text' in turn) {
    sse(res, chunk({ role: 'assistant', content: turn.text }, null));
    sse(res, chunk({}, 'stop', { usage }));
  } else {
    const name = 'tool' in turn ? turn.tool : turn.customTool;
    const args = 'tool' in turn ? JSON.stringify(turn.args) : JSON.stringify({ input: turn.input });
    sse(res, chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: args } }] }, null));
    sse(res, chunk({}, 'tool_calls', { usage }));
  }
  sse(res, '[DONE]');
}

function writeResponses(res: ServerResponse, turn: ModelTurn, id: string, model: string): void {
  const responseId = `resp_${id}`;
  const base = { id: responseId, object: 'response', created_at: Math.floor(Date.now() / 1000), model, status: 'in_progress', output: [] };
  sse(res, { type: 'response.created', response: base }, 'response.created');
  let item: Record<string, unknown>;
  if ('text' in turn) item = { type: 'message', id: `msg_${id}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] };
  else if ('tool' in turn) item = { type: 'function_call', id: `fc_${id}`, call_id: id, name: turn.tool, ...(turn.namespace ? { namespace: turn.namespace } : {}), arguments: JSON.stringify(turn.args), status: 'completed' };
  else item = { type: 'custom_tool_call', id: `ctc_${id}`, call_id: id, name: turn.customTool, input: turn.input, status: 'completed' };
  sse(res, { type: 'response.output_item.added', output_index: 0, item }, 'response.output_item.added');
  sse(res, { type: 'response.output_item.done', output_index: 0, item }, 'response.output_item.done');
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
  sse(res, { type: 'response.completed', response: { ...base, status: 'completed', output: [item], usage } }, 'response.completed');
}

/**
 * The text between the `<<<` and `>>>` marker lines of the first edit block in `toolResult` (the
 * form the hook, the plugin and the MCP server use), or undefined when it holds none.
 */
export function formattedEditText(toolResult: string): string | undefined {
  const match = /\n<<<\n([\s\S]*?)\n>>>(?:\n|$)/.exec(toolResult);
  return match?.[1];
}
