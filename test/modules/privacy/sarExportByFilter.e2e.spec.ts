// POST /admin/sar/export with `{ collection, filter }`: every record of the collection the filter
// names, found by the erasure's rules (a pii/phi field compared on its opened value), bounded,
// logged in the field access log and audited with counts only (never the filter's values), for site
// administrators, never reaching another site.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { MAX_SAR_RECORDS } from '../../../src/modules/privacy/sarExport.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { createCollection } from '../../support/contentModel.ts';
import { createItem, createMember, type AccessSite } from '../access/support.ts';
import { erasureSite, expectError, unique } from '../erasure/support.ts';
import { startTestServiceForFile } from '../../support/testService.ts';

const service = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();

async function exportOf(site: AccessSite, body: unknown, token = site.adminToken) {
  return site.as(token, 'POST', '/admin/sar/export', body);
}

/** What the export wrote: the site's sensitive-read events and audit entries (after the daemon). */
async function written(site: AccessSite) {
  await service.context.daemon.drain();
  const events = await owner.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM events WHERE site_id = ${site.siteId} AND type = 'item.sensitive_read'`);
  const audit = await site.admin('GET', '/audit?limit=200&filter[action][_eq]=item.sensitive_read');
  return { reads: events[0]!.n, audit: audit.body.data as { details: Record<string, unknown>; actor: { id: string } }[] };
}

/** A subject with two patients and a note under one email, a patient deleted, and someone else. */
async function subjectSite() {
  const { site } = await erasureSite(service, 'sar-filter');
  const email = `${unique('jane')}@example.test`;
  const diagnosis = unique('diagnosis');
  const first = await createItem(site, 'patients', { name: 'Jane One', city: 'Lyon', email, diagnosis });
  const second = await createItem(site, 'patients', { name: 'Jane Two', city: 'Nice', email });
  const deleted = await createItem(site, 'patients', { name: 'Jane Gone', email });
  expect((await site.admin('DELETE', `/items/patients/${deleted.id}`)).status).toBe(204);
  const other = await createItem(site, 'patients', { name: 'Someone Else', city: 'Lyon', email: `${unique('else')}@example.test` });
  await createItem(site, 'notes', { text: 'a note', contact: email });
  expect((await site.admin('PATCH', `/items/patients/${first.id}`, { city: 'Paris' })).status).toBe(200);
  return { site, email, diagnosis, first, second, deleted, other };
}

describe('the subject access export by filter', () => {
  it('exports every record a pii filter names, as the record form does, logged once and audited without the filter', async () => {
    const { site, email, diagnosis, first, second, deleted } = await subjectSite();
    const before = await written(site);

    const response = await exportOf(site, { collection: 'patients', filter: { email: { _eq: email } } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="sar-export-patients-records.json"');
    expect(response.body).toMatchObject({ kind: 'subject_access_export', siteId: site.siteId, subject: { collection: 'patients', filter: { email: { _eq: email } } } });
    const { data } = response.body;
    expect(data.recordCount).toBe(3);
    expect(data.records.map((record: { item: { id: string } }) => record.item.id)).toEqual([first.id, second.id].sort());
    const firstRecord = data.records.find((record: { item: { id: string } }) => record.item.id === first.id);
    expect(firstRecord.item).toMatchObject({ name: 'Jane One', city: 'Paris', email, diagnosis });
    expect(firstRecord.revisions).toMatchObject({ total: 2, truncated: false });
    expect(JSON.stringify(firstRecord.revisions)).not.toContain(email);
    // A soft-deleted record of the subject is named, so that it is not forgotten.
    expect(data.deletedRecords).toEqual([deleted.id]);

    const after = await written(site);
    expect(after.reads - before.reads).toBe(1);
    const [entry] = after.audit;
    expect(entry).toMatchObject({ actor: { id: site.adminUserId }, details: { recordCount: 2, collections: ['patients'] } });
    // The audit list holds no value of the filter nor of the records.
    const everything = await site.admin('GET', '/audit?limit=200');
    expect(JSON.stringify(everything.body.data.map((audited: { details: unknown }) => audited.details))).not.toMatch(new RegExp(`${email}|${diagnosis}|Jane`, 'i'));
    const logged = await site.admin('GET', `/admin/field-access-log?filter[itemId][_eq]=${second.id}`);
    expect(logged.body.data[0]).toMatchObject({ actor: { id: site.adminUserId }, collection: 'patients', fields: ['email'] });
  });

  it('takes a filter over plain fields, and answers an empty export when nothing matches', async () => {
    const { site, other } = await subjectSite();
    const response = await exportOf(site, { collection: 'patients', filter: { name: { _eq: 'Someone Else' } } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.records.map((record: { item: { id: string } }) => record.item.id)).toEqual([other.id]);
    const none = await exportOf(site, { collection: 'patients', filter: { email: { _eq: 'nobody@example.test' } } });
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual({ recordCount: 0, records: [], deletedRecords: [] });
  });

  it('logs a matched record that has no sensitive field, every field as pii', async () => {
    const { site } = await erasureSite(service, 'sar-filter');
    await createCollection(service, site, 'letters', [{ field: 'to', type: 'string' }]);
    const letter = await createItem(site, 'letters', { to: 'Jane' });
    const response = await exportOf(site, { collection: 'letters', filter: { to: { _eq: 'Jane' } } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    await service.context.daemon.drain();
    const logged = await site.admin('GET', `/admin/field-access-log?filter[itemId][_eq]=${letter.id}`);
    expect(logged.body.data).toHaveLength(1);
    expect(logged.body.data[0].fields).toEqual(expect.arrayContaining(['id', 'to']));
  });

  it('takes exactly one form, and refuses a bad filter with its path, writing nothing', async () => {
    const { site, first } = await subjectSite();
    const before = await written(site);
    const cases: [unknown, (string | number)[]][] = [
      [{ collection: 'patients', itemId: first.id, filter: { city: { _eq: 'Lyon' } } }, ['body', 'filter']],
      [{ userId: site.adminUserId, filter: { city: { _eq: 'Lyon' } } }, ['body', 'filter']],
      [{ filter: { city: { _eq: 'Lyon' } } }, ['body', 'collection']],
      [{ collection: 'patients' }, ['body', 'itemId']],
      [{ collection: 'patients', filter: {} }, ['body', 'filter']],
      [{ collection: 'patients', filter: 'city=Lyon' }, ['body', 'filter']],
      [{ collection: 'patients', filter: { nope: { _eq: 1 } } }, ['body', 'filter', 'nope']],
      [{ collection: 'patients', filter: { email: { _has_key: 'a' } } }, ['body', 'filter', 'email', '_has_key']],
    ];
    for (const [body, path] of cases) {
      const response = await exportOf(site, body);
      expectError(response, 400, 'VALIDATION_FAILED');
      expect(response.body.errors.map((error: { path: unknown }) => error.path), JSON.stringify(body)).toContainEqual(path);
    }
    expect((await written(site)).reads).toBe(before.reads);
  });

  it(`refuses a filter that matches more than ${MAX_SAR_RECORDS} records, to be narrowed`, async () => {
    const { site } = await erasureSite(service, 'sar-filter');
    const items = Array.from({ length: MAX_SAR_RECORDS + 1 }, (_, index) => ({ name: `n${index}`, city: 'Lyon' }));
    const created = await site.admin('POST', '/items/patients', items);
    expect(created.status).toBe(201);
    const before = await written(site);
    const response = await exportOf(site, { collection: 'patients', filter: { city: { _eq: 'Lyon' } } });
    expectError(response, 400, 'VALIDATION_FAILED');
    expect(response.body.errors[0].path).toEqual(['body', 'filter']);
    expect((await written(site)).reads).toBe(before.reads);
  });

  it('is for site administrators only', async () => {
    const { site, email } = await subjectSite();
    const member = await createMember(service, site);
    const body = { collection: 'patients', filter: { email: { _eq: email } } };
    expectError(await exportOf(site, body, member.token), 403, 'PERMISSION_DENIED');
    expect((await site.as(null, 'POST', '/admin/sar/export', body)).status).toBe(401);
  });

  it('never reaches another site: its collection is 404, its records never match', async () => {
    const mine = await subjectSite();
    const theirs = await subjectSite();
    await createCollection(service, theirs.site, 'letters', [{ field: 'to', type: 'string' }]);
    expectError(await exportOf(mine.site, { collection: 'letters', filter: { to: { _eq: 'x' } } }), 404, 'NOT_FOUND');
    const response = await exportOf(mine.site, { collection: 'patients', filter: { email: { _eq: theirs.email } } });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ recordCount: 0, records: [], deletedRecords: [] });
  });
});
