// Permissions applied through the items API: row conditions, field lists, 404 for rows a principal
// cannot see, refusal of fields it may not write, inheritance, teams, the public role.
import { describe, expect, it } from 'vitest';
import { ensureSystemRole } from '../../../src/modules/users/systemRoles.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createContentModel, createItem, createMember, createRole, grant, withHelpers, type AccessSite, type ApiItem } from './support.ts';

const service = await startTestServiceForFile();

async function siteWithArticles(): Promise<{ site: AccessSite; published: ApiItem; draft: ApiItem }> {
  const site = withHelpers(service, await createTestSite(service));
  await createContentModel(site);
  const published = await createItem(site, 'articles', { title: 'Out', body: 'Public text', status: 'published', rating: 5, category: 'news' });
  const draft = await createItem(site, 'articles', { title: 'Soon', body: 'Secret plans', status: 'draft', rating: 1, category: 'news' });
  return { site, published, draft };
}

describe('reading with row conditions and field lists', () => {
  it('shows only published items and only id and title', async () => {
    const { site, published, draft } = await siteWithArticles();
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [{ collection: 'articles', action: 'read', fields: ['id', 'title'], conditions: { status: { _eq: 'published' } } }]);
    const reader = await createMember(service, site, { roleId: role.id });

    const list = await site.as(reader.token, 'GET', '/items/articles');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([{ id: published.id, title: 'Out' }]);
    expect(list.body.meta.total).toBe(1);

    const one = await site.as(reader.token, 'GET', `/items/articles/${published.id}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual({ id: published.id, title: 'Out' });
    // Asking for more fields does not show them.
    const wider = await site.as(reader.token, 'GET', `/items/articles/${published.id}?fields=id,title,body,rating`);
    expect(wider.body.data).toEqual({ id: published.id, title: 'Out' });

    // A row the reader cannot see is missing, not forbidden.
    const hidden = await site.as(reader.token, 'GET', `/items/articles/${draft.id}`);
    expect(hidden.status).toBe(404);
    expect(hidden.body.errors[0].code).toBe('RECORD_NOT_FOUND');
    expect((await site.as(reader.token, 'GET', '/items/articles/does-not-exist')).status).toBe(404);

    // Testing a hidden field's value through filter, sort or aggregates is refused.
    const byBody = await site.as(reader.token, 'GET', '/items/articles?filter[body][_contains]=Secret');
    expect(byBody.status).toBe(403);
    expect(byBody.body.errors[0]).toMatchObject({ code: 'PERMISSION_DENIED', path: ['filter', 'body'] });
    const sorted = await site.as(reader.token, 'GET', '/items/articles?sort=-rating');
    expect(sorted.status).toBe(403);
    expect(sorted.body.errors[0].path).toEqual(['sort']);
    const summed = await site.as(reader.token, 'GET', '/items/articles?aggregate[sum]=rating');
    expect(summed.status).toBe(403);
    // A filter on a readable field works, within the visible rows.
    const byTitle = await site.as(reader.token, 'GET', '/items/articles?filter[title][_in]=Out,Soon');
    expect(byTitle.body.data).toEqual([{ id: published.id, title: 'Out' }]);
    const counted = await site.as(reader.token, 'GET', '/items/articles?aggregate[count]=*');
    expect(counted.status).toBe(200);
    expect(JSON.stringify(counted.body.data)).toContain('1');

    // The administrator still sees everything.
    expect((await site.admin('GET', '/items/articles')).body.data).toHaveLength(2);
  });

  it('applies the related collection\'s permissions to nested reads', async () => {
    const { site, published } = await siteWithArticles();
    const author = await createItem(site, 'authors', { name: 'Ann', email: 'ann@example.test' });
    await site.admin('PATCH', `/items/articles/${published.id}`, { author: author.id });
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [{ collection: 'articles', action: 'read', fields: ['id', 'title', 'author'] }]);
    const reader = await createMember(service, site, { roleId: role.id });
    const withoutAuthors = await site.as(reader.token, 'GET', `/items/articles/${published.id}?fields=title,author.name`);
    expect(withoutAuthors.status).toBe(200);
    expect(withoutAuthors.body.data).toEqual({ title: 'Out', author: null });
    const policy = await grant(site, { roleId: role.id }, [{ collection: 'authors', action: 'read', fields: ['name'] }]);
    const withAuthors = await site.as(reader.token, 'GET', `/items/articles/${published.id}?fields=title,author.name,author.email`);
    expect(withAuthors.body.data).toEqual({ title: 'Out', author: { name: 'Ann' } });
    // Filtering through the relation on a hidden related field is refused.
    const through = await site.as(reader.token, 'GET', '/items/articles?filter[author][email][_eq]=ann@example.test');
    expect(through.status).toBe(403);
    expect(through.body.errors[0].path).toEqual(['filter', 'email']);
    expect((await site.admin('DELETE', `/policies/${policy}`)).status).toBe(204);
    expect((await site.as(reader.token, 'GET', `/items/articles/${published.id}?fields=title,author.name`)).body.data.author).toBeNull();
  });

  it('resolves $NOW and $CURRENT_ROLE in conditions per request', async () => {
    const { site, published, draft } = await siteWithArticles();
    const role = await createRole(site);
    await site.admin('PATCH', `/items/articles/${draft.id}`, { category: role.id });
    await grant(site, { roleId: role.id }, [
      { collection: 'articles', action: 'read', fields: ['title'], conditions: { _and: [{ createdAt: { _gte: '$NOW(-1 hour)' } }, { category: { _eq: '$CURRENT_ROLE' } }] } },
      { collection: 'articles', action: 'read', fields: ['title'], conditions: { createdAt: { _lte: '$NOW(-1 day)' } } },
    ]);
    const member = await createMember(service, site, { roleId: role.id });
    expect((await site.as(member.token, 'GET', '/items/articles')).body.data).toEqual([{ id: draft.id, title: 'Soon' }]);
    expect((await site.as(member.token, 'GET', `/items/articles/${published.id}`)).status).toBe(404);
  });

  it('answers 403 on a collection with no read rule', async () => {
    const { site } = await siteWithArticles();
    const member = await createMember(service, site);
    const list = await site.as(member.token, 'GET', '/items/articles');
    expect(list.status).toBe(403);
    expect(list.body.errors[0].code).toBe('PERMISSION_DENIED');
    expect((await site.as(member.token, 'GET', '/items/nothing-here')).status).toBe(403);
  });
});

describe('writing with row conditions and field lists', () => {
  it('updates only the items the user created, and only the listed fields', async () => {
    const { site, published } = await siteWithArticles();
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [
      { collection: 'articles', action: 'read', fields: ['*'] },
      { collection: 'articles', action: 'create', fields: ['title', 'body', 'status'] },
      { collection: 'articles', action: 'update', fields: ['title', 'body'], conditions: { userCreated: { _eq: '$CURRENT_USER' } } },
    ]);
    const author = await createMember(service, site, { roleId: role.id });
    const own = await createItem(site, 'articles', { title: 'Mine', status: 'draft' }, author.token);
    expect(own.userCreated).toBe(author.userId);

    const patched = await site.as(author.token, 'PATCH', `/items/articles/${own.id}`, { title: 'Mine, edited' });
    expect(patched.status).toBe(200);
    expect(patched.body.data.title).toBe('Mine, edited');

    const others = await site.as(author.token, 'PATCH', `/items/articles/${published.id}`, { title: 'Hijacked' });
    expect(others.status).toBe(403);
    expect(others.body.errors[0].code).toBe('PERMISSION_DENIED');
    expect((await site.admin('GET', `/items/articles/${published.id}`)).body.data.title).toBe('Out');

    const forbiddenField = await site.as(author.token, 'PATCH', `/items/articles/${own.id}`, { title: 'x', rating: 4 });
    expect(forbiddenField.status).toBe(403);
    expect(forbiddenField.body.errors[0]).toMatchObject({ code: 'PERMISSION_DENIED', path: ['body', 'rating'] });
    const status = await site.as(author.token, 'PATCH', `/items/articles/${own.id}`, { status: 'published' });
    expect(status.body.errors[0].path).toEqual(['body', 'status']);
    const replace = await site.as(author.token, 'PUT', `/items/articles/${own.id}`, { title: 'All of it' });
    expect(replace.status).toBe(403);
    expect(replace.body.errors[0].path).toEqual(['body']);
    expect((await site.admin('GET', `/items/articles/${own.id}`)).body.data).toMatchObject({ title: 'Mine, edited', rating: null, status: 'draft' });

    // Unknown fields stay a validation error; read-only keys are ignored as usual.
    const unknown = await site.as(author.token, 'PATCH', `/items/articles/${own.id}`, { nope: 1 });
    expect(unknown.status).toBe(400);
    const echoed = await site.as(author.token, 'PATCH', `/items/articles/${own.id}`, { title: 'Again', createdAt: '2020-01-01T00:00:00.000Z' });
    expect(echoed.status).toBe(200);
  });

  it('answers 404 when updating or deleting a row the user cannot even see', async () => {
    const { site, draft } = await siteWithArticles();
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [
      { collection: 'articles', action: 'read', conditions: { status: { _eq: 'published' } } },
      { collection: 'articles', action: 'update', conditions: { status: { _eq: 'published' } } },
      { collection: 'articles', action: 'delete', conditions: { status: { _eq: 'published' } } },
    ]);
    const editor = await createMember(service, site, { roleId: role.id });
    const update = await site.as(editor.token, 'PATCH', `/items/articles/${draft.id}`, { title: 'x' });
    expect(update.status).toBe(404);
    expect(update.body.errors[0].code).toBe('RECORD_NOT_FOUND');
    const removal = await site.as(editor.token, 'DELETE', `/items/articles/${draft.id}`);
    expect(removal.status).toBe(404);
    expect((await site.admin('GET', `/items/articles/${draft.id}`)).body.data.deletedAt ?? null).toBeNull();
    const dependents = await site.as(editor.token, 'GET', `/items/articles/${draft.id}/dependents`);
    expect(dependents.status).toBe(404);
  });

  it('refuses fields outside the create rule, and items that miss its conditions', async () => {
    const { site } = await siteWithArticles();
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [
      { collection: 'articles', action: 'read', fields: ['id', 'title'] },
      { collection: 'articles', action: 'create', fields: ['title', 'status'], conditions: { status: { _eq: 'draft' } } },
    ]);
    const writer = await createMember(service, site, { roleId: role.id });
    const bulk = await site.as(writer.token, 'POST', '/items/articles', [{ title: 'A', status: 'draft' }, { title: 'B', status: 'draft', rating: 3 }]);
    expect(bulk.status).toBe(403);
    expect(bulk.body.errors[0]).toMatchObject({ code: 'PERMISSION_DENIED', path: ['body', 1, 'rating'] });
    const published = await site.as(writer.token, 'POST', '/items/articles', { title: 'C', status: 'published' });
    expect(published.status).toBe(403);
    expect(published.body.errors[0].path).toEqual(['body']);
    const noStatus = await site.as(writer.token, 'POST', '/items/articles', [{ title: 'D', status: 'draft' }, { title: 'E' }]);
    expect(noStatus.status).toBe(403);
    expect(noStatus.body.errors[0].path).toEqual(['body', 1]);
    expect((await site.admin('GET', '/items/articles?meta=total_count')).body.meta.total).toBe(2);

    const created = await site.as(writer.token, 'POST', '/items/articles', [{ title: 'F', status: 'draft' }]);
    expect(created.status).toBe(201);
    // The answer shows only what the writer may read.
    expect(created.body.data[0]).toEqual({ id: created.body.data[0].id, title: 'F' });
    const noUpdate = await site.as(writer.token, 'PATCH', `/items/articles/${created.body.data[0].id}`, { title: 'G' });
    expect(noUpdate.status).toBe(403);
  });

  it('deletes only what a delete rule reaches', async () => {
    const { site, published, draft } = await siteWithArticles();
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [
      { collection: 'articles', action: 'read' },
      { collection: 'articles', action: 'delete', conditions: { status: { _eq: 'draft' } } },
    ]);
    const member = await createMember(service, site, { roleId: role.id });
    const refused = await site.as(member.token, 'DELETE', `/items/articles/${published.id}`);
    expect(refused.status).toBe(403);
    expect((await site.as(member.token, 'DELETE', `/items/articles/${draft.id}`)).status).toBe(204);
    expect((await site.admin('GET', `/items/articles/${draft.id}`)).status).toBe(404);
  });

  it('lists dependents with samples limited to readable rows and guards resolve-dependents', async () => {
    const { site, published, draft } = await siteWithArticles();
    const author = await createItem(site, 'authors', { name: 'Ann' });
    await site.admin('PATCH', `/items/articles/${published.id}`, { author: author.id });
    await site.admin('PATCH', `/items/articles/${draft.id}`, { author: author.id });
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [
      { collection: 'authors', action: 'read' },
      { collection: 'articles', action: 'read', conditions: { status: { _eq: 'published' } } },
      { collection: 'articles', action: 'update', fields: ['title'] },
    ]);
    const member = await createMember(service, site, { roleId: role.id });
    const dependents = await site.as(member.token, 'GET', `/items/authors/${author.id}/dependents`);
    expect(dependents.status).toBe(200);
    expect(dependents.body.data.blocking).toBe(true);
    expect(dependents.body.data.dependents[0]).toMatchObject({ collection: 'articles', count: 2, sample: [published.id] });
    const relation = dependents.body.data.dependents[0].relation;
    const resolve = await site.as(member.token, 'POST', `/items/authors/${author.id}/resolve-dependents`, { action: 'set_null', relation });
    expect(resolve.status).toBe(403);
    expect(resolve.body.errors[0].path).toEqual(['body', 'action']);
    expect((await site.admin('GET', `/items/articles/${published.id}`)).body.data.author).toBe(author.id);
  });
});

describe('where permissions come from', () => {
  it('inherits the policies of the parent role chain', async () => {
    const { site, published } = await siteWithArticles();
    const grandparent = await createRole(site, { name: 'Readers' });
    const parent = await createRole(site, { name: 'Writers', parentId: grandparent.id });
    const child = await createRole(site, { name: 'Editors', parentId: parent.id });
    await grant(site, { roleId: grandparent.id }, [{ collection: 'articles', action: 'read', fields: ['title'] }]);
    await grant(site, { roleId: parent.id }, [{ collection: 'articles', action: 'update', fields: ['title'] }]);
    const editor = await createMember(service, site, { roleId: child.id });
    expect((await site.as(editor.token, 'GET', `/items/articles/${published.id}`)).body.data).toEqual({ id: published.id, title: 'Out' });
    expect((await site.as(editor.token, 'PATCH', `/items/articles/${published.id}`, { title: 'Changed' })).status).toBe(200);
    // Cutting the chain takes the inherited permissions away at once.
    await site.admin('PATCH', `/roles/${parent.id}`, { parentId: null });
    expect((await site.as(editor.token, 'GET', `/items/articles/${published.id}`)).status).toBe(403);
  });

  it('grants through teams and through the user itself, and takes it back when membership ends', async () => {
    const { site, published } = await siteWithArticles();
    const member = await createMember(service, site);
    const team = await site.admin('POST', '/teams', { name: 'Newsroom', members: [member.userId] });
    expect(team.status).toBe(201);
    await grant(site, { teamId: team.body.data.id }, [{ collection: 'articles', action: 'read', fields: ['title'] }]);
    expect((await site.as(member.token, 'GET', `/items/articles/${published.id}`)).body.data).toEqual({ id: published.id, title: 'Out' });
    await grant(site, { userId: member.userId }, [{ collection: 'articles', action: 'read', fields: ['rating'] }]);
    expect((await site.as(member.token, 'GET', `/items/articles/${published.id}`)).body.data).toEqual({ id: published.id, title: 'Out', rating: 5 });

    await site.admin('PATCH', `/teams/${team.body.data.id}`, { members: [] });
    expect((await site.as(member.token, 'GET', `/items/articles/${published.id}`)).body.data).toEqual({ id: published.id, rating: 5 });
  });

  it('applies the same rules to API keys, bound to a role or to a user', async () => {
    const { site, published, draft } = await siteWithArticles();
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [{ collection: 'articles', action: 'read', fields: ['title'], conditions: { status: { _eq: 'published' } } }]);
    const member = await createMember(service, site, { roleId: role.id });
    const roleKey = (await site.admin('POST', '/api-keys', { name: 'role key', roleId: role.id })).body.data.key;
    const userKey = (await site.admin('POST', '/api-keys', { name: 'user key', userId: member.userId })).body.data.key;
    for (const key of [roleKey, userKey]) {
      expect((await site.as(key, 'GET', '/items/articles')).body.data).toEqual([{ id: published.id, title: 'Out' }]);
      expect((await site.as(key, 'GET', `/items/articles/${draft.id}`)).status).toBe(404);
      expect((await site.as(key, 'PATCH', `/items/articles/${published.id}`, { title: 'x' })).status).toBe(403);
    }
    // A policy attached to the user reaches its user-bound key, not the role-bound one.
    await grant(site, { userId: member.userId }, [{ collection: 'articles', action: 'read', fields: ['rating'] }]);
    expect((await site.as(userKey, 'GET', `/items/articles/${published.id}`)).body.data).toEqual({ id: published.id, title: 'Out', rating: 5 });
    expect((await site.as(roleKey, 'GET', `/items/articles/${published.id}`)).body.data).toEqual({ id: published.id, title: 'Out' });
  });

  it('applies the public role to requests without credentials', async () => {
    const { site, published } = await siteWithArticles();
    const anonymous = await site.as(null, 'GET', '/items/articles');
    expect(anonymous.status).toBe(401);
    const publicRole = (await site.admin('GET', '/roles')).body.data.find((role: { systemKey: string }) => role.systemKey === 'public');
    await grant(site, { roleId: publicRole.id }, [{ collection: 'articles', action: 'read', fields: ['title'], conditions: { status: { _eq: 'published' } } }]);
    const list = await site.as(null, 'GET', '/items/articles');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([{ id: published.id, title: 'Out' }]);
    expect((await site.as(null, 'POST', '/items/articles', { title: 'Spam' })).status).toBe(401);
    // A signed-in user without rules does not get the public role's permissions.
    const member = await createMember(service, site);
    expect((await site.as(member.token, 'GET', '/items/articles')).status).toBe(403);
  });

  it('lets the subscriber role read the collections granted through subscriber access', async () => {
    const { site, published } = await siteWithArticles();
    const granted = await site.admin('POST', '/users/subscriber-access', { collection: 'articles' });
    expect(granted.status, JSON.stringify(granted.body)).toBe(201);
    // The subscriber role is created on first need (self-registration does it the same way).
    const subscriberRoleId = await service.context.database.withSite(site.siteId, (tx) =>
      ensureSystemRole(tx, service.context.projections, site.siteId, 'subscriber', { actor: { kind: 'system', id: 'test' } }),
    );
    const reader = await createMember(service, site, { roleId: subscriberRoleId });
    const list = await site.as(reader.token, 'GET', '/items/articles');
    expect(list.status).toBe(200);
    expect(list.body.data.map((item: { id: string }) => item.id)).toContain(published.id);
    expect((await site.as(reader.token, 'GET', '/items/authors')).status).toBe(403);
    await site.admin('DELETE', '/users/subscriber-access/articles');
    expect((await site.as(reader.token, 'GET', '/items/articles')).status).toBe(403);
  });
});

describe('item history and search', () => {
  it('shows revisions only to those who may read the whole item, and reverts only for those who may update it', async () => {
    const { site, published, draft } = await siteWithArticles();
    const partial = await createRole(site);
    await grant(site, { roleId: partial.id }, [{ collection: 'articles', action: 'read', fields: ['title'] }]);
    const partialReader = await createMember(service, site, { roleId: partial.id });
    const narrow = await site.as(partialReader.token, 'GET', `/items/articles/${published.id}/revisions`);
    expect(narrow.status).toBe(403);

    const whole = await createRole(site);
    await grant(site, { roleId: whole.id }, [{ collection: 'articles', action: 'read', conditions: { status: { _eq: 'published' } } }]);
    const reader = await createMember(service, site, { roleId: whole.id });
    const revisions = await site.as(reader.token, 'GET', `/items/articles/${published.id}/revisions`);
    expect(revisions.status).toBe(200);
    expect(revisions.body.data).toHaveLength(1);
    expect((await site.as(reader.token, 'GET', `/items/articles/${draft.id}/revisions`)).status).toBe(404);
    expect((await site.as(reader.token, 'GET', `/items/articles/${draft.id}/versions`)).status).toBe(404);
    const revert = await site.as(reader.token, 'POST', `/items/articles/${published.id}/revert`, { revisionId: revisions.body.data[0].revisionId ?? revisions.body.data[0].id });
    expect(revert.status).toBe(403);

    // Restoring a soft-deleted item (a revert of it) is for administrators: members' rules reach live rows.
    const editor = await createRole(site);
    await grant(site, { roleId: editor.id }, [
      { collection: 'articles', action: 'read' },
      { collection: 'articles', action: 'update' },
    ]);
    const member = await createMember(service, site, { roleId: editor.id });
    const revisionId = revisions.body.data[0].revisionId as string;
    expect((await site.admin('DELETE', `/items/articles/${published.id}`)).status).toBe(204);
    const restore = await site.as(member.token, 'POST', `/items/articles/${published.id}/revert`, { revisionId });
    expect([restore.status, restore.body.errors?.[0]?.code]).toEqual([404, 'RECORD_NOT_FOUND']);
    expect((await site.admin('POST', `/items/articles/${published.id}/revert`, { revisionId })).status).toBe(200);
    expect((await site.as(member.token, 'GET', `/items/articles/${published.id}`)).status).toBe(200);
  });

  it('changes versions and pins only of rows the member may update, checked in the write itself', async () => {
    const { site, published, draft } = await siteWithArticles();
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [
      { collection: 'articles', action: 'read' },
      { collection: 'articles', action: 'update', conditions: { status: { _eq: 'draft' } } },
    ]);
    const member = await createMember(service, site, { roleId: role.id });
    const [revision] = (await site.as(member.token, 'GET', `/items/articles/${published.id}/revisions`)).body.data;
    const refused = [
      await site.as(member.token, 'POST', `/items/articles/${published.id}/versions`, { key: 'v1', name: 'V1' }),
      await site.as(member.token, 'POST', `/items/articles/${published.id}/pins`, { field: '*', revisionId: revision.revisionId }),
      await site.as(member.token, 'DELETE', `/items/articles/${published.id}/pins`),
    ];
    expect(refused.map((response) => [response.status, response.body.errors?.[0]?.code])).toEqual([
      [403, 'PERMISSION_DENIED'],
      [403, 'PERMISSION_DENIED'],
      [403, 'PERMISSION_DENIED'],
    ]);
    expect((await site.admin('GET', `/items/articles/${published.id}/versions`)).body.data).toEqual([]);
    expect((await site.admin('GET', `/items/articles/${published.id}/pins`)).body.data).toEqual([]);

    const created = await site.as(member.token, 'POST', `/items/articles/${draft.id}/versions`, { key: 'v1', name: 'V1' });
    expect(created.status).toBe(201);
    expect((await site.as(member.token, 'DELETE', `/items/articles/${draft.id}/versions/v1`)).status).toBe(204);
  });

  it('searches only collections the member reads whole, and only its rows', async () => {
    const { site } = await siteWithArticles();
    await createItem(site, 'authors', { name: 'Secret author', email: 'secret@example.test' });
    const role = await createRole(site);
    await grant(site, { roleId: role.id }, [
      { collection: 'articles', action: 'read', conditions: { status: { _eq: 'published' } } },
      { collection: 'authors', action: 'read', fields: ['name'] },
    ]);
    const member = await createMember(service, site, { roleId: role.id });
    await service.context.daemon.drain();
    const visible = await site.as(member.token, 'GET', '/search?q=public');
    expect(visible.status).toBe(200);
    expect(visible.body.data.map((hit: { item: { title: string } }) => hit.item.title)).toEqual(['Out']);
    expect((await site.as(member.token, 'GET', '/search?q=secret')).body.data).toEqual([]);
    expect((await site.admin('GET', '/search?q=secret')).body.data.length).toBe(2);
    const authors = await site.as(member.token, 'GET', '/search?q=secret&collection=authors');
    expect(authors.status).toBe(403);
    expect(authors.body.errors[0].path).toEqual(['query', 'collection']);
  });
});
