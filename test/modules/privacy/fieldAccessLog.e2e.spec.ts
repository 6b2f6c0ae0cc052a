// GET /admin/field-access-log: who read which pii/phi field of which record and when, never the
// values, for the site's administrators only, filterable, and never another site's reads.
import { describe, expect, it } from 'vitest';
import { createCollection } from '../../support/contentModel.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createItem, createMember, withHelpers, type AccessSite } from '../access/support.ts';
import { createRole } from '../identity/support/identity.ts';

const service = await startTestServiceForFile();

const EMAIL = 'patient-7@example.test';
const DIAGNOSIS = 'a very private diagnosis';

interface Entry {
  at: string;
  actor: { kind: string; id: string | null };
  collection: string;
  itemId: string;
  fields: string[];
  sensitivity: string;
  requestId?: string;
}

/** A site with `patients` (name; email pii; diagnosis phi), one patient, and an editor (admin role). */
async function siteWithPatients() {
  const site = withHelpers(service, await createTestSite(service, 'fal'));
  await createCollection(service, site, 'patients', [
    { field: 'name', type: 'string' },
    { field: 'email', type: 'string', sensitivity: 'pii' },
    { field: 'diagnosis', type: 'text', sensitivity: 'phi' },
  ]);
  const editor = await createMember(service, site, { roleId: await createRole(service, site.siteId, { admin: true }) });
  const patient = await createItem(site, 'patients', { name: 'Pat', email: EMAIL, diagnosis: DIAGNOSIS });
  return { site, editor, patient };
}

async function readLog(site: AccessSite, query = ''): Promise<{ status: number; entries: Entry[]; body: any }> {
  await service.context.daemon.drain();
  const response = await site.admin('GET', `/admin/field-access-log${query}`);
  return { status: response.status, entries: response.body.data ?? [], body: response.body };
}

describe('the field access log', () => {
  it('lists who read which sensitive fields of which record and when, newest first, never the values', async () => {
    const { site, editor, patient } = await siteWithPatients();
    const before = await readLog(site);
    expect((await site.as(editor.token, 'GET', `/items/patients/${patient.id}`)).status).toBe(200);
    expect((await site.as(editor.token, 'GET', '/items/patients?fields=name,email')).status).toBe(200);

    const { status, entries, body } = await readLog(site);
    expect(status).toBe(200);
    const added = entries.slice(0, entries.length - before.entries.length);
    // The list read (email only) is newer than the item read (email as pii, diagnosis as phi).
    expect(added).toEqual([
      { at: expect.any(String), actor: { kind: 'user', id: editor.userId }, collection: 'patients', itemId: patient.id, fields: ['email'], sensitivity: 'pii', requestId: expect.any(String) },
      { at: expect.any(String), actor: { kind: 'user', id: editor.userId }, collection: 'patients', itemId: patient.id, fields: expect.any(Array), sensitivity: expect.any(String), requestId: expect.any(String) },
      { at: expect.any(String), actor: { kind: 'user', id: editor.userId }, collection: 'patients', itemId: patient.id, fields: expect.any(Array), sensitivity: expect.any(String), requestId: expect.any(String) },
    ]);
    expect(added.slice(1).map((entry) => [entry.sensitivity, entry.fields]).sort()).toEqual([['phi', ['diagnosis']], ['pii', ['email']]]);
    const times = entries.map((entry) => entry.at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(body.meta).toEqual({ total: entries.length, page: 1, pageSize: 25 });
    expect(JSON.stringify(body)).not.toContain(EMAIL);
    expect(JSON.stringify(body)).not.toContain(DIAGNOSIS);
  });

  it('filters by actor, collection, item id and time', async () => {
    const { site, editor, patient } = await siteWithPatients();
    const other = await createItem(site, 'patients', { name: 'Other', email: 'other@example.test' });
    await site.as(editor.token, 'GET', `/items/patients/${patient.id}?fields=email`);
    await site.admin('GET', `/items/patients/${other.id}?fields=email`);
    await service.context.daemon.drain();
    const cut = new Date().toISOString();

    const byEditor = await readLog(site, `?filter[actor][_eq]=${editor.userId}`);
    expect(byEditor.entries.map((entry) => [entry.actor.id, entry.itemId])).toEqual([[editor.userId, patient.id]]);
    const byEither = await readLog(site, `?filter=${encodeURIComponent(JSON.stringify({ actor: { _in: [editor.userId, site.adminUserId] } }))}`);
    expect(byEither.entries.map((entry) => entry.actor.id)).toContain(site.adminUserId);
    expect(byEither.entries.map((entry) => entry.actor.id)).toContain(editor.userId);

    const byItem = await readLog(site, `?filter[itemId][_eq]=${other.id}`);
    expect(byItem.entries.length).toBeGreaterThan(0);
    expect(byItem.entries.every((entry) => entry.itemId === other.id)).toBe(true);
    expect((await readLog(site, '?filter[collection][_eq]=patients')).entries.length).toBe(byEither.entries.length);
    expect((await readLog(site, '?filter[collection][_eq]=nothing')).entries).toEqual([]);

    expect((await readLog(site, `?filter[at][_gt]=${cut}`)).entries).toEqual([]);
    const window = await readLog(site, `?filter[at][_gte]=2000-01-01T00:00:00Z&filter[at][_lte]=${cut}`);
    expect(window.entries.length).toBe(byEither.entries.length);
    expect((await readLog(site, '?filter[at][_lt]=2000-01-01T00:00:00Z')).entries).toEqual([]);
  });

  it('pages the entries', async () => {
    const { site, patient } = await siteWithPatients();
    for (let index = 0; index < 3; index += 1) await site.admin('GET', `/items/patients/${patient.id}?fields=email`);
    const all = await readLog(site);
    const second = await readLog(site, '?limit=2&page=2');
    expect(second.body.meta).toEqual({ total: all.entries.length, page: 2, pageSize: 2 });
    expect(second.entries).toEqual(all.entries.slice(2, 4));
  });

  it('refuses filters it does not serve, with their path', async () => {
    const { site } = await siteWithPatients();
    const unknown = await readLog(site, '?filter[field][_eq]=email');
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].code).toBe('VALIDATION_FAILED');
    const operator = await readLog(site, '?filter[collection][_starts_with]=pat');
    expect(operator.status).toBe(400);
    expect(operator.body.errors[0].path).toEqual(expect.arrayContaining(['collection']));
  });

  it('is for site administrators only', async () => {
    const { site } = await siteWithPatients();
    const member = await createMember(service, site);
    const refused = await site.as(member.token, 'GET', '/admin/field-access-log');
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].code).toBe('PERMISSION_DENIED');
    const anonymous = await site.as(null, 'GET', '/admin/field-access-log');
    expect(anonymous.status).toBe(401);
  });

  it('never lists another site’s reads', async () => {
    const { site } = await siteWithPatients();
    const other = await siteWithPatients();
    await other.site.as(other.editor.token, 'GET', `/items/patients/${other.patient.id}`);
    const { entries } = await readLog(site);
    expect(entries.some((entry) => entry.itemId === other.patient.id || entry.actor.id === other.editor.userId)).toBe(false);
    expect((await readLog(site, `?filter[itemId][_eq]=${other.patient.id}`)).entries).toEqual([]);
    expect((await readLog(other.site, `?filter[itemId][_eq]=${other.patient.id}`)).entries.length).toBeGreaterThan(0);
  });
});
