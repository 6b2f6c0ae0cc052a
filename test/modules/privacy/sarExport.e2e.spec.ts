// POST /admin/sar/export: a site administrator's subject access export of a user or of a record,
// always in the field access log, never reaching into another site.
import { describe, expect, it } from 'vitest';
import { createCollection } from '../../support/contentModel.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createItem, createMember, withHelpers, type AccessSite } from '../access/support.ts';
import { createRole } from '../identity/support/identity.ts';

const service = await startTestServiceForFile();

/** A site with `patients` (name; email pii), `notes` (no sensitive field) and an author (admin role). */
async function sarSite() {
  const site = withHelpers(service, await createTestSite(service, 'sar'));
  await createCollection(service, site, 'patients', [
    { field: 'name', type: 'string' },
    { field: 'email', type: 'string', sensitivity: 'pii' },
  ]);
  await createCollection(service, site, 'notes', [{ field: 'text', type: 'string' }]);
  const author = await createMember(service, site, { roleId: await createRole(service, site.siteId, { admin: true }) });
  return { site, author };
}

async function exportOf(site: AccessSite, body: unknown, token = site.adminToken) {
  return site.as(token, 'POST', '/admin/sar/export', body);
}

/** The field access log entries of the site (after the async projection caught up). */
async function logEntries(site: AccessSite, filter: Record<string, unknown>) {
  await service.context.daemon.drain();
  const response = await site.admin('GET', `/admin/field-access-log?filter=${encodeURIComponent(JSON.stringify(filter))}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data as { actor: { kind: string; id: string }; collection: string; itemId: string; fields: string[]; sensitivity: string }[];
}

describe('the subject access export', () => {
  it('exports a user’s account data, built as the account export is, and logs it', async () => {
    const { site, author } = await sarSite();
    await site.as(author.token, 'PUT', '/me/consents/analytics', { granted: true, source: 'banner', version: '3' });
    const patient = await createItem(site, 'patients', { name: 'Pat', email: 'pat@example.test' }, author.token);

    const response = await exportOf(site, { userId: author.userId });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="sar-export-user-${author.userId}.json"`);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body).toMatchObject({
      kind: 'subject_access_export',
      siteId: site.siteId,
      subject: { userId: author.userId },
      data: {
        userId: author.userId,
        profile: { id: author.userId, email: author.email, firstName: 'Mem', lastName: 'Ber' },
        consents: [{ consentType: 'analytics', granted: true }],
        items: { collections: { patients: { data: [{ id: patient.id, email: 'pat@example.test' }] } }, withheldCollections: [] },
      },
    });
    expect(JSON.stringify(response.body)).not.toMatch(/password|hash/i);

    const logged = await logEntries(site, { actor: { _eq: site.adminUserId } });
    expect(logged).toContainEqual(expect.objectContaining({ actor: { kind: 'user', id: site.adminUserId }, collection: '_users', itemId: author.userId, sensitivity: 'pii' }));
    expect(logged.find((entry) => entry.collection === '_users')!.fields).toEqual(['email', 'firstName', 'lastName']);
    // The authored items were read through the items' read path, logged with the administrator as actor.
    expect(logged).toContainEqual(expect.objectContaining({ collection: 'patients', itemId: patient.id, fields: ['email'] }));
  });

  it('exports a record with its sensitive fields and its revisions’ metadata, logged once by the read path', async () => {
    const { site } = await sarSite();
    const patient = await createItem(site, 'patients', { name: 'Pat', email: 'pat@example.test' });
    expect((await site.admin('PATCH', `/items/patients/${patient.id}`, { name: 'Patricia' })).status).toBe(200);
    await service.context.daemon.drain();
    const before = await logEntries(site, { itemId: { _eq: patient.id } });

    const response = await exportOf(site, { collection: 'patients', itemId: patient.id });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="sar-export-patients-${patient.id}.json"`);
    expect(response.body.subject).toEqual({ collection: 'patients', itemId: patient.id });
    expect(response.body.data.item).toMatchObject({ id: patient.id, name: 'Patricia', email: 'pat@example.test' });
    expect(response.body.data.version).toBe(2);
    const revisions = response.body.data.revisions;
    expect(revisions).toMatchObject({ total: 2, truncated: false });
    expect(revisions.entries.map((revision: { version: number }) => revision.version)).toEqual([2, 1]);
    expect(revisions.entries[0]).toMatchObject({ actor: { id: site.adminUserId }, changedFields: expect.arrayContaining(['name']) });
    expect(JSON.stringify(revisions)).not.toContain('Patricia');

    const after = await logEntries(site, { itemId: { _eq: patient.id } });
    expect(after.length - before.length).toBe(1);
    expect(after[0]).toMatchObject({ actor: { kind: 'user', id: site.adminUserId }, collection: 'patients', fields: ['email'], sensitivity: 'pii' });
  });

  it('logs the export of a record that has no sensitive field', async () => {
    const { site } = await sarSite();
    const note = await createItem(site, 'notes', { text: 'about someone' });
    const response = await exportOf(site, { collection: 'notes', itemId: note.id });
    expect(response.status).toBe(200);
    expect(response.body.data.item).toMatchObject({ id: note.id, text: 'about someone' });
    const logged = await logEntries(site, { itemId: { _eq: note.id } });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ actor: { kind: 'user', id: site.adminUserId }, collection: 'notes', sensitivity: 'pii' });
    expect(logged[0]!.fields).toEqual(expect.arrayContaining(['id', 'text']));
  });

  it('answers 404 for an unknown user, collection or record', async () => {
    const { site } = await sarSite();
    const user = await exportOf(site, { userId: '018f0000-0000-7000-8000-000000000000' });
    expect(user.status).toBe(404);
    expect(user.body.errors[0].code).toBe('NOT_FOUND');
    const record = await exportOf(site, { collection: 'patients', itemId: '018f0000-0000-7000-8000-000000000000' });
    expect(record.status).toBe(404);
    expect(record.body.errors[0].code).toBe('RECORD_NOT_FOUND');
    expect((await exportOf(site, { collection: 'nothing', itemId: 'x' })).status).toBe(404);
  });

  it('refuses a bad body with the path of the problem', async () => {
    const { site, author } = await sarSite();
    const cases: [unknown, string][] = [
      [{}, 'collection'],
      [{ userId: 'not-a-uuid' }, 'userId'],
      [{ collection: 'patients' }, 'itemId'],
      [{ userId: author.userId, collection: 'patients' }, 'collection'],
      // An unknown key is refused at the body itself (the strict shape's path).
      [{ userId: author.userId, extra: true }, 'body'],
    ];
    for (const [body, field] of cases) {
      const response = await exportOf(site, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors[0].code).toBe('VALIDATION_FAILED');
      expect(response.body.errors.flatMap((error: { path: unknown[] }) => error.path)).toContain(field);
    }
  });

  it('is for site administrators only', async () => {
    const { site, author } = await sarSite();
    const member = await createMember(service, site);
    expect((await exportOf(site, { userId: author.userId }, member.token)).status).toBe(403);
    expect((await site.as(null, 'POST', '/admin/sar/export', { userId: author.userId })).status).toBe(401);
  });

  it('never reaches another site’s users or records', async () => {
    const { site } = await sarSite();
    const other = await sarSite();
    const theirs = await createItem(other.site, 'patients', { name: 'Theirs', email: 'theirs@example.test' });
    expect((await exportOf(site, { userId: other.author.userId })).status).toBe(404);
    expect((await exportOf(site, { collection: 'patients', itemId: theirs.id })).status).toBe(404);
    expect(await logEntries(site, { itemId: { _eq: theirs.id } })).toEqual([]);
    expect(await logEntries(other.site, { actor: { _eq: site.adminUserId } })).toEqual([]);
  });
});
