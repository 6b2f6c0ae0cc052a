// GET /me/data-export and GET /me/automated-decisions: the caller's own personal data and the
// agent-written revisions of the items they created, never another user's or another site's.
import { describe, expect, it } from 'vitest';
import { accessFor } from '../../../src/access/access.ts';
import { changeItem } from '../../../src/modules/items/changeItem.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createContentModel, createItem, createMember, withHelpers, type AccessSite } from '../access/support.ts';
import { createRole } from '../identity/support/identity.ts';

const service = await startTestServiceForFile();

async function siteWithAuthors() {
  const site = withHelpers(service, await createTestSite(service, 'export'));
  await createContentModel(site);
  const editorRole = await createRole(service, site.siteId, { admin: true });
  const author = await createMember(service, site, { roleId: editorRole });
  const colleague = await createMember(service, site, { roleId: editorRole });
  return { site, author, colleague };
}

/** An item change written by an agent, through the items' command path. */
async function agentEdit(site: AccessSite, collection: string, itemId: string, changes: Record<string, unknown>): Promise<void> {
  const access = await accessFor(service.context, site.siteId, {
    kind: 'user',
    userId: site.adminUserId,
    roleId: null,
    admin: true,
    sessionId: null,
    via: 'session',
    realm: 'studio',
  });
  await changeItem(service.context, { siteId: site.siteId, collection, itemId, changes, mode: 'patch', access, metadata: { actor: { kind: 'agent', id: 'summariser-1' } } });
}

describe('the data export', () => {
  it('downloads the caller’s profile, preferences, consents, redacted sessions, items and audit entries', async () => {
    const { site, author, colleague } = await siteWithAuthors();
    await site.as(author.token, 'PATCH', '/me/preferences', { saveAction: 'stay', theme: 'dark' });
    await site.as(author.token, 'PUT', '/me/consents/analytics', { granted: true, source: 'banner', version: '3' });
    await site.as(author.token, 'PUT', '/me/restriction', { restricted: true, reason: 'objection' });
    const mine = await createItem(site, 'articles', { title: 'Mine', rating: 3 }, author.token);
    await createItem(site, 'authors', { name: 'Me' }, author.token);
    await createItem(site, 'articles', { title: 'Theirs' }, colleague.token);
    await service.context.daemon.drain();

    const response = await site.as(author.token, 'GET', '/me/data-export');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="data-export-${author.userId}.json"`);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const exported = response.body;
    expect(exported).toMatchObject({
      siteId: site.siteId,
      userId: author.userId,
      profile: { id: author.userId, email: author.email, firstName: 'Mem', lastName: 'Ber' },
      preferences: { saveAction: 'stay', theme: 'dark' },
      consents: [{ consentType: 'analytics', granted: true, source: 'banner', version: '3' }],
      restriction: { restricted: true, reason: 'objection' },
    });
    expect(exported.sessions.length).toBeGreaterThan(0);
    expect(JSON.stringify(exported.sessions)).not.toMatch(/hash/i);
    expect(exported.items.collections.articles).toMatchObject({ total: 1, truncated: false, data: [{ id: mine.id, title: 'Mine', rating: 3 }] });
    expect(exported.items.collections.authors.data).toHaveLength(1);
    expect(exported.items.withheldCollections).toEqual([]);
    const actions = exported.audit.entries.map((entry: { action: string }) => entry.action);
    expect(actions).toEqual(expect.arrayContaining(['consent_granted', 'processing_restriction.applied', 'item.created']));
    expect(exported.audit.truncated).toBe(false);
    // No global log position (it would count other sites' writes).
    expect(exported.audit.entries.every((entry: object) => !('position' in entry))).toBe(true);
    expect(JSON.stringify(exported)).not.toContain('Theirs');
    expect(JSON.stringify(exported)).not.toContain(colleague.userId);
  });

  it('leaves out collections the caller may not read, naming them', async () => {
    const { site } = await siteWithAuthors();
    const reader = await createMember(service, site);
    const response = await site.as(reader.token, 'GET', '/me/data-export');
    expect(response.status).toBe(200);
    expect(response.body.items).toEqual({ collections: {}, withheldCollections: ['articles', 'authors'] });
  });

  it('is refused to API keys, and a user of another site cannot ask for it there', async () => {
    const { site, author } = await siteWithAuthors();
    const key = await site.admin('POST', '/api-keys', { name: 'k', userId: author.userId });
    expect((await site.as(key.body.data.key, 'GET', '/me/data-export')).status).toBe(403);
    const elsewhere = await createTestSite(service, 'export');
    expect((await service.request('GET', '/me/data-export', { site: elsewhere.siteId, token: author.token })).status).toBe(401);
    const theirs = await service.request('GET', '/me/data-export', { site: elsewhere.siteId, token: elsewhere.adminToken });
    expect(theirs.body.userId).toBe(elsewhere.adminUserId);
    expect(theirs.body.items.collections).toEqual({});
  });
});

describe('automated decisions', () => {
  it('lists agent-written revisions of the items the caller created, and only those', async () => {
    const { site, author, colleague } = await siteWithAuthors();
    const mine = await createItem(site, 'articles', { title: 'Mine' }, author.token);
    const theirs = await createItem(site, 'articles', { title: 'Theirs' }, colleague.token);
    await site.as(colleague.token, 'PATCH', `/items/articles/${mine.id}`, { title: 'Edited by a person' });
    await agentEdit(site, 'articles', mine.id, { body: 'Summary by an agent' });
    await agentEdit(site, 'articles', theirs.id, { body: 'Not yours' });

    const response = await site.as(author.token, 'GET', '/me/automated-decisions');
    expect(response.status).toBe(200);
    expect(response.body.meta).toEqual({ total: 1, page: 1, pageSize: 25 });
    expect(response.body.data).toEqual([
      expect.objectContaining({ collection: 'articles', itemId: mine.id, version: 3, eventType: 'item.updated', agentId: 'summariser-1', changedFields: ['body'] }),
    ]);
    expect((await site.as(colleague.token, 'GET', '/me/automated-decisions')).body.data.map((decision: { itemId: string }) => decision.itemId)).toEqual([theirs.id]);
    expect((await site.as(author.token, 'GET', '/me/automated-decisions?limit=0')).status).toBe(400);

    await service.context.daemon.drain();
    const exported = await site.as(author.token, 'GET', '/me/data-export');
    expect(exported.body.automatedDecisions).toEqual(response.body.data);

    const elsewhere = await createTestSite(service, 'export');
    expect((await service.request('GET', '/me/automated-decisions', { site: elsewhere.siteId, token: elsewhere.adminToken })).body.data).toEqual([]);
    const key = await site.admin('POST', '/api-keys', { name: 'k', userId: author.userId });
    expect((await site.as(key.body.data.key, 'GET', '/me/automated-decisions')).status).toBe(403);
  });
});
