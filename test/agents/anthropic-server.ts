/**
 * A scripted model on 127.0.0.1 that plays Anthropic's Messages API (`POST /v1/messages`, streaming
 * SSE or plain JSON), so a real Claude Code runs end to end with no network. Every request is kept,
 * so a test can read exactly what the model was shown. The script sees each request that offers
 * tools (the agent's turns) and answers with text or tool calls; requests without tools (Claude
 * Code's side calls: titles, summaries) get a short text answer and do not advance the script.
 */
import { createServer, type Server } from 'node:http';

export interface MessagesRequest {
  model?: string;
  stream?: boolean;
  system?: unknown;
  tools?: Array<{ name: string }>;
  messages: Array<{ role: string; content: string | Array<Record<string, unknown>> }>;
}

export type Turn = { text: string } | { tool: string; input: Record<string, unknown> };

/** Decides the next turn from the request (the agent's view so far); undefined ends the run with text. */
export type Script = (request: MessagesRequest, turn: number) => Turn | Turn[] | undefined;

export interface ScriptedModel {
  url: string;
  /** Every request body, in order. */
  requests: MessagesRequest[];
  /** The requests that offered tools (the agent's turns). */
  turns: MessagesRequest[];
  /** Per turn: when its request arrived and when its answer was sent (performance.now()). */
  times: Array<{ received: number; answered: number }>;
  close(): Promise<void>;
}

export async function startScriptedModel(script: Script): Promise<ScriptedModel> {
  const requests: MessagesRequest[] = [];
  const turns: MessagesRequest[] = [];
  const times: Array<{ received: number; answered: number }> = [];
  let ids = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      if (req.method !== 'POST' || !(req.url ?? '').startsWith('/v1/messages')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: req.url } }));
        return;
      }
      if ((req.url ?? '').startsWith('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 10 }));
        return;
      }
      let request: MessagesRequest;
      try {
        request = JSON.parse(body) as MessagesRequest;
      } catch {
        res.writeHead(400).end();
        return;
      }
      requests.push(request);
      let planned: Turn | Turn[] | undefined = { text: 'ok' };
      const offersTools = (request.tools ?? []).length > 0;
      if (offersTools) {
        times.push({ received: performance.now(), answered: 0 });
        turns.push(request);
        planned = script(request, turns.length - 1) ?? { text: 'done' };
      }
      const blocks = Array.isArray(planned) ? planned : [planned];
      const content = blocks.map((b) => ('text' in b ? { type: 'text', text: b.text } : { type: 'tool_use', id: `toolu_${String(++ids).padStart(4, '0')}`, name: b.tool, input: b.input }));
      const stop = content.some((c) => c.type === 'tool_use') ? 'tool_use' : 'end_turn';
      const message = { id: `msg_${++ids}`, type: 'message', role: 'assistant', model: request.model ?? 'claude-scripted', content, stop_reason: stop, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 10 } };
      if (!request.stream) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(message));
        if (offersTools) times[times.length - 1]!.answered = performance.now();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      send('message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null } });
      content.forEach((block, index) => {
        if (block.type === 'text') {
          send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
          send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
        } else {
          send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
          send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
        }
        send('content_block_stop', { type: 'content_block_stop', index });
      });
      send('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 10 } });
      send('message_stop', { type: 'message_stop' });
      res.end();
      if (offersTools) times[times.length - 1]!.answered = performance.now();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    turns,
    times,
    close: () => new Promise<void>((done) => {
      server.close(() => done());
      server.closeAllConnections();
    }),
  };
}

/** What the agent was told since its last turn: tool results and the text around them (hook context included). */
export function lastUserText(request: MessagesRequest): string {
  const lastAssistant = request.messages.map((m) => m.role).lastIndexOf('assistant');
  // Claude Code sends hook context as a message of role `system` after the tool result.
  return request.messages.slice(lastAssistant + 1).map(userText).join('\n');
}

function userText(message: MessagesRequest['messages'][number]): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((block) => {
    if (block.type === 'text') return String(block.text);
    if (block.type === 'tool_result') {
      const inner = block.content;
      const text = typeof inner === 'string' ? inner : Array.isArray(inner) ? inner.map((c) => (c as { text?: string }).text ?? '').join('\n') : '';
      return `${block.is_error ? '[tool error] ' : ''}${text}`;
    }
    return '';
  }).join('\n');
}

/** True when a tool result since the agent's last turn was an error. */
export function lastToolFailed(request: MessagesRequest): boolean {
  const lastAssistant = request.messages.map((m) => m.role).lastIndexOf('assistant');
  return request.messages.slice(lastAssistant + 1).some((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result' && b.is_error === true));
}
