// Rebuilding every read model from the log after an erasure: the log still has the erased records'
// events (it is immutable) but only references to their pii/phi values, whose sealed rows are gone.
// The rebuilt read models hold the same rows as before the rebuild, no row of the erased records,
// and no pii/phi value in plaintext anywhere; the records not erased read as before.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { projections } from '../../../projections/index.ts';
import { snapshotReadModels } from '../../projections/freshDatabase.ts';
import { createCollection } from '../../support/contentModel.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createItem, createMember, withHelpers, type AccessSite } from '../access/support.ts';
import { createRole } from '../identity/support/identity.ts';
import { ok, plaintextHits, unique } from './support.ts';

// A database of the file's own: a rebuild empties and refills every read model of every site.
const fresh = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: fresh.url });

async function siteWithPatients(): Promise<AccessSite> {
  const site = withHelpers(service, await createTestSite(service, 'erase-rb'));
  await createCollection(service, site, 'patients', [
    { field: 'name', type: 'string' },
    { field: 'email', type: 'string', sensitivity: 'pii' },
    { field: 'diagnosis', type: 'text', sensitivity: 'phi' },
  ]);
  await createCollection(service, site, 'notes', [
    { field: 'text', type: 'string' },
    { field: 'contact', type: 'string', sensitivity: 'pii' },
  ]);
  return site;
}

describe('a rebuild after an erasure', () => {
  it('gives the same rows, none of the erased records, and no pii in plaintext', { timeout: 120_000 }, async () => {
    const site = await siteWithPatients();
    const second = await createMember(service, site, { roleId: await createRole(service, site.siteId, { admin: true }) });
    const email = `${unique('erased')}@example.test`;
    const versionEmail = `${unique('version')}@example.test`;
    const diagnoses = [unique('diagnosis'), unique('diagnosis'), unique('diagnosis')];
    const keptEmail = `${unique('kept')}@example.test`;
    const keptDiagnosis = unique('kept-diagnosis');

    // The subject's records: edited, versioned, soft-deleted; a record kept; a note of another collection.
    const first = await createItem(site, 'patients', { name: 'First', email, diagnosis: diagnoses[0] });
    await ok(site.admin('PATCH', `/items/patients/${first.id}`, { diagnosis: diagnoses[1], name: 'First edited' }));
    await ok(site.admin('POST', `/items/patients/${first.id}/versions`, { key: 'draft', name: 'Draft' }), 201);
    await ok(site.admin('PATCH', `/items/patients/${first.id}/versions/draft`, { data: { email: versionEmail } }));
    const secondRecord = await createItem(site, 'patients', { name: 'Second', email, diagnosis: diagnoses[2] });
    expect((await site.admin('DELETE', `/items/patients/${secondRecord.id}`)).status).toBe(204);
    const kept = await createItem(site, 'patients', { name: 'Kept', email: keptEmail, diagnosis: keptDiagnosis });
    const note = await createItem(site, 'notes', { text: 'note', contact: keptEmail });
    const erasedIds = [first.id, secondRecord.id];

    const erasure = await ok(site.admin('POST', '/admin/erasure', { collection: 'patients', filter: { email: { _eq: email } }, reason: 'rebuild test' }), 201);
    expect(erasure.matchedCount).toBe(2);
    // A request left pending, so that the rebuild also meets one that was never executed.
    const pending = await ok(site.admin('POST', '/admin/erasure', { collection: 'patients', filter: { name: { _eq: 'Kept' } }, reason: 'pending' }), 201);
    await ok(site.as(second.token, 'POST', `/admin/erasure/${erasure.id}/confirm`));
    expect(await ok(site.admin('POST', `/admin/erasure/${erasure.id}/execute`))).toMatchObject({ status: 'executed', recordCount: 2 });
    const revisionsBeforeRebuild = (await site.admin('GET', `/items/patients/${first.id}/revisions`)).body;

    // The log still has the erased records' events (a rebuild replays them), with references only.
    const logged = await fresh.owner.query<{ type: string; data: string }>(sql`
      SELECT type, data::text AS data FROM events WHERE site_id = ${site.siteId} AND data->>'itemId' = ANY(${erasedIds}::text[]) ORDER BY position`);
    expect(logged.map((event) => event.type)).toEqual(expect.arrayContaining(['item.created', 'item.updated', 'item.deleted', 'item.hard_deleted', 'version.created', 'version.updated']));
    expect(logged.some((event) => event.data.includes('svc:sealed:'))).toBe(true);

    await expectRebuildToGiveSameRows({
      service,
      owner: fresh.owner,
      projections,
      snapshot: () => snapshotReadModels(fresh.owner, projections),
      tablesWithRows: ['items', 'item_revisions', 'item_history', 'item_versions', 'cdc_feed', 'erasure_requests', 'audit_log'],
    });

    // No row of the erased records in the items read model (nor their drafts), after the rebuild.
    expect(await fresh.owner.query(sql`SELECT id FROM items WHERE site_id = ${site.siteId} AND id = ANY(${erasedIds}::text[])`)).toEqual([]);
    expect(await fresh.owner.query(sql`SELECT id FROM item_drafts WHERE site_id = ${site.siteId} AND id = ANY(${erasedIds}::text[])`)).toEqual([]);
    expect(await fresh.owner.query(sql`SELECT id FROM sensitive_values WHERE site_id = ${site.siteId} AND item_id = ANY(${erasedIds}::text[])`)).toEqual([]);
    const requests = await fresh.owner.query<{ id: string; status: string }>(sql`SELECT id::text, status FROM erasure_requests WHERE site_id = ${site.siteId} ORDER BY requested_at`);
    expect(requests).toEqual([
      { id: erasure.id, status: 'executed' },
      { id: pending.id, status: 'requested' },
    ]);

    // Nothing of any pii/phi value is in plaintext anywhere once rebuilt, erased or not.
    await service.context.daemon.drain();
    expect(await plaintextHits(fresh.owner, [email, versionEmail, ...diagnoses, keptEmail, keptDiagnosis])).toEqual([]);
    expect((await plaintextHits(fresh.owner, ['First edited'])).length).toBeGreaterThan(0);

    // Read through the API: the erased records are gone and show no pii; the rest read as before.
    for (const id of erasedIds) {
      const response = await site.admin('GET', `/items/patients/${id}`);
      expect(response.status, JSON.stringify(response.body)).toBe(404);
    }
    // The erased record's revisions are kept (the log is): the same answer as before the rebuild,
    // its plain fields readable and its pii null.
    const revisions = await site.admin('GET', `/items/patients/${first.id}/revisions`);
    expect(revisions.status, JSON.stringify(revisions.body)).toBe(200);
    expect(revisions.body).toEqual(revisionsBeforeRebuild);
    expect(revisions.body.data.map((revision: { event: string; data: Record<string, unknown> }) => [revision.event, revision.data.name, revision.data.email, revision.data.diagnosis])).toEqual([
      ['item.hard_deleted', 'First edited', null, null],
      ['item.updated', 'First edited', null, null],
      ['item.created', 'First', null, null],
    ]);
    for (const value of [email, versionEmail, ...diagnoses]) expect(JSON.stringify(revisions.body)).not.toContain(value);
    expect(await ok(site.admin('GET', `/items/patients/${kept.id}`))).toMatchObject({ name: 'Kept', email: keptEmail, diagnosis: keptDiagnosis });
    expect(await ok(site.admin('GET', `/items/notes/${note.id}`))).toMatchObject({ contact: keptEmail });
    expect((await ok(site.admin('GET', '/items/patients'))).map((item: { id: string }) => item.id)).toEqual([kept.id]);
    const verified = await ok(site.admin('GET', '/audit/verify'));
    expect(verified.valid, JSON.stringify(verified)).toBe(true);
  });
});
