// The rules that keep sealed values bound to their record and field (docs/privacy.md): a pii/phi
// field is never translatable, a configuration import never renames one, a write cannot point one
// field at another field's sealed value, an erasure is confirmed by a signed-in administrator (not
// an API key), read_decrypted conditions on an item's structural fields hold on every read, and a
// value sent again unchanged records no change.
import { describe, expect, it } from 'vitest';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { createCollection } from '../../support/contentModel.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createMember, createRole, grant, withHelpers, type AccessSite } from '../access/support.ts';
import { configSite, manifest } from '../config/support.ts';
import { createRole as createAdminRole } from '../identity/support/identity.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();

async function peopleSite(): Promise<AccessSite> {
  const site = withHelpers(service, await createTestSite(service, 'sealrules'));
  await createCollection(service, site, 'people', [
    { field: 'name', type: 'string' },
    { field: 'email', type: 'string', sensitivity: 'pii' },
    { field: 'phone', type: 'string', sensitivity: 'pii' },
  ]);
  return site;
}

describe('the schema', () => {
  it('refuses a translatable pii/phi field, on create and on update', async () => {
    const site = await peopleSite();
    const created = await site.admin('POST', '/fields/people', { field: 'bio', type: 'text', sensitivity: 'phi', options: { translatable: true } });
    expect(created.status, JSON.stringify(created.body)).toBe(400);
    expect(created.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'sensitivity'] });
    expect((await site.admin('POST', '/fields/people', { field: 'motto', type: 'text', options: { translatable: true } })).status).toBe(201);
    const updated = await site.admin('PATCH', '/fields/people/motto', { sensitivity: 'pii' });
    expect(updated.status, JSON.stringify(updated.body)).toBe(400);
    expect((await site.admin('PATCH', '/fields/people/email', { options: { translatable: true } })).status).toBe(400);
  });

  it('refuses a configuration import that renames a pii field, applying nothing', async () => {
    const config = await configSite(service);
    const fields = [
      { collection: 'people', field: 'name', type: 'string' },
      { collection: 'people', field: 'email', type: 'string', sensitivity: 'pii' },
    ];
    await config.apply(manifest({ collections: [{ name: 'people' }], fields, relations: [] }));
    expect((await config.call('POST', '/items/people', { name: 'Ada', email: 'ada@example.test' })).status).toBe(201);
    const renamed = manifest({ collections: [{ name: 'people' }], fields: [fields[0], { ...fields[1], id: 'people.email', field: 'mail' }], relations: [] });
    const dry = await config.dryRun(renamed);
    expect(dry.errors).toEqual([expect.objectContaining({ code: 'VALIDATION_FAILED', message: expect.stringContaining('cannot be renamed') })]);
    expect((await config.importManifest(renamed)).status).toBe(400);
    const read = await config.call('GET', '/items/people?fields=name,email');
    expect(read.body.data).toEqual([{ name: 'Ada', email: 'ada@example.test' }]);
  });
});

describe('writes', () => {
  it('refuses a reference to the value of another field of the same record', async () => {
    const site = await peopleSite();
    const ada = (await site.admin('POST', '/items/people', { name: 'Ada', email: 'ada@example.test' })).body.data;
    const { rows } = await owner.query<{ email: string }>(`SELECT data->>'email' AS email FROM items WHERE site_id = $1 AND id = $2`, [site.siteId, ada.id]);
    const reference = rows[0]!.email;
    expect(reference).toMatch(/^svc:sealed:/);
    const moved = await site.admin('PATCH', `/items/people/${ada.id}`, { phone: reference });
    expect(moved.status, JSON.stringify(moved.body)).toBe(400);
    expect(moved.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'phone'] });
    expect((await site.admin('GET', `/items/people/${ada.id}`)).body.data).toMatchObject({ email: 'ada@example.test', phone: null });
  });
});

describe('unchanged values', () => {
  it('records no change for a pii value sent again as it is, and keeps its sealed value', async () => {
    const site = await peopleSite();
    const ada = (await site.admin('POST', '/items/people', { name: 'Ada', email: 'ada@example.test' })).body.data;
    const stored = async () => {
      const { rows } = await owner.query<{ email: string; version: number }>(`SELECT data->>'email' AS email, version FROM items WHERE site_id = $1 AND id = $2`, [site.siteId, ada.id]);
      return rows[0]!;
    };
    const before = await stored();
    expect((await site.admin('PATCH', `/items/people/${ada.id}`, { email: 'ada@example.test' })).status).toBe(200);
    expect(await stored()).toEqual(before);
    expect((await site.admin('PATCH', `/items/people/${ada.id}`, { name: 'Ada L.', email: 'ada@example.test' })).status).toBe(200);
    const after = await stored();
    expect(after).toEqual({ email: before.email, version: before.version + 1 });
    const { rows } = await owner.query<{ delta: Record<string, unknown> }>(
      `SELECT data->'delta' AS delta FROM events WHERE site_id = $1 AND stream_id = $2 ORDER BY position DESC LIMIT 1`,
      [site.siteId, `${site.siteId}/item/people/${ada.id}`],
    );
    expect(rows[0]!.delta).toEqual({ name: 'Ada L.' });
    expect((await site.admin('PATCH', `/items/people/${ada.id}`, { email: 'ada@lovelace.test' })).status).toBe(200);
    expect((await stored()).email).not.toBe(before.email);
    expect((await site.admin('GET', `/items/people/${ada.id}`)).body.data.email).toBe('ada@lovelace.test');
  });
});

describe('read_decrypted conditions', () => {
  it('judges a condition on a structural field the same way in a read, a list and a write answer', async () => {
    const site = await peopleSite();
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [
      { collection: 'people', action: 'read' },
      { collection: 'people', action: 'update' },
      { collection: 'people', action: 'read_decrypted', fields: ['email'], conditions: { status: { _eq: 'open' } } },
    ]);
    const member = await createMember(service, site, { roleId: role.id });
    const open = (await site.admin('POST', '/items/people', { name: 'Open', status: 'open', email: 'open@example.test' })).body.data;
    const closed = (await site.admin('POST', '/items/people', { name: 'Closed', status: 'closed', email: 'closed@example.test' })).body.data;
    expect((await site.as(member.token, 'GET', `/items/people/${open.id}`)).body.data.email).toBe('open@example.test');
    expect((await site.as(member.token, 'GET', `/items/people/${closed.id}`)).body.data.email).toBe('[encrypted]');
    const list = (await site.as(member.token, 'GET', '/items/people?sort=name')).body.data;
    expect(list.map((person: { email: string }) => person.email)).toEqual(['[encrypted]', 'open@example.test']);
    const written = await site.as(member.token, 'PATCH', `/items/people/${closed.id}`, { name: 'Still closed' });
    expect(written.body.data.email).toBe('[encrypted]');
  });
});

describe('erasure confirmation', () => {
  it('refuses a confirmation through an API key, even one bound to another administrator', async () => {
    const site = await peopleSite();
    const second = await createMember(service, site, { roleId: await createAdminRole(service, site.siteId, { admin: true }) });
    await site.admin('POST', '/items/people', { name: 'Ada', email: 'ada@example.test' });
    const requested = await site.admin('POST', '/admin/erasure', { collection: 'people', filter: { email: { _eq: 'ada@example.test' } }, reason: 'test' });
    expect(requested.status, JSON.stringify(requested.body)).toBe(201);
    const key = await site.admin('POST', '/api-keys', { name: 'for the second admin', userId: second.userId });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    const viaKey = await site.as(key.body.data.key, 'POST', `/admin/erasure/${requested.body.data.id}/confirm`);
    expect(viaKey.status, JSON.stringify(viaKey.body)).toBe(403);
    expect((await site.as(second.token, 'POST', `/admin/erasure/${requested.body.data.id}/confirm`)).status).toBe(200);
  });
});
