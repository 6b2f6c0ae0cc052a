// Change-feed cursors are opaque per site (issue 27, finding 11): they carry no global log position
// nor a readable sequence, another site's cursor or a tampered one is refused with 400, a cursor
// stays the same for the same place (so a consumer resumes from a stored one after a restart), and
// the envelope does not carry the global log position.
import { describe, expect, it } from 'vitest';
import { pruneSiteChangeFeed } from '../../../src/modules/cdc/retention.ts';
import { startTestService, createTestSite, startTestServiceForFile, type TestService, type TestSite } from '../../support/testService.ts';
import { appendItemEvent, feedCaughtUp } from './support.ts';

const service = await startTestServiceForFile();

function events(site: TestSite, query = '', on: TestService = service) {
  return on.request('GET', `/cdc/events${query}`, { site: site.siteId, token: site.adminToken });
}

async function writeItems(site: TestSite, count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles' });
}

function expectRefused(response: { status: number; body: any }, path: (string | number)[]): void {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path });
}

describe('change-feed cursors', () => {
  it('tell nothing of other sites\' writes: no global position, no readable sequence', async () => {
    const [a, b] = [await createTestSite(service), await createTestSite(service)];
    await writeItems(a, 1);
    await feedCaughtUp(service);
    const first = (await events(a)).body;
    // Another site writes 50 times between two reads of site A.
    await writeItems(b, 50);
    await writeItems(a, 1);
    await feedCaughtUp(service);
    const second = (await events(a, `?cursor=${first.meta.nextCursor}`)).body;
    expect(second.data).toHaveLength(1);

    const [entry] = second.data;
    expect(entry).not.toHaveProperty('position');
    expect(JSON.stringify(second)).not.toContain('"position"');
    for (const cursor of [first.meta.nextCursor, first.data[0].cursor, entry.cursor, second.meta.nextCursor]) {
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      // Not the readable "f1:<sequence>" of before.
      const bytes = Buffer.from(cursor, 'base64url').toString('latin1');
      expect(bytes).not.toContain('f1:');
      expect(bytes).not.toContain(`:${entry.sequence}`);
    }
    // The same place always gives the same cursor.
    expect(entry.cursor).toBe(second.meta.nextCursor);
    expect((await events(a)).body.data[1].cursor).toBe(entry.cursor);
  });

  it('are not a counter: the cursors of consecutive entries are in no order', async () => {
    const site = await createTestSite(service);
    await writeItems(site, 12);
    await feedCaughtUp(service);
    const cursors = (await events(site)).body.data.map((entry: { cursor: string }) => entry.cursor) as string[];
    expect(new Set(cursors).size).toBe(12);
    const ordered = (values: string[]) => {
      const ascending = [...values].sort();
      return values.join() === ascending.join() || values.join() === ascending.reverse().join();
    };
    expect(ordered(cursors)).toBe(false);
    expect(ordered(cursors.map((cursor) => Buffer.from(cursor, 'base64url').toString('hex')))).toBe(false);
    expect(new Set(cursors.map((cursor) => cursor.length)).size).toBe(1);
  });

  it('refuses a cursor of another site with 400, on every route that takes one', async () => {
    const [a, b] = [await createTestSite(service), await createTestSite(service)];
    await writeItems(a, 2);
    await writeItems(b, 2);
    await feedCaughtUp(service);
    const foreign = (await events(b)).body.data[0].cursor as string;
    expect((await events(a)).body.data[0].cursor).not.toBe(foreign);

    expectRefused(await events(a, `?cursor=${foreign}`), ['query', 'cursor']);
    const admin = (method: string, path: string, body: unknown) => service.request(method, path, { site: a.siteId, token: a.adminToken, body });
    expectRefused(await admin('POST', '/cdc/subscriptions', { name: 'foreign', kind: 'pull', from: foreign }), ['body', 'from']);
    const pull = await admin('POST', '/cdc/subscriptions', { name: 'pull', kind: 'pull', from: 'start' });
    expect(pull.status).toBe(201);
    expectRefused(await admin('POST', `/cdc/subscriptions/${pull.body.data.id}/ack`, { cursor: foreign }), ['body', 'cursor']);
    expectRefused(await admin('POST', `/cdc/subscriptions/${pull.body.data.id}/replay`, { cursor: foreign }), ['body', 'cursor']);
  });

  it('refuses a tampered or forged cursor with 400', async () => {
    const site = await createTestSite(service);
    await writeItems(site, 3);
    await feedCaughtUp(service);
    const cursor = (await events(site)).body.data[1].cursor as string;
    const flipped = (index: number) => `${cursor.slice(0, index)}${cursor[index] === 'A' ? 'B' : 'A'}${cursor.slice(index + 1)}`;
    for (const bad of [flipped(1), flipped(cursor.length - 2), cursor.slice(0, -1), `${cursor}A`, 'x'.repeat(cursor.length)]) {
      expectRefused(await events(site, `?cursor=${bad}`), ['query', 'cursor']);
    }
  });

  it('gives the same cursors after a restart, and a stored cursor resumes there', async () => {
    const site = await createTestSite(service);
    await writeItems(site, 2);
    await feedCaughtUp(service);
    const before = (await events(site)).body;
    const stored = before.data[0].cursor as string;

    // Another process with the same deployment secret, as after a restart.
    const restarted = await startTestService();
    try {
      await writeItems(site, 1);
      await feedCaughtUp(restarted);
      const resumed = (await events(site, `?cursor=${stored}`, restarted)).body;
      expect(resumed.data.map((entry: { id: string }) => entry.id)).toEqual([before.data[1].id, expect.any(String)]);
      expect(resumed.data[0].cursor).toBe(before.data[1].cursor);
    } finally {
      await restarted.close();
    }
  });

  it('answers 410 CURSOR_EXPIRED with an opaque earliestCursor, and still reads a legacy cursor', async () => {
    const site = await createTestSite(service);
    await writeItems(site, 2);
    await feedCaughtUp(service);
    const page = (await events(site)).body;
    // A cursor stored before cursors were opaque (base64url of "f1:<sequence>") still reads, for one version.
    const legacy = Buffer.from(`f1:${page.data[0].sequence}`, 'utf8').toString('base64url');
    const fromLegacy = await events(site, `?cursor=${legacy}`);
    expect(fromLegacy.status).toBe(200);
    expect(fromLegacy.body.data.map((entry: { id: string }) => entry.id)).toEqual([page.data[1].id]);
    expect(fromLegacy.body.data[0].cursor).toBe(page.data[1].cursor);

    await pruneSiteChangeFeed(service.context, site.siteId, new Date(Date.now() + 30 * 86_400_000));
    const expired = await events(site, `?cursor=${page.data[0].cursor}`);
    expect(expired.status, JSON.stringify(expired.body)).toBe(410);
    const earliest = expired.body.errors[0].extensions.earliestCursor as string;
    expect(Buffer.from(earliest, 'base64url').toString('latin1')).not.toContain('f1:');
    expect(earliest).toBe(page.meta.nextCursor);
    expect((await events(site, `?cursor=${earliest}`)).status).toBe(200);
  });
});
