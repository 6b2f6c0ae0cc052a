// Subscriptions of kind nats against a real NATS JetStream server (NATS_URL, 127.0.0.1:4222 by
// default) and real PostgreSQL, on a database of its own (the sink workers of other test files'
// services, which have no NATS_URL, must not pick these jobs up). Each test makes its own site, and
// every subject of a site is under svc.feed.<site>.>, so test files running side by side, sharing
// the stream, never read each other's messages.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type JsMsg, type NatsConnection } from 'nats';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_NATS_STREAM } from '../../../domain/changeFeed/natsSubject.ts';
import { streamId } from '../../../domain/shared/events.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { freePort } from '../../support/freePort.ts';
import { createTestSite, startTestService, startTestServiceForFile, type TestService, type TestSite } from '../../support/testService.ts';
import { appendEvents, appendItemEvent, feedCaughtUp, until } from './support.ts';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url, NATS_URL, SVC_WEBHOOK_SWEEP_MS: '500' });
const nats: NatsConnection = await connect({ servers: NATS_URL });
afterAll(() => nats.close());

interface Published {
  subject: string;
  id: string;
  streamSeq: number;
  headers: Record<string, string>;
  body: { cursor: string; type: string; collection: string | null; itemId: string; site: string; sequence: number };
}

/** Every message the stream holds under `filter`, in stream order (an ephemeral consumer each time). */
async function stored(filter: string): Promise<Published[]> {
  const manager = await nats.jetstreamManager();
  let total = 0;
  try {
    const info = await manager.streams.info(DEFAULT_NATS_STREAM, { subjects_filter: filter });
    total = Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0);
  } catch {
    return []; // no stream yet
  }
  if (total === 0) return [];
  const consumer = await nats.jetstream().consumers.get(DEFAULT_NATS_STREAM, { filterSubjects: filter });
  const messages: Published[] = [];
  const batch = await consumer.fetch({ max_messages: total, expires: 2_000 });
  for await (const message of batch as AsyncIterable<JsMsg>) {
    const headers: Record<string, string> = {};
    for (const [key, values] of message.headers ?? []) headers[key] = values[0]!;
    messages.push({ subject: message.subject, id: headers['Nats-Msg-Id']!, streamSeq: message.seq, headers, body: message.json() });
    if (messages.length === total) break;
  }
  return messages;
}

const siteMessages = (site: TestSite) => stored(`svc.feed.${site.siteId}.>`);

async function publishedCount(site: TestSite, count: number, timeoutMs = 15_000): Promise<Published[]> {
  const messages = await until(() => siteMessages(site), (found) => found.length >= count, timeoutMs);
  expect(messages.length).toBe(count);
  return messages;
}

function call(site: TestSite, method: string, path: string, body?: unknown, on: TestService = service) {
  return on.request(method, path, { site: site.siteId, token: site.adminToken, body });
}

async function createNats(site: TestSite, extra: Record<string, unknown> = {}) {
  const response = await call(site, 'POST', '/cdc/subscriptions', { name: `nats-${Math.random().toString(36).slice(2)}`, kind: 'nats', ...extra });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data as { id: string; cursor: string; nats: { channel: string | null; stream: string; subjects: string } };
}

async function feedEntries(site: TestSite): Promise<{ cursor: string; type: string; collection: string }[]> {
  return (await call(site, 'GET', '/cdc/events?limit=500')).body.data;
}

async function sinkState(site: TestSite, subscriptionId: string) {
  const [row] = await service.context.database.withSite(site.siteId, (tx) =>
    tx.query<{ delivered_seq: string; generation: number }>(sql`SELECT * FROM cdc_sink_state WHERE site_id = ${site.siteId} AND subscription_id = ${subscriptionId}::uuid`),
  );
  return row ? { deliveredSeq: Number(row.delivered_seq), generation: row.generation } : null;
}

/** Appends `count` entries of one item of `collection` in one transaction: its create, then updates. */
async function appendBacklog(site: TestSite, collection: string, count: number): Promise<void> {
  const itemId = randomUUID();
  const at = new Date().toISOString();
  const events = Array.from({ length: count }, (_, index) => {
    const snapshot = { id: itemId, status: 'draft', sort: null, title: `Entry ${index}`, createdAt: at, updatedAt: at, userCreated: null, userUpdated: null, deletedAt: null };
    return index === 0
      ? { type: 'item.created', data: { collection, itemId, snapshot, delta: snapshot } }
      : { type: 'item.updated', data: { collection, itemId, snapshot, delta: { title: `Entry ${index}` } } };
  });
  await appendEvents(service, site.siteId, streamId(site.siteId, 'item', collection, itemId), events);
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

describe('nats subscriptions', () => {
  it('refuses bad bodies with a precise path, and a second subscription on the same subjects', async () => {
    const site = await createTestSite(service);
    const cases: [unknown, (string | number)[]][] = [
      [{ name: 'x', kind: 'nats', nats: { channel: 'a.b' } }, ['body', 'nats', 'channel']],
      [{ name: 'x', kind: 'nats', nats: { channel: '*' } }, ['body', 'nats', 'channel']],
      [{ name: 'x', kind: 'nats', nats: { channel: 'search>' } }, ['body', 'nats', 'channel']],
      [{ name: 'x', kind: 'nats', nats: { channel: 'a b' } }, ['body', 'nats', 'channel']],
      [{ name: 'x', kind: 'nats', nats: { channel: '' } }, ['body', 'nats', 'channel']],
      [{ name: 'x', kind: 'nats', nats: { channel: 7 } }, ['body', 'nats', 'channel']],
      [{ name: 'x', kind: 'nats', nats: { subject: 'x' } }, ['body', 'nats']],
      [{ name: 'x', kind: 'nats', webhook: { url: 'https://example.com/x', secret: 'a-long-enough-secret' } }, ['body', 'webhook']],
      [{ name: 'x', kind: 'pull', nats: { channel: 'search' } }, ['body', 'nats']],
    ];
    for (const [body, path] of cases) {
      const response = await call(site, 'POST', '/cdc/subscriptions', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors[0].code, JSON.stringify(body)).toBe('VALIDATION_FAILED');
      expect(response.body.errors[0].path, JSON.stringify(body)).toEqual(path);
    }
    expect((await call(site, 'GET', '/cdc/subscriptions')).body.data).toEqual([]);

    const first = await createNats(site);
    expect(first.nats).toEqual({ channel: null, stream: 'SVC_FEED', subjects: `svc.feed.${site.siteId}.*` });
    const again = await call(site, 'POST', '/cdc/subscriptions', { name: 'second', kind: 'nats' });
    expect(again.status).toBe(409);
    expect(again.body.errors[0]).toMatchObject({ code: 'CONFLICT', path: ['body', 'nats', 'channel'] });
    const search = await createNats(site, { nats: { channel: 'search' } });
    expect(search.nats.subjects).toBe(`svc.feed.${site.siteId}.search.*`);
    const moved = await call(site, 'PATCH', `/cdc/subscriptions/${search.id}`, { nats: { channel: null } });
    expect(moved.status).toBe(409);
    expect(moved.body.errors[0].path).toEqual(['body', 'nats', 'channel']);
    const pull = await call(site, 'POST', '/cdc/subscriptions', { name: 'reader', kind: 'pull' });
    const onPull = await call(site, 'PATCH', `/cdc/subscriptions/${pull.body.data.id}`, { nats: { channel: 'x' } });
    expect(onPull.status).toBe(400);
    expect(onPull.body.errors[0].path).toEqual(['body', 'nats']);
    // A sink advances by publishing, not by ack.
    const ack = await call(site, 'POST', `/cdc/subscriptions/${first.id}/ack`, { cursor: first.cursor });
    expect(ack.status).toBe(409);
  });

  it('is refused with 400 on a deployment without NATS_URL', async () => {
    // A database of its own: its sink workers (no NATS) must not take the other services' jobs.
    const bare = await startTestService({ DATABASE_URL: (await createFreshDatabaseForFile()).url });
    try {
      const site = await createTestSite(bare);
      const response = await call(site, 'POST', '/cdc/subscriptions', { name: 'x', kind: 'nats' }, bare);
      expect(response.status).toBe(400);
      expect(response.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'kind'], extensions: { dependency: 'nats' } });
      expect(response.body.errors[0].message).toContain('NATS_URL');
    } finally {
      await bare.close();
    }
  });

  it('publishes each entry to its site and collection subject, with the cursor in the message id, and reports no lag', async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    const subscription = await createNats(site);
    await createNats(other);
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles', fields: { title: 'One' } });
    const page = await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'pages' });
    await appendItemEvent(service, site.siteId, { type: 'item.updated', collection: 'pages', itemId: page, fields: { title: 'Two' } });
    await appendItemEvent(service, other.siteId, { type: 'item.created', collection: 'articles' });
    await feedCaughtUp(service);

    const messages = await publishedCount(site, 3);
    const entries = await feedEntries(site);
    expect(messages.map((message) => message.subject)).toEqual([`svc.feed.${site.siteId}.articles`, `svc.feed.${site.siteId}.pages`, `svc.feed.${site.siteId}.pages`]);
    expect(messages.map((message) => message.body.cursor)).toEqual(entries.map((entry) => entry.cursor));
    expect(messages.map((message) => message.id)).toEqual(entries.map((entry) => `${subscription.id}:0:${entry.cursor}`));
    expect(messages[2]!.body).toMatchObject({ type: 'items.update', collection: 'pages', itemId: page, site: site.siteId });
    expect(messages[2]!.headers).toMatchObject({ 'Svc-Event': 'items.update', 'Svc-Subscription': subscription.id, 'Svc-Cursor': entries[2]!.cursor, 'Svc-Site': site.siteId });
    // The other site's entry went to its own subjects only.
    const others = await publishedCount(other, 1);
    expect(others[0]!.subject).toBe(`svc.feed.${other.siteId}.articles`);
    expect(messages.some((message) => message.body.site !== site.siteId)).toBe(false);

    const view = await until(
      async () => (await call(site, 'GET', `/cdc/subscriptions/${subscription.id}`)).body.data,
      (data) => data.lag.events === 0,
    );
    expect(view).toMatchObject({ kind: 'nats', cursor: entries[2]!.cursor, lag: { events: 0 }, delivery: { consecutiveFailures: 0, lastError: null } });
  });

  it('publishes only what its filters want, under its channel', async () => {
    const site = await createTestSite(service);
    await createNats(site, { nats: { channel: 'search' }, filters: { collections: ['articles'], operations: ['create'] } });
    const article = await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    await appendItemEvent(service, site.siteId, { type: 'item.updated', collection: 'articles', itemId: article, fields: { title: 'x' } });
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'pages' });
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    await feedCaughtUp(service);
    const messages = await publishedCount(site, 2);
    expect(messages.map((message) => [message.subject, message.body.type])).toEqual([
      [`svc.feed.${site.siteId}.search.articles`, 'items.create'],
      [`svc.feed.${site.siteId}.search.articles`, 'items.create'],
    ]);
  });

  it('stops publishing while paused, catches up on resume, and publishes again after a replay', async () => {
    const site = await createTestSite(service);
    const subscription = await createNats(site);
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    await feedCaughtUp(service);
    await publishedCount(site, 1);

    expect((await call(site, 'PATCH', `/cdc/subscriptions/${subscription.id}`, { action: 'pause' })).status).toBe(200);
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    await feedCaughtUp(service);
    await new Promise((resolve) => setTimeout(resolve, 700)); // past a sweep
    expect(await siteMessages(site)).toHaveLength(1);
    const paused = (await call(site, 'GET', `/cdc/subscriptions/${subscription.id}`)).body.data;
    expect(paused).toMatchObject({ state: 'paused', lag: { events: 2 } });

    expect((await call(site, 'PATCH', `/cdc/subscriptions/${subscription.id}`, { action: 'resume' })).status).toBe(200);
    const caughtUp = await publishedCount(site, 3);
    const entries = await feedEntries(site);
    expect(caughtUp.map((message) => message.body.cursor)).toEqual(entries.map((entry) => entry.cursor));

    // Replay from the first entry: the two after it are published again, with ids of the new generation.
    const replayed = await call(site, 'POST', `/cdc/subscriptions/${subscription.id}/replay`, { cursor: entries[0]!.cursor });
    expect(replayed.status).toBe(200);
    const after = await publishedCount(site, 5);
    expect(after.slice(3).map((message) => message.id)).toEqual(entries.slice(1).map((entry) => `${subscription.id}:1:${entry.cursor}`));
  });

  it('publishes a backlog of several batches in feed order, each entry once, with its filters, and again after a replay', async () => {
    const site = await createTestSite(service);
    await appendBacklog(site, 'articles', 1_300);
    await appendBacklog(site, 'pages', 400);
    await appendBacklog(site, 'articles', 1_300);
    await feedCaughtUp(service);
    // Batches of 1,000 read ahead while the one before is acknowledged; the second spans the pages left out.
    const subscription = await createNats(site, { from: 'start', filters: { collections: ['articles'] } });
    const wanted = [...range(1, 1_300), ...range(1_701, 3_000)];
    const messages = await publishedCount(site, wanted.length, 60_000);
    expect(messages.map((message) => message.body.sequence)).toEqual(wanted);
    expect(messages.every((message) => message.id === `${subscription.id}:0:${message.body.cursor}` && message.body.collection === 'articles')).toBe(true);
    expect(new Set(messages.map((message) => message.id)).size).toBe(wanted.length);
    expect(await until(() => sinkState(site, subscription.id), (state) => state?.deliveredSeq === 3_000)).toEqual({ deliveredSeq: 3_000, generation: 0 });

    const replayed = await call(site, 'POST', `/cdc/subscriptions/${subscription.id}/replay`, { occurred_after: '2000-01-01T00:00:00Z' });
    expect(replayed.status).toBe(200);
    const again = (await publishedCount(site, 2 * wanted.length, 60_000)).slice(wanted.length);
    expect(again.map((message) => message.body.sequence)).toEqual(wanted);
    expect(again.every((message) => message.id === `${subscription.id}:1:${message.body.cursor}`)).toBe(true);
  });

  it('stops after the round in flight when paused in the middle of a backlog, and resumes from its checkpoint', async () => {
    const site = await createTestSite(service);
    for (let stream = 0; stream < 6; stream += 1) await appendBacklog(site, 'articles', 1_000);
    await feedCaughtUp(service);
    const subscription = await createNats(site, { from: 'start' });
    await until(() => siteMessages(site), (found) => found.length > 0, 20_000);
    expect((await call(site, 'PATCH', `/cdc/subscriptions/${subscription.id}`, { action: 'pause' })).status).toBe(200);
    // The round in flight (up to 1,000 entries) finishes and is checkpointed; the batch read ahead of it is not published.
    const atPause = (await siteMessages(site)).length;
    let settled = atPause;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 700));
      const now = (await siteMessages(site)).length;
      if (now === settled) break;
      settled = now;
    }
    const paused = await siteMessages(site);
    expect(paused.length).toBeLessThanOrEqual(Math.floor(atPause / 1_000) * 1_000 + 1_000);
    expect(paused.map((message) => message.body.sequence)).toEqual(range(1, paused.length));
    expect(await sinkState(site, subscription.id)).toEqual({ deliveredSeq: paused.length, generation: 0 });
    expect((await call(site, 'GET', `/cdc/subscriptions/${subscription.id}`)).body.data).toMatchObject({ state: 'paused', lag: { events: 6_000 - paused.length } });

    expect((await call(site, 'PATCH', `/cdc/subscriptions/${subscription.id}`, { action: 'resume' })).status).toBe(200);
    const all = await publishedCount(site, 6_000, 60_000);
    expect(all.map((message) => message.body.sequence)).toEqual(range(1, 6_000));
    expect(new Set(all.map((message) => message.id)).size).toBe(6_000);
  });

  it('publishes a batch again after a crash before its checkpoint, and the consumer gets each entry once', async () => {
    const site = await createTestSite(service);
    const subscription = await createNats(site);
    for (let index = 0; index < 20; index += 1) await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    await feedCaughtUp(service);
    await publishedCount(site, 20);
    const before = await until(() => sinkState(site, subscription.id), (state) => state?.deliveredSeq === 20);
    // As if the process died after the broker acknowledged the batch and before the cursor moved.
    await service.context.database.withSite(site.siteId, (tx) =>
      tx.query(sql`UPDATE cdc_sink_state SET delivered_seq = 5 WHERE site_id = ${site.siteId} AND subscription_id = ${subscription.id}::uuid`),
    );
    expect((await call(site, 'POST', `/cdc/subscriptions/${subscription.id}/dispatch`)).status).toBe(202);
    await until(() => sinkState(site, subscription.id), (state) => state?.deliveredSeq === 20);
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    await feedCaughtUp(service);
    const messages = await publishedCount(site, 21);
    expect(new Set(messages.map((message) => message.id)).size).toBe(21);
    expect(before?.generation).toBe(0);
  });
});

const NATS_SERVER = '/usr/sbin/nats-server';

describe.skipIf(!existsSync(NATS_SERVER))('a nats subscription while its server is down', () => {
  it('lags and says why while the service answers, and publishes once the server is up', async () => {
    const port = await freePort();
    const url = `nats://127.0.0.1:${port}`;
    const down = await startTestService({ DATABASE_URL: (await createFreshDatabaseForFile()).url, NATS_URL: url, SVC_WEBHOOK_SWEEP_MS: '500' });
    let server: ChildProcess | null = null;
    try {
      const site = await createTestSite(down);
      const created = await call(site, 'POST', '/cdc/subscriptions', { name: 'outage', kind: 'nats' }, down);
      expect(created.status).toBe(201);
      await appendItemEvent(down, site.siteId, { type: 'item.created', collection: 'articles' });
      await feedCaughtUp(down);
      const lagging = await until(
        async () => (await call(site, 'GET', `/cdc/subscriptions/${created.body.data.id}`, undefined, down)).body.data,
        (data) => data.delivery.lastError !== null,
      );
      expect(lagging).toMatchObject({ state: 'active', lag: { events: 1 } });
      expect(lagging.delivery.lastError).toContain('NATS unreachable');
      expect(lagging.delivery.consecutiveFailures).toBeGreaterThan(0);

      server = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', mkdtempSync(join(tmpdir(), 'svc-nats-'))], { stdio: 'ignore' });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await call(site, 'POST', `/cdc/subscriptions/${created.body.data.id}/dispatch`, undefined, down)).status).toBe(202);
      const recovered = await until(
        async () => (await call(site, 'GET', `/cdc/subscriptions/${created.body.data.id}`, undefined, down)).body.data,
        (data) => data.lag.events === 0,
        20_000,
      );
      expect(recovered.delivery).toMatchObject({ consecutiveFailures: 0, lastError: null });
      const own = await connect({ servers: url });
      try {
        const info = await (await own.jetstreamManager()).streams.info(DEFAULT_NATS_STREAM);
        expect(info.state.messages).toBe(1);
      } finally {
        await own.close();
      }
    } finally {
      await down.close();
      server?.kill('SIGTERM');
    }
  });
});
