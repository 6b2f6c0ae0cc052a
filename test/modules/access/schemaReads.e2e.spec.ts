import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createContentModel, createMember, createRole, grant, withHelpers } from './support.ts';

const service = await startTestServiceForFile();

describe('schema reads for non-administrators', () => {
  it('shows the collections and fields the member holds permissions on, and keeps changes for administrators', async () => {
    const site = withHelpers(service, await createTestSite(service));
    await createContentModel(site);
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [
      { collection: 'articles', action: 'read', fields: ['title'] },
      { collection: 'articles', action: 'update', fields: ['body'] },
    ]);
    const member = await createMember(service, site, { roleId: role.id });

    const collections = await site.as(member.token, 'GET', '/collections');
    expect(collections.status).toBe(200);
    expect(collections.body.data.map((collection: { name: string }) => collection.name)).toEqual(['articles']);
    expect((await site.as(member.token, 'GET', '/collections/articles')).body.data.name).toBe('articles');
    const hidden = await site.as(member.token, 'GET', '/collections/authors');
    expect(hidden.status).toBe(403);
    expect(hidden.body.errors[0].code).toBe('PERMISSION_DENIED');
    expect((await site.as(member.token, 'GET', '/collections/ghosts')).status).toBe(403);

    const fields = await site.as(member.token, 'GET', '/fields/articles');
    expect(fields.body.data.map((field: { field: string }) => field.field)).toEqual(['title', 'body']);
    expect((await site.as(member.token, 'GET', '/fields/articles/title')).status).toBe(200);
    expect((await site.as(member.token, 'GET', '/fields/articles/rating')).status).toBe(404);
    expect((await site.as(member.token, 'GET', '/fields/authors')).status).toBe(403);
    // The relation between articles and authors touches a collection the member cannot see.
    expect((await site.as(member.token, 'GET', '/relations')).body.data).toEqual([]);
    const relations = (await site.admin('GET', '/relations')).body.data;
    expect(relations).toHaveLength(1);
    expect((await site.as(member.token, 'GET', `/relations/${relations[0].id}`)).status).toBe(404);

    for (const [method, path, body] of [
      ['POST', '/collections', { name: 'mine', fields: [] }],
      ['PATCH', '/collections/articles', { note: 'x' }],
      ['DELETE', '/collections/articles', undefined],
      ['POST', '/fields/articles', { field: 'extra', type: 'string' }],
      ['GET', '/collections/articles/schema', undefined],
    ] as const) {
      expect((await site.as(member.token, method, path, body)).status, `${method} ${path}`).toBe(403);
    }
    expect((await site.as(null, 'GET', '/collections')).status).toBe(401);
    expect((await site.admin('GET', '/collections')).body.data).toHaveLength(2);
  });
});
