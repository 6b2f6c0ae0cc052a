// The change feed keeps no copy of what the log holds (issue #16): an item's snapshot stays in its
// event, the stored envelope says null in its place, and readers get the envelope text they got when
// the feed kept the copy. On a database of its own: the migration test rewrites the table.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { orderedMeta } from '../../../domain/content/schemaModel.ts';
import { streamId, type StoredEvent } from '../../../domain/shared/events.ts';
import { registerUpcaster } from '../../../domain/shared/upcasting.ts';
import { LOG_START, readAll } from '../../../infra/eventstore/eventStore.ts';
import { MIGRATIONS_DIRECTORY } from '../../../infra/postgres/migrate.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { servedEnvelope } from '../../../src/modules/cdc/feedEnvelope.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { appendEvents, appendItemEvent, feedCaughtUp } from './support.ts';

const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url });

// Events of this type stored at version 1 are read as version 2, with a key the log does not hold:
// their entries must keep the snapshot as it was read (the log row is not what the projection saw).
registerUpcaster('item.promoted', 1, (data) => ({ ...data, snapshot: { ...(data.snapshot as object), promotedBy: 'upcaster' } }));

/** Content whose serialization is easy to get wrong: escapes, the envelope's own text, numbers JSON.stringify writes its way, nested integer-like keys. */
const AWKWARD_FIELDS = {
  title: 'Hé "quoted" \\ \u0001 ✓',
  note: '"snapshot" : null, "changedKeys" : ',
  tiny: 1e-7,
  huge: 1e21,
  ratio: 0.1,
  nested: { b: [1, { '2': null }], '10': 'a' },
};

interface StoredRow {
  seq: number;
  type: string;
  envelope: string;
  snapshot_key: string | null;
}

async function storedRows(siteId: string): Promise<StoredRow[]> {
  return database.owner.query<StoredRow>(sql`SELECT seq, type, envelope, snapshot_key FROM cdc_feed WHERE site_id = ${siteId} ORDER BY seq`);
}

/** GET /cdc/events as the administrator, as the text on the wire. */
async function feedText(site: TestSite): Promise<string> {
  const response = await fetch(`${service.url}/api/v1/cdc/events?limit=500`, { headers: { 'x-svc-site': site.siteId, authorization: `Bearer ${site.adminToken}` } });
  expect(response.status).toBe(200);
  return response.text();
}

/** As migrate runs a file: as the owner, in one transaction, then the application role's grants. */
async function runMigration(file: string): Promise<void> {
  const owner = new pg.Client({ connectionString: database.url });
  await owner.connect();
  try {
    await owner.query('BEGIN');
    await owner.query(readFileSync(join(MIGRATIONS_DIRECTORY, file), 'utf8'));
    await owner.query('GRANT SELECT, INSERT, UPDATE, DELETE ON cdc_feed TO svc_app');
    await owner.query('COMMIT');
  } finally {
    await owner.end();
  }
}

async function loggedEvents(siteId: string): Promise<StoredEvent[]> {
  return (await readAll(database.owner, LOG_START, 100_000)).filter((event) => event.siteId === siteId);
}

async function siteWithEntries(): Promise<TestSite> {
  const site = await createTestSite(service);
  const itemId = await appendItemEvent(service, site.siteId, { type: 'item.created', collection: 'articles', fields: AWKWARD_FIELDS, actorId: site.adminUserId });
  await appendItemEvent(service, site.siteId, { type: 'item.updated', collection: 'articles', itemId, fields: { title: 'Again' } });
  await appendItemEvent(service, site.siteId, { type: 'item.promoted', collection: 'articles', itemId, fields: { title: 'Promoted' } });
  await appendEvents(service, site.siteId, streamId(site.siteId, 'collection', 'articles'), [
    { type: 'collection.updated', data: { collection: 'articles', meta: orderedMeta({ note: 'kept in the feed' }) } },
  ]);
  await feedCaughtUp(service);
  return site;
}

describe('change-feed storage', () => {
  it('keeps an item snapshot in the log only, and serves it in the envelope as the projection read it', async () => {
    const site = await siteWithEntries();
    const rows = await storedRows(site.siteId);
    expect(rows.map((row) => [row.type, row.snapshot_key])).toEqual([
      ['items.create', 'snapshot'],
      ['items.update', 'snapshot'],
      ['items.update', null], // lifted by the upcaster: not the log row's data
      ['collections.update', null], // built from the event, not a part of it
    ]);
    expect(rows[0]!.envelope).toContain('"snapshot" : null, "changedKeys" : ["huge",');
    expect(rows[0]!.envelope).not.toContain('quoted');
    expect(rows[3]!.envelope).toContain('kept in the feed');

    const text = await feedText(site);
    const served = (JSON.parse(text) as { data: { snapshot: Record<string, unknown> }[] }).data;
    const events = (await loggedEvents(site.siteId)).filter((event) => event.type.startsWith('item.') || event.type === 'collection.updated');
    const snapshotOf = (event: StoredEvent) => (event.data as { snapshot?: unknown }).snapshot;
    expect(served.map((entry) => entry.snapshot)).toEqual([
      snapshotOf(events[0]!),
      snapshotOf(events[1]!),
      expect.objectContaining({ title: 'Promoted', promotedBy: 'upcaster' }),
      { collection: 'articles', meta: orderedMeta({ note: 'kept in the feed' }) },
    ]);
    // The text is the stored envelope with the snapshot as JSON.stringify writes the event's data, as
    // the projection wrote it into the envelope when it kept the copy.
    // The head differs only by the site's opaque cursor in place of the stored one, and no position
    // (docs/change-feed.md "Cursors"): compare from the site on.
    const fromSite = (envelope: string) => envelope.slice(envelope.indexOf('"site" : '));
    for (const [index, event] of events.slice(0, 2).entries()) {
      const snapshot = JSON.stringify(snapshotOf(event));
      expect(text).toContain(fromSite(rows[index]!.envelope.replace('"snapshot" : null', () => `"snapshot" : ${snapshot}`)));
    }
  });

  it('converts entries that kept the copy (migration 0305), with the same answers', async () => {
    const site = await siteWithEntries();
    const before = await feedText(site);
    const converted = (await storedRows(site.siteId)).map((row) => row.snapshot_key);

    // The feed (of every site of the database) as it was before 0305: every envelope whole, no snapshot_key.
    await database.owner.withSite(site.siteId, async (tx) => {
      const rows = await tx.query<{ site_id: string; seq: number; stored_envelope: string; logged_snapshot: Record<string, unknown> | null }>(sql`
        SELECT f.site_id, f.seq, f.envelope AS stored_envelope, e.data -> f.snapshot_key AS logged_snapshot
          FROM cdc_feed f LEFT JOIN events e ON e.position = f.position AND f.snapshot_key IS NOT NULL`);
      for (const row of rows) await tx.query(sql`UPDATE cdc_feed SET envelope = ${servedEnvelope(row)} WHERE site_id = ${row.site_id} AND seq = ${row.seq}`);
      await tx.query(sql`ALTER TABLE cdc_feed DROP COLUMN snapshot_key`);
    });
    await runMigration('0305_change_feed_references_log.sql');

    expect((await storedRows(site.siteId)).map((row) => row.snapshot_key)).toEqual(converted);
    expect(await feedText(site)).toBe(before);
  });
});
