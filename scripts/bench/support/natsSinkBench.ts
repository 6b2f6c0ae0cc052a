// The NATS JetStream sink's figures (docs/change-feed.md, "NATS JetStream sink"): how fast a nats
// subscription publishes a prefilled feed (a subscription from `start` is a replay of everything
// retained), and whether a kill -9 of the service in the middle of a replay loses or duplicates
// anything a JetStream consumer sees. The service runs as a child process (`svc start`) on a scratch
// database of DATABASE_URL's server, with NATS_URL (default nats://127.0.0.1:4222); the feed is
// prefilled through the event store (one stream of item events per 1,000 entries), projected by the
// service's daemon. Called by scripts/bench/integrations.ts.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { connect, type JsMsg, type NatsConnection } from 'nats';
import { DEFAULT_NATS_STREAM, DEFAULT_NATS_SUBJECT_ROOT } from '../../../domain/changeFeed/natsSubject.ts';
import { streamId } from '../../../domain/shared/events.ts';
import { appendToStream } from '../../../infra/eventstore/eventStore.ts';
import { createDatabase } from '../../../infra/postgres/database.ts';
import { migrate } from '../../../infra/postgres/migrate.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { prepareSite } from './benchSite.ts';
import { startBenchService, stopBenchService, waitForHealth } from './benchService.ts';
import { createScratchDatabase, scratchServerUrl } from './scratchDatabase.ts';

export interface NatsSinkFigures {
  /** Entries published and acknowledged per second while a subscription from `start` catches up. */
  entriesPerSecond: number;
  /** Entries of the replay the consumer never received after the kill -9 and restart. */
  killedLost: number;
  /** Entries of the replay the consumer received more than once. */
  killedDuplicated: number;
  /** Entries in the feed (each published once, then once more by the replay). */
  entries: number;
}

const ENTRIES_PER_STREAM = 1_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs / 1000} s`);
    await sleep(everyMs);
  }
}

/** Appends `entries` item events (creates, then updates) for the site, a thousand per stream and transaction. */
async function prefillFeed(databaseUrl: string, siteId: string, entries: number): Promise<void> {
  const database = createDatabase({ connectionString: databaseUrl, poolSize: 2, asApplicationRole: false });
  try {
    for (let first = 0; first < entries; first += ENTRIES_PER_STREAM) {
      const itemId = randomUUID();
      const count = Math.min(ENTRIES_PER_STREAM, entries - first);
      const at = new Date().toISOString();
      const events = Array.from({ length: count }, (_, index) => {
        const snapshot = {
          id: itemId, status: 'published', sort: null, title: `Article ${first + index}`, body: 'lorem ipsum dolor sit amet '.repeat(8),
          views: index, createdAt: at, updatedAt: at, userCreated: null, userUpdated: null, deletedAt: null,
        };
        return index === 0
          ? { type: 'item.created', data: { collection: 'articles', itemId, snapshot, delta: snapshot } }
          : { type: 'item.updated', data: { collection: 'articles', itemId, snapshot, delta: { views: index } } };
      });
      await database.withSite(siteId, (tx) =>
        appendToStream(tx, { siteId, streamId: streamId(siteId, 'item', 'articles', itemId), expectedVersion: 'any', events, metadata: { actor: { kind: 'user', id: null } } }),
      );
    }
    await until('the change-feed projection', async () => {
      const [row] = await database.withSite(siteId, (tx) => tx.query<{ last_seq: string }>(sql`SELECT last_seq FROM cdc_feed_sites WHERE site_id = ${siteId}`));
      return Number(row?.last_seq ?? 0) >= entries;
    }, 600_000, 250);
  } finally {
    await database.close();
  }
}

/** How many messages the stream holds under `filter`. */
async function storedCount(nats: NatsConnection, filter: string): Promise<number> {
  try {
    const info = await (await nats.jetstreamManager()).streams.info(DEFAULT_NATS_STREAM, { subjects_filter: filter });
    return Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0);
  } catch {
    return 0; // no stream yet
  }
}

/** The message ids (Nats-Msg-Id) the stream holds under `filter`, read by a consumer from the first. */
async function consumedIds(nats: NatsConnection, filter: string): Promise<string[]> {
  const total = await storedCount(nats, filter);
  const consumer = await nats.jetstream().consumers.get(DEFAULT_NATS_STREAM, { filterSubjects: filter });
  const ids: string[] = [];
  while (ids.length < total) {
    const batch = await consumer.fetch({ max_messages: Math.min(10_000, total - ids.length), expires: 5_000 });
    let received = 0;
    for await (const message of batch as AsyncIterable<JsMsg>) {
      ids.push(message.headers?.get('Nats-Msg-Id') ?? '');
      received += 1;
    }
    if (received === 0) break;
  }
  return ids;
}

export async function natsSinkBench(options: { entries?: number } = {}): Promise<NatsSinkFigures> {
  const entries = options.entries ?? 50_000;
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const scratch = await createScratchDatabase(scratchServerUrl(), `svc_bench_nats_${Date.now().toString(36)}`);
  const nats = await connect({ servers: natsUrl });
  const children: ChildProcess[] = [];
  const start = async () => {
    const port = 22_000 + Math.floor(Math.random() * 2_000);
    const child = startBenchService(scratch.url, port, { NATS_URL: natsUrl });
    children.push(child);
    const base = `http://127.0.0.1:${port}/api/v1`;
    await waitForHealth(base, child);
    return { child, base };
  };
  try {
    await migrate(scratch.url);
    let service = await start();
    const siteId = `nats-${randomUUID().slice(0, 8)}`;
    const { token } = await prepareSite(service.base, siteId, false);
    const api = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; data: T }> => {
      const response = await fetch(`${service.base}${path}`, {
        method,
        headers: { 'x-svc-site': siteId, authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return { status: response.status, data: (text ? (JSON.parse(text) as { data: T }).data : null) as T };
    };
    await prefillFeed(scratch.url, siteId, entries);
    const filter = `${DEFAULT_NATS_SUBJECT_ROOT}.${siteId}.>`;

    // 1. A subscription from the start of the feed publishes every entry: the throughput.
    const started = performance.now();
    const { data: subscription } = await api<{ id: string }>('POST', '/cdc/subscriptions', { name: 'bench', kind: 'nats', from: 'start' });
    await until('the first publication', async () => (await storedCount(nats, filter)) >= entries, 600_000, 20);
    const seconds = (performance.now() - started) / 1000;
    const entriesPerSecond = Math.round(entries / seconds);

    // 2. A replay of everything, and kill -9 in the middle of it; then a restart finishes it.
    await until('the checkpoint', async () => (await api<{ lag: { events: number } }>('GET', `/cdc/subscriptions/${subscription.id}`)).data.lag.events === 0, 60_000);
    await api('POST', `/cdc/subscriptions/${subscription.id}/replay`, { occurred_after: '2000-01-01T00:00:00Z' });
    await until('the replay to be under way', async () => (await storedCount(nats, filter)) >= entries + entries / 3, 600_000, 5);
    const exited = new Promise((resolve) => service.child.once('exit', resolve));
    service.child.kill('SIGKILL');
    await exited;
    service = await start();
    await until('the replay to finish', async () => (await api<{ lag: { events: number } }>('GET', `/cdc/subscriptions/${subscription.id}`)).data.lag.events === 0, 600_000, 100);

    // What a consumer of the site's subjects receives of the replay (generation 1).
    const replayed = (await consumedIds(nats, filter)).filter((id) => id.startsWith(`${subscription.id}:1:`));
    const distinct = new Set(replayed).size;
    return { entriesPerSecond, killedLost: entries - distinct, killedDuplicated: replayed.length - distinct, entries };
  } finally {
    for (const child of children) await stopBenchService(child);
    await nats.close();
    await scratch.drop();
  }
}
