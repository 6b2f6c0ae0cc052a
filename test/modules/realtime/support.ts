// A WebSocket client for realtime tests: collects frames and waits for them (no sleeps).
import WebSocket from 'ws';
import type { TestService, TestSite } from '../../support/testService.ts';

export interface RealtimeClient {
  socket: WebSocket;
  frames: Record<string, unknown>[];
  next(predicate: (frame: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Resolves once every frame sent before it was handled by the server (ping/pong ordering). */
  sync(): Promise<void>;
  closed: Promise<{ code: number }>;
  close(): void;
}

export async function ticketFor(service: TestService, site: TestSite, kind: 'ticket' | 'audience-ticket' = 'ticket', token = site.adminToken): Promise<string> {
  const response = await service.request('POST', `/realtime/${kind}`, { site: site.siteId, token });
  if (response.status !== 200) throw new Error(`ticket: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data.ticket;
}

export function realtimeUrl(service: TestService, ticket: string | null): string {
  return `${service.url.replace(/^http/, 'ws')}/api/v1/realtime${ticket === null ? '' : `?ticket=${encodeURIComponent(ticket)}`}`;
}

/** Opens a socket; rejects with the HTTP status when the upgrade is refused. */
export function connect(service: TestService, ticket: string | null, options: WebSocket.ClientOptions = {}): Promise<RealtimeClient> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(realtimeUrl(service, ticket), options);
    const frames: Record<string, unknown>[] = [];
    const waiters = new Set<() => void>();
    const closed = new Promise<{ code: number }>((done) => socket.once('close', (code) => done({ code })));
    socket.on('message', (data) => {
      frames.push(JSON.parse(data.toString()));
      for (const waiter of [...waiters]) waiter();
    });
    socket.once('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${response.statusCode}`), { status: response.statusCode, body: text })));
    });
    socket.once('error', (error) => reject(error));
    socket.once('open', () =>
      resolve({
        socket,
        frames,
        closed,
        next(predicate, timeoutMs = 15_000) {
          const found = frames.find(predicate);
          if (found) return Promise.resolve(found);
          return new Promise((done, fail) => {
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`no matching frame in ${timeoutMs} ms; got ${JSON.stringify(frames)}`));
            }, timeoutMs);
            function check() {
              const match = frames.find(predicate);
              if (!match) return;
              clearTimeout(timer);
              waiters.delete(check);
              done(match);
            }
            waiters.add(check);
          });
        },
        sync() {
          return new Promise((done) => {
            socket.once('pong', () => done());
            socket.ping();
          });
        },
        close() {
          socket.close();
        },
      }),
    );
  });
}

export async function subscribe(client: RealtimeClient, collection: string, filter?: unknown): Promise<void> {
  client.socket.send(JSON.stringify({ type: 'subscribe', collection, ...(filter === undefined ? {} : { filter }) }));
  await client.sync();
}

/** Creates collections through the schema routes (tickets embed the site's live collections). */
export async function createCollections(service: TestService, site: TestSite, names: string[]): Promise<void> {
  for (const name of names) {
    const response = await service.request('POST', '/collections', {
      site: site.siteId,
      token: site.adminToken,
      body: { name, fields: [{ field: 'title', type: 'string' }] },
    });
    if (response.status !== 201) throw new Error(`collection ${name}: ${response.status} ${JSON.stringify(response.body)}`);
  }
}
