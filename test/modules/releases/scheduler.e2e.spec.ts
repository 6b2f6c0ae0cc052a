// The scheduler publishes due releases (task `releases`, src/modules/releases/scheduledReleases.ts):
// at publishAt and not before, inside the maintenance window only, once whatever the number of
// instances, and after an instance killed mid-publish, once with all its items. On a database of the
// file's own: a tick looks at every site. The services' own ticks are off (test/support/testService.ts);
// the tests tick with the moment they choose.
import pg from 'pg';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { nextMaintenanceWindowStart } from '../../../domain/releases/maintenanceWindow.ts';
import { startScheduler } from '../../../src/boot/scheduler.ts';
import { itemStreamId } from '../../../src/modules/items/itemStreams.ts';
import { releaseStream } from '../../../src/modules/releases/handlers.ts';
import { publishDueReleases } from '../../../src/modules/releases/scheduledReleases.ts';
import { cliEnvironment, spawnCli } from '../../cli/runCli.ts';
import { createCollection } from '../../support/contentModel.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile, type TestService } from '../../support/testService.ts';
import { withCall, type ContentSite } from '../items/support.ts';

const database = await createFreshDatabaseForFile();
const first = await startTestServiceForFile({ DATABASE_URL: database.url });
const second = await startTestServiceForFile({ DATABASE_URL: database.url });
const owner = new pg.Client({ connectionString: database.url });
await owner.connect();
afterAll(() => owner.end());

const HOUR = 3_600_000;

function ticker(service: TestService) {
  const scheduler = startScheduler(service.context, { intervalMs: HOUR });
  afterAll(() => scheduler.stop());
  return scheduler;
}
const firstScheduler = ticker(first);
const secondScheduler = ticker(second);

interface ReleaseSite extends ContentSite {
  articleIds: string[];
}

async function contentSite(count = 2): Promise<ReleaseSite> {
  const site = withCall(first, await createTestSite(first, 'sched'));
  await createCollection(first, site, 'articles', [{ field: 'title', type: 'string' }]);
  const articleIds: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const created = await site.call('POST', '/items/articles', { title: `Article ${index}`, status: 'draft' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    articleIds.push(created.body.data.id);
  }
  // Publishing goes through the items in key order: sorted here alike, the last one is written last.
  return { ...site, articleIds: articleIds.sort() };
}

/** A scheduled release of the site's articles: the first goes to `published`, the others to `archived`. */
async function scheduleRelease(site: ReleaseSite, publishAt: Date, extra: Record<string, unknown> = {}): Promise<string> {
  const addItems = site.articleIds.map((itemId, index) => ({ collection: 'articles', itemId, targetStatus: index === 0 ? 'published' : 'archived' }));
  const created = await site.call('POST', '/releases', { name: 'Scheduled', publishAt: publishAt.toISOString(), addItems, ...extra });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body.data.status).toBe('scheduled');
  return created.body.data.id;
}

const inAnHour = () => new Date(Date.now() + HOUR);

async function releaseStatus(site: ReleaseSite, releaseId: string): Promise<string> {
  return (await site.call('GET', `/releases/${releaseId}`)).body.data.status;
}

async function itemStatuses(site: ReleaseSite): Promise<string[]> {
  return Promise.all(site.articleIds.map(async (id) => (await site.call('GET', `/items/articles/${id}`)).body.data.status));
}

async function eventCount(stream: string, type?: string): Promise<number> {
  const { rows } = await owner.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE stream_id = $1 AND ($2::text IS NULL OR type = $2)', [stream, type ?? null]);
  return rows[0]!.n;
}

/** The release went out once: one release.published, and one write (after its creation) per item. */
async function expectPublishedOnce(site: ReleaseSite, releaseId: string): Promise<void> {
  expect(await releaseStatus(site, releaseId)).toBe('published');
  expect(await eventCount(releaseStream(site.siteId, releaseId), 'release.published')).toBe(1);
  for (const id of site.articleIds) expect(await eventCount(itemStreamId(site.siteId, 'articles', id))).toBe(2);
  expect(await itemStatuses(site)).toEqual(site.articleIds.map((_, index) => (index === 0 ? 'published' : 'archived')));
}

async function expectUnpublished(site: ReleaseSite, releaseId: string): Promise<void> {
  expect(await releaseStatus(site, releaseId)).toBe('scheduled');
  expect(await eventCount(releaseStream(site.siteId, releaseId), 'release.published')).toBe(0);
  for (const id of site.articleIds) expect(await eventCount(itemStreamId(site.siteId, 'articles', id))).toBe(1);
  expect(await itemStatuses(site)).toEqual(site.articleIds.map(() => 'draft'));
}

/** Polls `check` (every 50 ms) until it gives a value; fails naming `what` after `timeoutMs`. */
async function until<T>(what: string | (() => string), check: () => Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await check();
    if (result) return result;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the scheduler tick', () => {
  it('publishes a release once its publishAt has come, and its items take their target statuses', async () => {
    const site = await contentSite();
    const publishAt = inAnHour();
    const releaseId = await scheduleRelease(site, publishAt);

    await firstScheduler.tick(new Date(publishAt.getTime() - 1));
    await expectUnpublished(site, releaseId);
    await firstScheduler.tick(publishAt);
    await expectPublishedOnce(site, releaseId);
    const release = (await site.call('GET', `/releases/${releaseId}`)).body.data;
    expect(release.items.map((item: { itemId: string; outcome?: string }) => [item.itemId, item.outcome])).toEqual(site.articleIds.map((id) => [id, 'published']));
  });

  it('leaves a release that is not due, and a draft, as they are', async () => {
    const site = await contentSite();
    const releaseId = await scheduleRelease(site, inAnHour());
    const draft = await site.call('POST', '/releases', { name: 'Draft', addItems: [{ collection: 'articles', itemId: site.articleIds[0], targetStatus: 'published' }] });
    expect(draft.status).toBe(201);

    await firstScheduler.tick(new Date());
    await expectUnpublished(site, releaseId);
    expect(await releaseStatus(site, draft.body.data.id)).toBe('draft');
  });

  it('holds a due release outside its maintenance window and publishes it at the next tick inside it', async () => {
    const site = await contentSite();
    const publishAt = inAnHour();
    // A window two days after publishAt's weekday, so publishAt itself is outside it.
    const window = { windows: [{ dow: (publishAt.getUTCDay() + 2) % 7, start: '03:00', end: '04:00' }] };
    const releaseId = await scheduleRelease(site, publishAt, { maintenanceWindow: window });
    const opens = nextMaintenanceWindowStart(window, publishAt)!;

    await firstScheduler.tick(new Date(publishAt.getTime() + 60_000));
    await expectUnpublished(site, releaseId);
    await firstScheduler.tick(new Date(opens.getTime() - 1));
    await expectUnpublished(site, releaseId);
    await firstScheduler.tick(new Date(opens.getTime() + 30 * 60_000));
    await expectPublishedOnce(site, releaseId);
  });

  it('reads past more due releases than one page, left waiting for their windows, to a release it may publish', async () => {
    const site = await contentSite();
    const publishAt = inAnHour();
    const releaseId = await scheduleRelease(site, publishAt);
    const tickAt = new Date(publishAt.getTime() + 1);
    // 250 older due releases (a microsecond apart: the next page starts exactly after the last one read),
    // written straight into the read model, in a window that is closed at the tick.
    const closed = { windows: [{ dow: (tickAt.getUTCDay() + 3) % 7, start: '00:00', end: '01:00' }] };
    await owner.query(
      `INSERT INTO releases (site_id, id, name, status, atomicity_mode, publish_at, maintenance_window, created_at, updated_at)
       SELECT 'waiting', gen_random_uuid(), 'Waiting ' || g, 'scheduled', 'all_or_nothing', $1::timestamptz - interval '1 day' + g * interval '1 microsecond', $2, now(), now()
         FROM generate_series(1, 250) g`,
      [publishAt, JSON.stringify(closed)],
    );
    try {
      await firstScheduler.tick(tickAt);
    } finally {
      await owner.query(`DELETE FROM releases WHERE site_id = 'waiting'`);
    }
    await expectPublishedOnce(site, releaseId);
  });

  it('publishes a due release once when two instances tick at the same moment', async () => {
    const site = await contentSite(3);
    const publishAt = inAnHour();
    const releaseId = await scheduleRelease(site, publishAt);

    await Promise.all([firstScheduler.tick(publishAt), secondScheduler.tick(publishAt)]);
    await expectPublishedOnce(site, releaseId);
  });

  it('publishes a due release once when two instances run the task at once, past the scheduler’s lock', async () => {
    const site = await contentSite(3);
    const publishAt = inAnHour();
    const releaseId = await scheduleRelease(site, publishAt);

    await Promise.all([publishDueReleases(first.context, publishAt), publishDueReleases(second.context, publishAt)]);
    await expectPublishedOnce(site, releaseId);
  });

  it('logs a release whose publish fails, goes on with the others, and publishes it at a later tick', async () => {
    const failing = await contentSite();
    const other = await contentSite();
    const publishAt = inAnHour();
    const failingId = await scheduleRelease(failing, publishAt);
    const otherId = await scheduleRelease(other, new Date(publishAt.getTime() + 1));
    // The database refuses the failing release's publish (its read model row cannot change), as an outage would.
    await owner.query(`CREATE FUNCTION test_refuse_release() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$`);
    await owner.query(`CREATE TRIGGER test_refuse_release BEFORE UPDATE ON releases FOR EACH ROW WHEN (OLD.id = '${failingId}') EXECUTE FUNCTION test_refuse_release()`);
    const logged: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => logged.push(line) });
    try {
      await publishDueReleases({ ...first.context, logger }, new Date(publishAt.getTime() + 1));
    } finally {
      await owner.query('DROP TRIGGER test_refuse_release ON releases');
      await owner.query('DROP FUNCTION test_refuse_release()');
    }
    await expectUnpublished(failing, failingId);
    await expectPublishedOnce(other, otherId);
    expect(logged.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ msg: 'scheduled release could not be published', siteId: failing.siteId, releaseId: failingId }),
    ]);

    await firstScheduler.tick(new Date(publishAt.getTime() + 1));
    await expectPublishedOnce(failing, failingId);
  });

  it('publishes a release once, with all its items, after the instance publishing it was killed mid-transaction', { timeout: 90_000 }, async () => {
    const site = await contentSite(3);
    const lastItemStream = itemStreamId(site.siteId, 'articles', site.articleIds.at(-1)!);
    const firstItemStream = itemStreamId(site.siteId, 'articles', site.articleIds[0]!);
    // The test holds the last item's stream lock: the publish writes the items before it, then waits.
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    const child = spawnCli(['start'], cliEnvironment({ DATABASE_URL: database.url, PORT: '0', LOG_LEVEL: 'warn', SVC_SCHEDULER_TICK_MS: '200' }));
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    try {
      const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [lastItemStream]);
      const releaseId = await scheduleRelease(site, new Date(Date.now() + 2000));

      const publisherPid = await until(() => `the instance to wait on the item lock; its output:\n${output}`, async () => {
        const { rows } = await owner.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [holderPid]);
        return rows[0]?.pid;
      }, 60_000);
      // Mid-transaction: it holds the release's lock and has written the first item (it holds its lock too).
      const { rows: held } = await owner.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks, unnest($2::text[]) AS stream
          WHERE pid = $1 AND locktype = 'advisory' AND granted
            AND classid = ((hashtextextended(stream, 0) >> 32) & 4294967295)::bigint::oid
            AND objid = (hashtextextended(stream, 0) & 4294967295)::bigint::oid`,
        [publisherPid, [releaseStream(site.siteId, releaseId), firstItemStream]],
      );
      expect(held[0]!.n).toBe(2);

      child.kill('SIGKILL');
      await exited;
      await holder.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [lastItemStream]);
      // Its backend finds its client gone once the lock is free, and rolls back.
      await until('the killed instance’s transaction to end', async () => {
        const { rows } = await owner.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [publisherPid]);
        return rows.length === 0;
      });
      await expectUnpublished(site, releaseId);

      // Another instance's tick publishes it (its first tick may find the killed one's scheduler lock not yet gone).
      await until('another instance to publish the release', async () => {
        await firstScheduler.tick(new Date());
        return (await releaseStatus(site, releaseId)) === 'published';
      });
      await expectPublishedOnce(site, releaseId);
    } finally {
      child.kill('SIGKILL');
      await holder.end();
    }
  });
});
