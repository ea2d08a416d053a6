/**
 * A scripted model on 127.0.0.1 that speaks the Gemini API (`generateContent`, and
 * `streamGenerateContent` as server-sent events), so the real Gemini CLI can be driven through exact
 * tool calls (`GOOGLE_GEMINI_BASE_URL`). It follows the OpenAI server's script rules
 * (openai-server.ts): the step taken for a request is the number of function responses the request
 * already holds, and a request that offers no tools (a classifier, a summary) takes no step.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScriptedModel, ScriptStep, ModelRequest, ModelTurn } from './openai-server.js';

const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface GeminiRequest extends Omit<ModelRequest, 'api'> {
  api: 'gemini';
}

export interface ScriptedGemini extends Omit<ScriptedModel, 'requests' | 'scripted'> {
  /** The base URL without a version: the CLI appends `/v1beta/models/…`. */
  baseUrl: string;
  requests: GeminiRequest[];
  scripted(): GeminiRequest[];
}

export async function startScriptedGemini(script: ScriptStep[]): Promise<ScriptedGemini> {
  const requests: GeminiRequest[] = [];
  const errors: string[] = [];

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      errors.push(String(error));
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 500, message: String(error), status: 'INTERNAL' } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = /:([A-Za-z]+)$/.exec(url.pathname)?.[1];
    if (req.method !== 'POST' || !method) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 404, message: 'not found', status: 'NOT_FOUND' } }));
      return;
    }
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    if (method === 'countTokens') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ totalTokens: 10 }));
      return;
    }
    if (method !== 'generateContent' && method !== 'streamGenerateContent') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 404, message: `no ${method}`, status: 'NOT_FOUND' } }));
      return;
    }
    const request: GeminiRequest = { api: 'gemini', body, toolResults: functionResponses(body), tools: toolNames(body) };
    requests.push(request);
    let turn: ModelTurn;
    if (request.tools.length === 0) turn = { text: untooledAnswer(body) };
    else {
      const step = script[request.toolResults.length];
      try {
        turn = step ? step(request as unknown as ModelRequest) : { text: 'done' };
      } catch (error) {
        errors.push(`step ${request.toolResults.length}: ${(error as Error).message}`);
        turn = { text: `script error: ${(error as Error).message}` };
      }
    }
    const response = candidateOf(turn);
    if (method === 'generateContent') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(response));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.write(`data: ${JSON.stringify(response)}\r\n\r\n`);
    res.end();
  }

  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    errors,
    scripted: () => requests.filter((r) => r.tools.length > 0),
    close: () => new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    }),
  };
}

/**
 * The answer to a request that offers no tools. The CLI asks such questions with a JSON response
 * schema (which model to route to, who speaks next); they get a JSON answer that ends the turn.
 */
function untooledAnswer(body: Record<string, unknown>): string {
  const config = (body.generationConfig ?? body.config ?? {}) as Record<string, unknown>;
  if (config.responseMimeType === 'application/json') {
    return JSON.stringify({ reasoning: 'scripted', next_speaker: 'user', model_choice: 'flash', complexity_reasoning: 'scripted', complexity_score: 1 });
  }
  return 'formatbox scripted session';
}

function candidateOf(turn: ModelTurn): Record<string, unknown> {
  if ('applyPatch' in turn) throw new Error('an apply_patch call needs the OpenAI Responses API');
  const part = 'text' in turn ? { text: turn.text } : 'tool' in turn ? { functionCall: { name: turn.tool, args: turn.args } } : { text: turn.input };
  return {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: 'scripted',
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

function toolNames(body: Record<string, unknown>): string[] {
  const tools = Array.isArray(body.tools) ? (body.tools as Record<string, unknown>[]) : [];
  return tools.flatMap((tool) => (Array.isArray(tool.functionDeclarations) ? (tool.functionDeclarations as Record<string, unknown>[]).map((fn) => String(fn.name)) : []));
}

/** Each function response's text, in order: its `output` (or `error`), else the response as JSON. */
function functionResponses(body: Record<string, unknown>): string[] {
  const contents = Array.isArray(body.contents) ? (body.contents as Record<string, unknown>[]) : [];
  const results: string[] = [];
  for (const content of contents) {
    const parts = Array.isArray(content.parts) ? (content.parts as Record<string, unknown>[]) : [];
    for (const part of parts) {
      const fr = part.functionResponse as { response?: Record<string, unknown> } | undefined;
      if (!fr) continue;
      const response = fr.response ?? {};
      const text = typeof response.output === 'string' ? response.output : typeof response.error === 'string' ? response.error : JSON.stringify(response);
      results.push(text);
    }
  }
  return results;
}

/** The text of the function call parts the model made, in order (what the transcript shows the model). */
export function geminiFunctionCalls(body: Record<string, unknown>): Array<{ name: string; args: Record<string, unknown> }> {
  const contents = Array.isArray(body.contents) ? (body.contents as Record<string, unknown>[]) : [];
  return contents.flatMap((content) => (Array.isArray(content.parts) ? (content.parts as Record<string, unknown>[]) : []))
    .filter((part) => part.functionCall)
    .map((part) => part.functionCall as { name: string; args: Record<string, unknown> });
}
