import { describe, expect, it } from 'vitest';
import { pruneSiteChangeFeed } from '../../../src/modules/cdc/retention.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { appendItemEvent, frontendToken, feedCaughtUp } from './support.ts';

const service = await startTestServiceForFile();

function call(site: TestSite, method: string, path: string, body?: unknown) {
  return service.request(method, path, { site: site.siteId, token: site.adminToken, body });
}

async function createPull(site: TestSite, name = 'pull-consumer', filters?: unknown) {
  const response = await call(site, 'POST', '/cdc/subscriptions', { name, kind: 'pull', ...(filters ? { filters } : {}) });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data as { id: string; cursor: string; lag: { events: number; seconds: number }; state: string };
}

async function feedCursors(site: TestSite): Promise<string[]> {
  const response = await call(site, 'GET', '/cdc/events?limit=500');
  return response.body.data.map((entry: { cursor: string }) => entry.cursor);
}

describe('/cdc/subscriptions', () => {
  it('creates, lists, reads and deletes a pull subscription, starting at the end of the feed', async () => {
    const site = await createTestSite(service);
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    await feedCaughtUp(service);
    const created = await createPull(site, 'analytics', { collections: ['articles'], operations: ['create', 'items.update'] });
    expect(created).toMatchObject({
      name: 'analytics',
      kind: 'pull',
      state: 'active',
      webhook: null,
      filters: { collections: ['articles'], operations: ['create', 'items.update'] },
      lag: { events: 0, seconds: 0 },
      delivery: null,
    });
    const [onlyCursor] = await feedCursors(site);
    expect(created.cursor).toBe(onlyCursor);

    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    await feedCaughtUp(service);
    const list = await call(site, 'GET', '/cdc/subscriptions');
    expect(list.status).toBe(200);
    expect(list.body.meta.total).toBe(1);
    expect(list.body.data[0]).toMatchObject({ id: created.id, lag: { events: 1 } });

    const detail = await call(site, 'GET', `/cdc/subscriptions/${created.id}`);
    expect(detail.body.data.id).toBe(created.id);

    const removed = await call(site, 'DELETE', `/cdc/subscriptions/${created.id}`);
    expect(removed.status).toBe(204);
    expect((await call(site, 'GET', `/cdc/subscriptions/${created.id}`)).status).toBe(404);
    // The name is free again, and the delete is in the audit log.
    await createPull(site, 'analytics');
    await service.context.daemon.drain();
    const audit = await call(site, 'GET', '/audit?filter[action][_eq]=cdc_subscription.deleted');
    expect(audit.body.data).toHaveLength(1);
  });

  it('refuses bad bodies with a precise path, and writes nothing', async () => {
    const site = await createTestSite(service);
    const cases: [unknown, (string | number)[]][] = [
      [{ name: 'x', kind: 'webhook', webhook: { url: 'https://hooks.example.com/x' } }, ['body', 'webhook', 'secret']],
      [{ name: 'x', kind: 'webhook' }, ['body', 'webhook', 'url']],
      [{ name: 'x', kind: 'webhook', webhook: { url: 'ftp://example.com/x', secret: 'a-long-enough-secret' } }, ['body', 'webhook', 'url']],
      [{ name: 'x', kind: 'webhook', webhook: { url: 'https://example.com/x', secret: 'short' } }, ['body', 'webhook', 'secret']],
      [{ name: 'x', kind: 'carrier-pigeon' }, ['body', 'kind']],
      [{ name: '', kind: 'pull' }, ['body', 'name']],
      [{ name: 'x', kind: 'pull', filters: { operations: ['upsert'] } }, ['body', 'filters', 'operations']],
      [{ name: 'x', kind: 'pull', filters: { collections: ['bad name'] } }, ['body', 'filters', 'collections']],
      [{ name: 'x', kind: 'pull', webhook: { url: 'https://example.com/x', secret: 'a-long-enough-secret' } }, ['body', 'webhook']],
      [{ name: 'x', kind: 'pull', surprise: true }, ['body']],
    ];
    for (const [body, path] of cases) {
      const response = await call(site, 'POST', '/cdc/subscriptions', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors[0].code, JSON.stringify(body)).toBe('VALIDATION_FAILED');
      expect(response.body.errors[0].path, JSON.stringify(body)).toEqual(path);
    }
    expect((await call(site, 'GET', '/cdc/subscriptions')).body.data).toEqual([]);
  });

  it('starts where `from` says: the end by default, the start of retention, or after a cursor', async () => {
    const site = await createTestSite(service);
    for (let index = 0; index < 4; index += 1) await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles', fields: { index } });
    await feedCaughtUp(service);
    const cursors = await feedCursors(site);
    const create = async (name: string, from?: string) => {
      const response = await call(site, 'POST', '/cdc/subscriptions', { name, kind: 'pull', ...(from === undefined ? {} : { from }) });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      return response.body.data as { id: string; cursor: string; lag: { events: number } };
    };

    const byDefault = await create('default');
    const atEnd = await create('end', 'end');
    expect(byDefault).toMatchObject({ cursor: cursors[3], lag: { events: 0 } });
    expect(atEnd).toMatchObject({ cursor: cursors[3], lag: { events: 0 } });

    // From the start: a new consumer replays every retained entry, reading on from its cursor.
    const fromStart = await create('replayer', 'start');
    expect(fromStart.lag.events).toBe(4);
    const replayed = await call(site, 'GET', `/cdc/events?cursor=${fromStart.cursor}`);
    expect(replayed.body.data.map((entry: { cursor: string }) => entry.cursor)).toEqual(cursors);
    expect((await call(site, 'POST', `/cdc/subscriptions/${fromStart.id}/ack`, { cursor: cursors[3] })).body.data.lag.events).toBe(0);

    const fromCursor = await create('midway', cursors[1]);
    expect(fromCursor).toMatchObject({ cursor: cursors[1], lag: { events: 2 } });
    const rest = await call(site, 'GET', `/cdc/events?cursor=${fromCursor.cursor}`);
    expect(rest.body.data.map((entry: { cursor: string }) => entry.cursor)).toEqual(cursors.slice(2));
  });

  it('refuses a start point that is malformed or past the end with 400 at body.from, and one past retention with 410', async () => {
    const site = await createTestSite(service);
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    await feedCaughtUp(service);
    const [first] = await feedCursors(site);
    const ahead = Buffer.from('f1:99').toString('base64url');
    for (const from of ['beginning', 'not a cursor', Buffer.from('f1:-1').toString('base64url'), Buffer.from('x9:1').toString('base64url'), ahead, '', 7, null]) {
      const response = await call(site, 'POST', '/cdc/subscriptions', { name: 'x', kind: 'pull', from });
      expect(response.status, JSON.stringify(from)).toBe(400);
      expect(response.body.errors[0], JSON.stringify(from)).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'from'] });
    }

    const pruned = await pruneSiteChangeFeed(service.context, site.siteId, new Date(Date.now() + 8 * 86_400_000));
    expect(pruned.pruned).toBe(1);
    const expired = await call(site, 'POST', '/cdc/subscriptions', { name: 'x', kind: 'webhook', webhook: { url: 'https://hooks.example.com/x', secret: 'a-long-enough-secret' }, from: Buffer.from('f1:0').toString('base64url') });
    expect(expired.status).toBe(410);
    expect(expired.body.errors[0]).toMatchObject({ code: 'CURSOR_EXPIRED', extensions: { earliestCursor: first } });
    expect((await call(site, 'GET', '/cdc/subscriptions')).body.data).toEqual([]);
    // The earliest cursor, and `start`, are within retention.
    const earliest = await call(site, 'POST', '/cdc/subscriptions', { name: 'from-earliest', kind: 'pull', from: first });
    expect(earliest.status).toBe(201);
    const start = await call(site, 'POST', '/cdc/subscriptions', { name: 'from-start', kind: 'pull', from: 'start' });
    expect(start.body.data).toMatchObject({ cursor: first, lag: { events: 0 } });
  });

  it('refuses a duplicate name with 409 and more than 50 subscriptions with 403', async () => {
    const site = await createTestSite(service);
    await createPull(site, 'sub-0');
    const duplicate = await call(site, 'POST', '/cdc/subscriptions', { name: 'sub-0', kind: 'pull' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors[0]).toMatchObject({ code: 'CONFLICT', path: ['body', 'name'] });
    for (let index = 1; index < 50; index += 1) await createPull(site, `sub-${index}`);
    const over = await call(site, 'POST', '/cdc/subscriptions', { name: 'sub-50', kind: 'pull' });
    expect(over.status).toBe(403);
    expect(over.body.errors[0].code).toBe('PERMISSION_DENIED');
    expect((await call(site, 'GET', '/cdc/subscriptions')).body.meta.total).toBe(50);
    // Another site has its own allowance.
    const other = await createTestSite(service);
    await createPull(other, 'sub-0');
  }, 60_000);

  it('moves active ↔ paused and refuses invalid moves with 409', async () => {
    const site = await createTestSite(service);
    const { id } = await createPull(site);
    const paused = await call(site, 'PATCH', `/cdc/subscriptions/${id}`, { action: 'pause' });
    expect(paused.body.data.state).toBe('paused');
    const again = await call(site, 'PATCH', `/cdc/subscriptions/${id}`, { action: 'pause' });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].code).toBe('CONFLICT');
    const resumed = await call(site, 'PATCH', `/cdc/subscriptions/${id}`, { state: 'active' });
    expect(resumed.body.data.state).toBe('active');
    expect((await call(site, 'PATCH', `/cdc/subscriptions/${id}`, { action: 'resume' })).status).toBe(409);
    const viaState = await call(site, 'PATCH', `/cdc/subscriptions/${id}`, { state: 'paused', name: 'renamed', filters: { collections: ['news'] } });
    expect(viaState.body.data).toMatchObject({ state: 'paused', name: 'renamed', filters: { collections: ['news'], operations: null } });
    const conflicting = await call(site, 'PATCH', `/cdc/subscriptions/${id}`, { action: 'pause', state: 'active' });
    expect(conflicting.status).toBe(400);
    const deadState = await call(site, 'PATCH', `/cdc/subscriptions/${id}`, { state: 'dead' });
    expect(deadState.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'state'] });
    expect((await call(site, 'PATCH', '/cdc/subscriptions/00000000-0000-4000-8000-000000000000', { action: 'pause' })).status).toBe(404);
    expect((await call(site, 'PATCH', '/cdc/subscriptions/not-a-uuid', {})).status).toBe(404);
  });

  it('acks forward only: 409 ACK_REGRESSION on a rewind, and lag follows the ack', async () => {
    const site = await createTestSite(service);
    const { id } = await createPull(site);
    for (let index = 0; index < 3; index += 1) await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    await feedCaughtUp(service);
    const cursors = await feedCursors(site);
    expect((await call(site, 'GET', `/cdc/subscriptions/${id}`)).body.data.lag.events).toBe(3);

    const acked = await call(site, 'POST', `/cdc/subscriptions/${id}/ack`, { cursor: cursors[1] });
    expect(acked.status).toBe(200);
    expect(acked.body.data).toMatchObject({ cursor: cursors[1], lag: { events: 1 } });
    const same = await call(site, 'POST', `/cdc/subscriptions/${id}/ack`, { cursor: cursors[1] });
    expect(same.status).toBe(200);
    const rewind = await call(site, 'POST', `/cdc/subscriptions/${id}/ack`, { cursor: cursors[0] });
    expect(rewind.status).toBe(409);
    expect(rewind.body.errors[0].code).toBe('ACK_REGRESSION');
    const ahead = await call(site, 'POST', `/cdc/subscriptions/${id}/ack`, { cursor: Buffer.from('f1:999999').toString('base64url') });
    expect(ahead.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'cursor'] });
    const malformed = await call(site, 'POST', `/cdc/subscriptions/${id}/ack`, { cursor: 'nope' });
    expect(malformed.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'cursor'] });
    expect((await call(site, 'GET', `/cdc/subscriptions/${id}`)).body.data.cursor).toBe(cursors[1]);
  });

  it('replays to a cursor or a time, xor; stale becomes active; 410 before retention', async () => {
    const site = await createTestSite(service);
    const { id } = await createPull(site);
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    await feedCaughtUp(service);
    const afterFirst = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
    await feedCaughtUp(service);
    const cursors = await feedCursors(site);
    await call(site, 'POST', `/cdc/subscriptions/${id}/ack`, { cursor: cursors[1] });

    const both = await call(site, 'POST', `/cdc/subscriptions/${id}/replay`, { cursor: cursors[0], occurred_after: afterFirst });
    expect(both.status).toBe(400);
    expect(both.body.errors[0].path).toEqual(['body']);
    expect((await call(site, 'POST', `/cdc/subscriptions/${id}/replay`, {})).status).toBe(400);
    expect((await call(site, 'POST', `/cdc/subscriptions/${id}/replay`, { occurred_after: 'yesterday' })).body.errors[0].path).toEqual(['body', 'occurred_after']);

    const byTime = await call(site, 'POST', `/cdc/subscriptions/${id}/replay`, { occurred_after: afterFirst });
    expect(byTime.status).toBe(200);
    expect(byTime.body.data).toMatchObject({ cursor: cursors[0], lag: { events: 1 } });
    const byCursor = await call(site, 'POST', `/cdc/subscriptions/${id}/replay`, { cursor: Buffer.from('f1:0').toString('base64url') });
    expect(byCursor.body.data.lag.events).toBe(2);

    // Retention removes both entries: the subscription is behind it and goes stale.
    const pruned = await pruneSiteChangeFeed(service.context, site.siteId, new Date(Date.now() + 8 * 86_400_000));
    expect(pruned.staleSubscriptions).toEqual([id]);
    expect((await call(site, 'GET', `/cdc/subscriptions/${id}`)).body.data).toMatchObject({ state: 'stale', stateReason: expect.any(String) });
    expect((await call(site, 'POST', `/cdc/subscriptions/${id}/ack`, { cursor: cursors[1] })).status).toBe(409);
    const expired = await call(site, 'POST', `/cdc/subscriptions/${id}/replay`, { cursor: cursors[0] });
    expect(expired.status).toBe(410);
    expect(expired.body.errors[0]).toMatchObject({ code: 'CURSOR_EXPIRED', extensions: { earliestCursor: cursors[1] } });
    const revived = await call(site, 'POST', `/cdc/subscriptions/${id}/replay`, { cursor: cursors[1] });
    expect(revived.body.data).toMatchObject({ state: 'active', lag: { events: 0 } });
    await service.context.daemon.drain();
    const audit = await call(site, 'GET', '/audit?filter[action][_eq]=cdc_subscription.replayed');
    expect(audit.body.meta.total).toBe(3);
  });

  it('refuses dispatch of a pull subscription, and hides other sites and frontend tokens', async () => {
    const site = await createTestSite(service);
    const other = await createTestSite(service);
    const { id } = await createPull(site);
    expect((await call(site, 'POST', `/cdc/subscriptions/${id}/dispatch`)).status).toBe(409);
    expect((await call(other, 'GET', `/cdc/subscriptions/${id}`)).status).toBe(404);
    expect((await call(other, 'DELETE', `/cdc/subscriptions/${id}`)).status).toBe(404);
    expect((await call(other, 'GET', '/cdc/subscriptions')).body.data).toEqual([]);
    expect((await call(other, 'GET', `/cdc/subscriptions/${id}/deliveries`)).status).toBe(404);
    const frontend = await frontendToken(service, site);
    for (const [method, path] of [
      ['GET', '/cdc/subscriptions'],
      ['GET', `/cdc/subscriptions/${id}`],
      ['POST', `/cdc/subscriptions/${id}/ack`],
    ] as const) {
      const response = await service.request(method, path, { site: site.siteId, token: frontend, body: method === 'POST' ? { cursor: 'x' } : undefined });
      expect(response.status, path).toBe(403);
    }
  });
});
