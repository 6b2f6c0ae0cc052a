// Presets' scope rules over real HTTP (docs/presets.md): the effective default view by precedence
// (user, then the role chain nearest first, then global), bookmarks each caller sees, and who may
// create, change, move and delete presets of each scope.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createPreset, createPresetSite, createRole, effective, expectError, member, read, type PresetSite } from './support/presetHelpers.ts';

const service = await startTestServiceForFile();

/** A chain grandparent ← parent ← child of roles, and a member of the child role. */
async function roleChain(site: PresetSite) {
  const grandparent = await createRole(site);
  const parent = await createRole(site, grandparent);
  const child = await createRole(site, parent);
  return { grandparent, parent, child, someone: await member(site, child) };
}

describe('the effective default view', () => {
  it('is the user’s, then the nearest role’s, then the global one, falling back as each is deleted', async () => {
    const site = await createPresetSite(service);
    const { grandparent, parent, child, someone } = await roleChain(site);
    expect(await effective(site, someone.token)).toBeNull();
    const global = await createPreset(site, { layout: 'global' });
    expect(await effective(site, someone.token)).toEqual({ layout: 'global', sourceScope: 'global' });
    const ofGrandparent = await createPreset(site, { layout: 'grandparent', roleId: grandparent });
    expect(await effective(site, someone.token)).toEqual({ layout: 'grandparent', sourceScope: 'role' });
    const ofParent = await createPreset(site, { layout: 'parent', roleId: parent });
    expect(await effective(site, someone.token)).toEqual({ layout: 'parent', sourceScope: 'role' });
    const ofChild = await createPreset(site, { layout: 'child', roleId: child });
    expect(await effective(site, someone.token)).toEqual({ layout: 'child', sourceScope: 'role' });
    const own = await createPreset(site, { layout: 'own', userId: someone.userId }, someone.token);
    expect(await effective(site, someone.token)).toEqual({ layout: 'own', sourceScope: 'user' });
    // Bookmarks never take part.
    await createPreset(site, { layout: 'bookmark', bookmark: 'Saved', userId: someone.userId }, someone.token);

    const remove = async (id: string, token = site.adminToken) => expect((await site.as(token, 'DELETE', `/presets/${id}`)).status).toBe(204);
    await remove(own.id, someone.token);
    expect(await effective(site, someone.token)).toEqual({ layout: 'child', sourceScope: 'role' });
    await remove(ofChild.id);
    expect(await effective(site, someone.token)).toEqual({ layout: 'parent', sourceScope: 'role' });
    await remove(ofParent.id);
    expect(await effective(site, someone.token)).toEqual({ layout: 'grandparent', sourceScope: 'role' });
    await remove(ofGrandparent.id);
    expect(await effective(site, someone.token)).toEqual({ layout: 'global', sourceScope: 'global' });
    await remove(global.id);
    expect(await effective(site, someone.token)).toBeNull();
  });

  it('gives each caller their own: another user’s and another role’s presets never apply', async () => {
    const site = await createPresetSite(service);
    const { child, someone } = await roleChain(site);
    const sibling = await createRole(site);
    const neighbour = await member(site, sibling);
    await createPreset(site, { layout: 'global' });
    await createPreset(site, { layout: 'sibling', roleId: sibling });
    await createPreset(site, { layout: 'child', roleId: child });
    await createPreset(site, { layout: 'mine', userId: neighbour.userId }, neighbour.token);
    expect(await effective(site, someone.token)).toEqual({ layout: 'child', sourceScope: 'role' });
    expect(await effective(site, neighbour.token)).toEqual({ layout: 'mine', sourceScope: 'user' });
    const roleless = await member(site);
    expect(await effective(site, roleless.token)).toEqual({ layout: 'global', sourceScope: 'global' });
    const full = await read(site, someone.token, '/presets/effective?collection=articles');
    expect(full).toMatchObject({ collection: 'articles', bookmark: null, roleId: child, userId: null, scope: 'role', sourceScope: 'role' });
    expect(await read(site, someone.token, '/presets/effective?collection=unknown')).toBeNull();
  });

  it('survives a cycle in the role chain', async () => {
    const site = await createPresetSite(service);
    const { grandparent, child, someone } = await roleChain(site);
    // A cycle cannot be made through the roles API; it is written straight in the read model to prove the walk is bounded.
    const updated = await service.context.database.withSite(site.siteId, (tx) =>
      tx.query(sql`UPDATE roles SET parent_id = ${child}::uuid WHERE site_id = ${site.siteId} AND id = ${grandparent}::uuid RETURNING id`),
    );
    expect(updated).toHaveLength(1);
    await createPreset(site, { layout: 'grandparent', roleId: grandparent });
    expect(await effective(site, someone.token)).toEqual({ layout: 'grandparent', sourceScope: 'role' });
  });
});

describe('bookmarks', () => {
  it('are the caller’s own, their role chain’s and the global ones, by name; never another user’s or role’s', async () => {
    const site = await createPresetSite(service);
    const { grandparent, child, someone } = await roleChain(site);
    const sibling = await createRole(site);
    const neighbour = await member(site, sibling);
    await createPreset(site, { bookmark: 'Zeta', userId: someone.userId }, someone.token);
    await createPreset(site, { bookmark: 'alpha' });
    await createPreset(site, { bookmark: 'Beta', roleId: grandparent });
    await createPreset(site, { bookmark: 'Gamma', roleId: child });
    await createPreset(site, { bookmark: 'Hidden', roleId: sibling });
    await createPreset(site, { bookmark: 'Secret', userId: neighbour.userId }, neighbour.token);
    await createPreset(site, {});
    const seen = await read(site, someone.token, '/presets/bookmarks?collection=articles');
    expect(seen.map((b: { bookmark: string; sourceScope: string }) => [b.bookmark, b.sourceScope])).toEqual([
      ['alpha', 'global'],
      ['Beta', 'role'],
      ['Gamma', 'role'],
      ['Zeta', 'user'],
    ]);
    const theirs = await read(site, neighbour.token, '/presets/bookmarks?collection=articles');
    expect(theirs.map((b: { bookmark: string }) => b.bookmark)).toEqual(['alpha', 'Hidden', 'Secret']);
    // The list follows the same rule for members; an administrator sees all.
    const listed = await read(site, someone.token, '/presets');
    expect(listed.map((p: { bookmark: string | null }) => p.bookmark).sort()).toEqual([null, 'alpha', 'Beta', 'Gamma', 'Zeta'].sort());
    expect((await site.admin('GET', '/presets')).body.meta.total).toBe(7);
  });
});

describe('scope authorization', () => {
  it('lets a member create, change and delete only their own user presets', async () => {
    const site = await createPresetSite(service);
    const roleId = await createRole(site);
    const someone = await member(site, roleId);
    const other = await member(site, roleId);
    const post = (body: Record<string, unknown>) => site.as(someone.token, 'POST', '/presets', { collection: 'articles', layout: 'table', ...body });
    expectError(await post({}), 403, 'PERMISSION_DENIED');
    expectError(await post({ roleId }), 403, 'PERMISSION_DENIED');
    expectError(await post({ userId: other.userId }), 403, 'PERMISSION_DENIED');
    // Refused for the scope before the body's content is looked at.
    expectError(await post({ userId: other.userId, query: { fields: ['nope'] } }), 403, 'PERMISSION_DENIED');
    const own = await createPreset(site, { userId: someone.userId }, someone.token);
    expectError(await post({ userId: someone.userId, query: { fields: ['nope'] } }), 400, 'VALIDATION_FAILED', ['body', 'query', 'fields', 0]);

    const global = await createPreset(site, {});
    const ofRole = await createPreset(site, { roleId });
    const ofOther = await createPreset(site, { userId: other.userId });
    for (const preset of [global, ofRole, ofOther]) {
      expectError(await site.as(someone.token, 'PATCH', `/presets/${preset.id}`, { layout: 'map' }), 403, 'PERMISSION_DENIED');
      expectError(await site.as(someone.token, 'DELETE', `/presets/${preset.id}`), 403, 'PERMISSION_DENIED');
    }
    expectError(await site.as(someone.token, 'GET', `/presets/${ofOther.id}`), 403, 'PERMISSION_DENIED');
    expect(await read(site, someone.token, `/presets/${ofRole.id}`)).toMatchObject({ layout: 'table', scope: 'role' });
    const patched = await site.as(someone.token, 'PATCH', `/presets/${own.id}`, { layout: 'calendar' });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect((await site.as(someone.token, 'DELETE', `/presets/${own.id}`)).status).toBe(204);
    const unchanged = await site.admin('GET', '/presets');
    expect(unchanged.body.data.map((p: { layout: string }) => p.layout)).toEqual(['table', 'table', 'table']);
  });

  it('authorizes a PATCH that moves a preset against both the old and the new scope', async () => {
    const site = await createPresetSite(service);
    const roleId = await createRole(site);
    const someone = await member(site, roleId);
    const other = await member(site, roleId);
    const own = await createPreset(site, { userId: someone.userId }, someone.token);
    const patch = (token: string, id: string, body: Record<string, unknown>) => site.as(token, 'PATCH', `/presets/${id}`, body);
    expectError(await patch(someone.token, own.id, { userId: null }), 403, 'PERMISSION_DENIED');
    expectError(await patch(someone.token, own.id, { roleId }), 403, 'PERMISSION_DENIED');
    expectError(await patch(someone.token, own.id, { userId: other.userId }), 403, 'PERMISSION_DENIED');
    const ofOther = await createPreset(site, { userId: other.userId });
    expectError(await patch(someone.token, ofOther.id, { userId: someone.userId }), 403, 'PERMISSION_DENIED');
    // An administrator moves presets between every scope; naming roleId clears userId.
    const toRole = await patch(site.adminToken, own.id, { roleId });
    expect(toRole.body.data).toMatchObject({ userId: null, roleId, scope: 'role' });
    const toGlobal = await patch(site.adminToken, own.id, { roleId: null });
    expect(toGlobal.body.data).toMatchObject({ userId: null, roleId: null, scope: 'global' });
    const toUser = await patch(site.adminToken, own.id, { userId: someone.userId });
    expect(toUser.body.data).toMatchObject({ userId: someone.userId, scope: 'user' });
    expectError(await patch(site.adminToken, own.id, { userId: someone.userId, roleId }), 400, 'VALIDATION_FAILED', ['body', 'roleId']);
  });

  it('lets an administrator manage every scope, and API keys act as their principal', async () => {
    const site = await createPresetSite(service);
    const roleId = await createRole(site);
    const someone = await member(site, roleId);
    const userKey = await site.admin('POST', '/api-keys', { name: 'k', userId: someone.userId });
    expect(userKey.status, JSON.stringify(userKey.body)).toBe(201);
    const roleKey = await site.admin('POST', '/api-keys', { name: 'r', roleId });
    const key = userKey.body.data.key as string;
    const mine = await createPreset(site, { userId: someone.userId, layout: 'keyed' }, key);
    expectError(await site.as(key, 'POST', '/presets', { collection: 'articles', layout: 'table' }), 403, 'PERMISSION_DENIED');
    expect(await effective(site, someone.token)).toEqual({ layout: 'keyed', sourceScope: 'user' });
    await createPreset(site, { roleId, layout: 'role' });
    // A key bound to a role speaks for no user: it sees its role's presets, and may create none.
    expect(await effective(site, roleKey.body.data.key)).toEqual({ layout: 'role', sourceScope: 'role' });
    expectError(await site.as(roleKey.body.data.key, 'POST', '/presets', { collection: 'articles', layout: 'table', userId: someone.userId }), 403, 'PERMISSION_DENIED');
    expect((await site.admin('PATCH', `/presets/${mine.id}`, { layout: 'admin' })).status).toBe(200);
    expect((await site.admin('DELETE', `/presets/${mine.id}`)).status).toBe(204);
  });
});
