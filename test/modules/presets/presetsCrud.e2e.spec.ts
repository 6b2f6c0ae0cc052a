// The presets API over real HTTP (docs/presets.md): create, list, read, change, delete; the query
// checked by the query language with its paths; one default view and unique bookmark names per scope;
// a deleted collection or user takes its presets; another site's presets are 404 and never listed.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createPreset, createPresetSite, createRole, expectError, member, read } from './support/presetHelpers.ts';

const service = await startTestServiceForFile();

describe('presets: create, read, list, change, delete', () => {
  it('creates a global default view with the documented defaults and reads it back', async () => {
    const site = await createPresetSite(service);
    const preset = await createPreset(site, { layout: 'cards', query: { fields: ['title', 'views'], sort: ['-views'], limit: 50, filter: { published: { _eq: true } }, search: 'x' } });
    expect(preset).toMatchObject({
      collection: 'articles',
      bookmark: null,
      userId: null,
      roleId: null,
      scope: 'global',
      layout: 'cards',
      query: { fields: ['title', 'views'], sort: ['-views'], limit: 50, filter: { published: { _eq: true } }, search: 'x' },
      options: {},
      icon: null,
      color: null,
    });
    expect(await read(site, site.adminToken, `/presets/${preset.id}`)).toEqual(preset);
  });

  it('lists every preset to an administrator, oldest first, paged and by collection', async () => {
    const site = await createPresetSite(service);
    await site.admin('POST', '/collections', { name: 'pages', fields: [{ field: 'title', type: 'string' }] });
    const roleId = await createRole(site);
    const someone = await member(site);
    const a = await createPreset(site, {});
    const b = await createPreset(site, { roleId });
    const c = await createPreset(site, { userId: someone.userId, bookmark: 'Mine' });
    const d = await createPreset(site, { collection: 'pages' });
    const listed = await site.admin('GET', '/presets');
    expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([a.id, b.id, c.id, d.id]);
    expect(listed.body.meta).toEqual({ total: 4, page: 1, pageSize: 25 });
    const page = await site.admin('GET', '/presets?collection=articles&limit=2&page=2');
    expect(page.body.data.map((p: { id: string }) => p.id)).toEqual([c.id]);
    expect(page.body.meta).toEqual({ total: 3, page: 2, pageSize: 2 });
    expect(c.scope).toBe('user');
    expect(b.scope).toBe('role');
    expectError(await site.admin('GET', '/presets?limit=0'), 400, 'VALIDATION_FAILED', ['query', 'limit']);
  });

  it('PATCH changes the given fields, DELETE removes the preset', async () => {
    const site = await createPresetSite(service);
    const preset = await createPreset(site, { bookmark: 'Popular', query: { sort: ['-views'] } });
    const patched = await site.admin('PATCH', `/presets/${preset.id}`, { layout: 'kanban', options: { groupBy: 'published' }, icon: 'star', color: '#336699' });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data).toMatchObject({ bookmark: 'Popular', layout: 'kanban', options: { groupBy: 'published' }, icon: 'star', color: '#336699', query: { sort: ['-views'] } });
    expect(Date.parse(patched.body.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(preset.updatedAt));
    expect((await site.admin('DELETE', `/presets/${preset.id}`)).status).toBe(204);
    expectError(await site.admin('GET', `/presets/${preset.id}`), 404, 'NOT_FOUND');
    expectError(await site.admin('PATCH', `/presets/${preset.id}`, { layout: 'map' }), 404, 'NOT_FOUND');
    expectError(await site.admin('DELETE', `/presets/${preset.id}`), 404, 'NOT_FOUND');
    expectError(await site.admin('DELETE', '/presets/not-a-uuid'), 404, 'NOT_FOUND');
  });
});

describe('presets: refusals', () => {
  it('checks the query with the query language, at its path under body.query', async () => {
    const site = await createPresetSite(service);
    const refuse = async (query: unknown, path: (string | number)[]) =>
      expectError(await site.admin('POST', '/presets', { collection: 'articles', layout: 'table', query }), 400, 'VALIDATION_FAILED', path);
    await refuse({ fields: ['title', 'nope'] }, ['body', 'query', 'fields', 1]);
    await refuse({ fields: ['title;drop'] }, ['body', 'query', 'fields', 0]);
    await refuse({ sort: ['views', '-missing'] }, ['body', 'query', 'sort', 1]);
    await refuse({ sort: ['title desc'] }, ['body', 'query', 'sort', 0]);
    await refuse({ filter: { missing: { _eq: 1 } } }, ['body', 'query', 'filter', 'missing']);
    await refuse({ filter: { views: { _nope: 1 } } }, ['body', 'query', 'filter', 'views', '_nope']);
    await refuse({ limit: 0 }, ['body', 'query', 'limit']);
    await refuse({ limit: 201 }, ['body', 'query', 'limit']);
    await refuse({ page: 2 }, ['body', 'query']);
    expect((await site.admin('GET', '/presets')).body.meta.total).toBe(0);
  });

  it('refuses an unknown collection, a bad layout, options, color, user or role, and both scopes at once', async () => {
    const site = await createPresetSite(service);
    const other = await createPresetSite(service, 'presetsx');
    const otherRole = await createRole(other);
    const refuse = async (body: Record<string, unknown>, path: (string | number)[]) =>
      expectError(await site.admin('POST', '/presets', { collection: 'articles', layout: 'table', ...body }), 400, 'VALIDATION_FAILED', path);
    await refuse({ collection: 'nothing' }, ['body', 'collection']);
    await refuse({ layout: '' }, ['body', 'layout']);
    await refuse({ layout: 'x'.repeat(51) }, ['body', 'layout']);
    await refuse({ options: { big: 'x'.repeat(17_000) } }, ['body', 'options']);
    await refuse({ options: [1] }, ['body', 'options']);
    await refuse({ color: 'red' }, ['body', 'color']);
    await refuse({ userId: randomUUID() }, ['body', 'userId']);
    await refuse({ userId: other.adminUserId }, ['body', 'userId']);
    await refuse({ roleId: randomUUID() }, ['body', 'roleId']);
    await refuse({ roleId: otherRole }, ['body', 'roleId']);
    await refuse({ userId: site.adminUserId, roleId: await createRole(site) }, ['body', 'roleId']);
    await refuse({ extra: 1 }, ['body']);
    expect((await site.admin('GET', '/presets')).body.meta.total).toBe(0);
    expectError(await site.admin('GET', '/presets/effective'), 400, 'VALIDATION_FAILED', ['query', 'collection']);
    expectError(await site.admin('GET', '/presets/bookmarks'), 400, 'VALIDATION_FAILED', ['query', 'collection']);
  });

  it('allows one default view and one bookmark of a name per scope and collection (409)', async () => {
    const site = await createPresetSite(service);
    const roleId = await createRole(site);
    await createPreset(site, {});
    await createPreset(site, { roleId });
    await createPreset(site, { userId: site.adminUserId });
    expectError(await site.admin('POST', '/presets', { collection: 'articles', layout: 'map' }), 409, 'CONFLICT', ['body', 'bookmark']);
    expectError(await site.admin('POST', '/presets', { collection: 'articles', layout: 'map', roleId }), 409, 'CONFLICT', ['body', 'bookmark']);
    const saved = await createPreset(site, { bookmark: 'Drafts' });
    await createPreset(site, { bookmark: 'Drafts', roleId });
    expectError(await site.admin('POST', '/presets', { collection: 'articles', layout: 'map', bookmark: 'drafts' }), 409, 'CONFLICT', ['body', 'bookmark']);
    const other = await createPreset(site, { bookmark: 'Other' });
    expectError(await site.admin('PATCH', `/presets/${other.id}`, { bookmark: 'DRAFTS' }), 409, 'CONFLICT', ['body', 'bookmark']);
    expectError(await site.admin('PATCH', `/presets/${other.id}`, { bookmark: null }), 409, 'CONFLICT', ['body', 'bookmark']);
    expectError(await site.admin('PATCH', `/presets/${saved.id}`, { roleId }), 409, 'CONFLICT', ['body', 'bookmark']);
    expect((await site.admin('PATCH', `/presets/${saved.id}`, { bookmark: 'drafts' })).status).toBe(200);
    expect((await site.admin('GET', '/presets')).body.meta.total).toBe(6);
  });

  it('answers 401 without credentials', async () => {
    const site = await createPresetSite(service);
    const preset = await createPreset(site, {});
    expectError(await site.as(null, 'GET', '/presets'), 401, 'UNAUTHENTICATED');
    expectError(await site.as(null, 'GET', '/presets/effective?collection=articles'), 401, 'UNAUTHENTICATED');
    expectError(await site.as(null, 'GET', '/presets/bookmarks?collection=articles'), 401, 'UNAUTHENTICATED');
    expectError(await site.as(null, 'POST', '/presets', { collection: 'articles', layout: 'table' }), 401, 'UNAUTHENTICATED');
    expectError(await site.as(null, 'GET', `/presets/${preset.id}`), 401, 'UNAUTHENTICATED');
    expectError(await site.as(null, 'PATCH', `/presets/${preset.id}`, { layout: 'map' }), 401, 'UNAUTHENTICATED');
    expectError(await site.as(null, 'DELETE', `/presets/${preset.id}`), 401, 'UNAUTHENTICATED');
  });
});

describe('presets: what goes with a collection, a user, and another site', () => {
  it('drops the presets of a deleted collection and of a deleted user', async () => {
    const site = await createPresetSite(service);
    await site.admin('POST', '/collections', { name: 'pages', fields: [{ field: 'title', type: 'string' }] });
    const someone = await member(site);
    const kept = await createPreset(site, {});
    await createPreset(site, { collection: 'pages' });
    await createPreset(site, { userId: someone.userId, bookmark: 'Mine' });
    expect((await site.admin('DELETE', '/collections/pages')).status).toBe(204);
    expect((await site.admin('DELETE', `/users/${someone.userId}`)).status).toBe(204);
    const listed = await site.admin('GET', '/presets');
    expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([kept.id]);
  });

  it('answers 404 for another site’s presets and never lists, changes or counts them', async () => {
    const site = await createPresetSite(service);
    const other = await createPresetSite(service, 'presetsx');
    const theirs = await createPreset(other, { bookmark: 'Theirs' });
    await createPreset(other, {});
    expectError(await site.admin('GET', `/presets/${theirs.id}`), 404, 'NOT_FOUND');
    expectError(await site.admin('PATCH', `/presets/${theirs.id}`, { layout: 'map' }), 404, 'NOT_FOUND');
    expectError(await site.admin('DELETE', `/presets/${theirs.id}`), 404, 'NOT_FOUND');
    expect((await site.admin('GET', '/presets')).body).toEqual({ data: [], meta: { total: 0, page: 1, pageSize: 25 } });
    expect(await read(site, site.adminToken, '/presets/effective?collection=articles')).toBeNull();
    expect(await read(site, site.adminToken, '/presets/bookmarks?collection=articles')).toEqual([]);
    expect(await read(other, other.adminToken, `/presets/${theirs.id}`)).toMatchObject({ layout: 'table', bookmark: 'Theirs' });
  });
});
