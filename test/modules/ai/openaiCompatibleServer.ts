// A small OpenAI-compatible chat-completions server for the copilot's provider tests: POST
// /v1/chat/completions answers what the test scripted next (a tool call, text, an error status, or
// nothing at all), as JSON, or as server-sent events when the request asks `stream: true` (a tool
// call's name and arguments split across chunks). It checks the bearer key and records each request.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptedAnswer =
  | { kind: 'tool'; name: string; arguments: string; content?: string }
  | { kind: 'content'; text: string }
  | { kind: 'status'; status: number }
  /** Never answers (a provider that hangs): the client's time limit ends it. */
  | { kind: 'hang' };

export interface RecordedRequest {
  authorization: string | null;
  body: Record<string, any>;
}

export interface OpenAiCompatibleServer {
  /** The base URL to give SVC_AI_BASE_URL (`http://127.0.0.1:<port>/v1`). */
  baseUrl: string;
  requests: RecordedRequest[];
  /** What the next requests answer, in order; with none scripted a request answers text "Nothing scripted". */
  script(...answers: ScriptedAnswer[]): void;
  close(): Promise<void>;
}

function completion(model: string, message: Record<string, unknown>, finishReason: string) {
  return { id: 'chatcmpl-test', object: 'chat.completion', created: 1_700_000_000, model, choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }] };
}

function chunk(model: string, delta: Record<string, unknown>, finishReason: string | null = null) {
  return { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] };
}

/** Splits text into `parts` pieces (some may be empty), so a delta never holds the whole. */
function pieces(text: string, parts: number): string[] {
  const size = Math.ceil(text.length / parts);
  return Array.from({ length: parts }, (_, index) => text.slice(index * size, (index + 1) * size));
}

function answerJson(response: ServerResponse, model: string, answer: Exclude<ScriptedAnswer, { kind: 'status' | 'hang' }>): void {
  const message =
    answer.kind === 'tool'
      ? { role: 'assistant', content: answer.content ?? null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: answer.name, arguments: answer.arguments } }] }
      : { role: 'assistant', content: answer.text };
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(completion(model, message, answer.kind === 'tool' ? 'tool_calls' : 'stop')));
}

function answerStream(response: ServerResponse, model: string, answer: Exclude<ScriptedAnswer, { kind: 'status' | 'hang' }>): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\n\n`);
  send(chunk(model, { role: 'assistant', content: '' }));
  if (answer.kind === 'tool') {
    const [nameStart, nameEnd] = pieces(answer.name, 2);
    send(chunk(model, { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: nameStart, arguments: '' } }] }));
    send(chunk(model, { tool_calls: [{ index: 0, function: { name: nameEnd } }] }));
    for (const part of pieces(answer.arguments, 3)) send(chunk(model, { tool_calls: [{ index: 0, function: { arguments: part } }] }));
    send(chunk(model, {}, 'tool_calls'));
  } else {
    for (const part of pieces(answer.text, 3)) send(chunk(model, { content: part }));
    send(chunk(model, {}, 'stop'));
  }
  response.end('data: [DONE]\n\n');
}

async function bodyOf(request: IncomingMessage): Promise<Record<string, any>> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, any>;
}

export async function startOpenAiCompatibleServer(apiKey: string): Promise<OpenAiCompatibleServer> {
  const requests: RecordedRequest[] = [];
  const scripted: ScriptedAnswer[] = [];
  const server = createServer((request, response) => {
    void (async () => {
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
        response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Not found' } }));
        return;
      }
      const body = await bodyOf(request);
      requests.push({ authorization: request.headers.authorization ?? null, body });
      if (request.headers.authorization !== `Bearer ${apiKey}`) {
        response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Incorrect API key provided' } }));
        return;
      }
      const answer = scripted.shift() ?? { kind: 'content', text: 'Nothing scripted' };
      if (answer.kind === 'hang') return;
      if (answer.kind === 'status') {
        // A short retry delay, so the client's one retry does not wait its default backoff.
        response.writeHead(answer.status, { 'content-type': 'application/json', 'retry-after-ms': '10' }).end(JSON.stringify({ error: { message: 'Scripted failure' } }));
        return;
      }
      const model = String(body.model);
      if (body.stream === true) answerStream(response, model, answer);
      else answerJson(response, model, answer);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...answers) => scripted.push(...answers),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
