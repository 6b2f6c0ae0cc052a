// A translation provider of the tests' own, on a local port: it speaks DeepL's POST /v2/translate
// (form-encoded, as deepl-node sends it) and OpenAI's POST /v1/chat/completions, records every
// request it received, and answers as the test sets it: a translation, a refusal, or silence.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  /** The form's fields (DeepL) or the JSON body (OpenAI). */
  body: Record<string, any>;
}

export type ProviderBehaviour = 'translate' | 'refuse' | 'hang';

export interface ProviderServer {
  /** The base URL (`http://127.0.0.1:<port>`). */
  url: string;
  received: ReceivedRequest[];
  behaviour: ProviderBehaviour;
  close(): Promise<void>;
}

/** What the provider "translates" a text to: recognisable, and keeping DeepL's ignored tags. */
export const fakeTranslation = (text: string, target: string) => `[${target}] ${text}`;

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startProviderServer(): Promise<ProviderServer> {
  const sockets = new Set<import('node:net').Socket>();
  const state: ProviderServer = { url: '', received: [], behaviour: 'translate', close: async () => {} };
  const server: Server = createServer(async (request, response) => {
    const raw = await readBody(request);
    const isForm = (request.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded');
    const body = isForm ? Object.fromEntries(new URLSearchParams(raw)) : raw ? JSON.parse(raw) : {};
    const path = (request.url ?? '').split('?')[0]!;
    state.received.push({ path, headers: request.headers, body });
    if (state.behaviour === 'hang') return; // never answers: the client's timeout must end the call
    const json = (status: number, value: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(value));
    };
    // A refusal that echoes the credential, as a careless server might: it must never reach the caller.
    if (state.behaviour === 'refuse') return json(403, { message: `bad key ${request.headers.authorization ?? ''}` });
    if (path === '/v2/translate') {
      return json(200, { translations: [{ detected_source_language: String(body.source_lang ?? 'EN').toUpperCase(), text: fakeTranslation(body.text, body.target_lang), billed_characters: 1 }] });
    }
    if (path === '/v1/chat/completions') {
      const userText = body.messages?.find((message: { role: string }) => message.role === 'user')?.content ?? '';
      return json(200, {
        id: 'chatcmpl-test',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: fakeTranslation(userText, 'llm') }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    }
    return json(404, { message: 'no such path' });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}
