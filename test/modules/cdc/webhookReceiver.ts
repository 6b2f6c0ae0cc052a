// A real local HTTP receiver for webhook tests: verifies signatures, and can be told to fail,
// to hang (so the sender times out), or to answer slowly.
import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../../src/modules/cdc/webhookSignature.ts';

export type ReceiverMode = 'ok' | 'fail' | 'hang';

export interface ReceivedDelivery {
  deliveryId: string;
  signatureValid: boolean;
  headers: http.IncomingHttpHeaders;
  body: { type: string; sequence: number; cursor: string; itemId: string | null; collection: string | null; snapshot: Record<string, unknown> | null };
  answered: number;
  receivedAt: number;
}

export interface WebhookReceiver {
  url: string;
  /** Every request, in arrival order (failed and hung ones too). */
  requests: ReceivedDelivery[];
  /** Requests answered 2xx. */
  accepted(): ReceivedDelivery[];
  mode: ReceiverMode;
  /** Answer the next `count` requests with `mode`, then go back to ok. */
  failNext(count: number, mode?: Exclude<ReceiverMode, 'ok'>): void;
  delayMs: number;
  waitFor(predicate: (receiver: WebhookReceiver) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(secret: string): Promise<WebhookReceiver> {
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
  let failing: { count: number; mode: Exclude<ReceiverMode, 'ok'> } | null = null;
  const hung = new Set<http.ServerResponse>();
  const receiver: WebhookReceiver = {
    url: '',
    requests: [],
    mode: 'ok',
    delayMs: 0,
    accepted: () => receiver.requests.filter((request) => request.answered >= 200 && request.answered < 300),
    failNext(count, mode = 'fail') {
      failing = { count, mode };
    },
    waitFor(predicate, timeoutMs = 15_000) {
      if (predicate(receiver)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          changes.off('change', check);
          reject(new Error(`receiver condition not met in ${timeoutMs} ms; ${receiver.requests.length} requests`));
        }, timeoutMs);
        function check() {
          if (!predicate(receiver)) return;
          clearTimeout(timer);
          changes.off('change', check);
          resolve();
        }
        changes.on('change', check);
      });
    },
    async close() {
      for (const response of hung) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let mode: ReceiverMode = receiver.mode;
      if (failing && failing.count > 0) {
        mode = failing.mode;
        failing.count -= 1;
      }
      const entry: ReceivedDelivery = {
        deliveryId: String(request.headers['x-svc-delivery'] ?? ''),
        signatureValid: verifySignature(secret, raw, String(request.headers['x-svc-signature'] ?? ''), {
          nowSeconds: Math.floor(Date.now() / 1000),
          toleranceSeconds: 300,
        }),
        headers: request.headers,
        body: JSON.parse(raw),
        answered: 0,
        receivedAt: Date.now(),
      };
      receiver.requests.push(entry);
      const answer = (status: number) => {
        entry.answered = status;
        response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
        changes.emit('change');
      };
      if (mode === 'hang') {
        hung.add(response);
        changes.emit('change');
        return;
      }
      const status = mode === 'fail' ? 500 : 200;
      if (receiver.delayMs > 0) setTimeout(() => answer(status), receiver.delayMs);
      else answer(status);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
