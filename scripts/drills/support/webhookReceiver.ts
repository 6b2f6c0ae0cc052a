// A local HTTP receiver of change-feed webhooks: records every delivery by its X-Svc-Delivery id with
// a digest of its body, so a drill can tell a re-sent delivery (same id, same body: allowed, at least
// once) from one sent twice with different content (a violation), and which items arrived.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { call, must } from './http.ts';

export interface WebhookReceiver {
  url: string;
  /** Answer 503 to everything while true (a receiver that is down). */
  failing: boolean;
  /** Deliveries received, re-sends included. */
  received(): number;
  /** Distinct delivery ids. */
  distinct(): number;
  /** Delivery ids that arrived more than once with different bodies. */
  conflicting(): string[];
  /** Delivery ids that arrived more than once. */
  resent(): number;
  /** Item ids of the envelopes of one type (`items.create`…) received. */
  itemIds(type: string): Set<string>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const bodies = new Map<string, { digest: string; count: number }>();
  const conflicts = new Set<string>();
  const items = new Map<string, Set<string>>();
  let received = 0;
  let failing = false;

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (failing) {
        response.writeHead(503).end();
        return;
      }
      received += 1;
      const raw = Buffer.concat(chunks);
      const id = String(request.headers['x-svc-delivery'] ?? '');
      const digest = createHash('sha256').update(raw).digest('hex');
      const known = bodies.get(id);
      if (known) {
        known.count += 1;
        if (known.digest !== digest) conflicts.add(id);
      } else {
        bodies.set(id, { digest, count: 1 });
      }
      try {
        const envelope = JSON.parse(raw.toString()) as { type?: string; itemId?: string };
        if (envelope.type && envelope.itemId) {
          if (!items.has(envelope.type)) items.set(envelope.type, new Set());
          items.get(envelope.type)!.add(envelope.itemId);
        }
      } catch {
        // not JSON: counted, not parsed
      }
      response.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };

  return {
    url: `http://127.0.0.1:${port}/hook`,
    get failing() {
      return failing;
    },
    set failing(value: boolean) {
      failing = value;
    },
    received: () => received,
    distinct: () => bodies.size,
    conflicting: () => [...conflicts],
    resent: () => [...bodies.values()].filter((entry) => entry.count > 1).length,
    itemIds: (type) => items.get(type) ?? new Set<string>(),
    async close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** A webhook subscription of the site's whole change feed (from now on) to `url`; answers its id. */
export async function subscribeWebhook(base: string, siteId: string, token: string, url: string): Promise<string> {
  const created = await must(base, 'POST', '/cdc/subscriptions', { site: siteId, token, body: { name: `drill-${Date.now()}`, kind: 'webhook', webhook: { url, secret: 'drill webhook secret 0123456789' } } });
  return created.data.id;
}

/** Feed entries the subscription has not delivered yet (null when it cannot be read), and its state. */
export async function webhookLag(base: string, siteId: string, token: string, subscriptionId: string): Promise<{ events: number | null; state: string | null }> {
  const answer = await call(base, 'GET', `/cdc/subscriptions/${subscriptionId}`, { site: siteId, token });
  return answer.status === 200 ? { events: answer.body.data.lag.events, state: answer.body.data.state } : { events: null, state: null };
}
