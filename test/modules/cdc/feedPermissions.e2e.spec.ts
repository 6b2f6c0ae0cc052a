// GET /cdc/events as a member with `cdc:subscribe` sees it: the entries, rows and fields its read
// rules reach, the schema entries schema reads show it, pii/phi values logged as item reads log
// them, and keyset pages that move past what was left out. Administrators see every entry as stored.
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createContentModel, createItem, createMember, createRole, grant, withHelpers, type AccessSite, type RuleInput } from '../access/support.ts';
import { appendItemEvent, feedCaughtUp } from './support.ts';

const service = await startTestServiceForFile();

interface Entry {
  type: string;
  collection: string | null;
  itemId: string | null;
  cursor: string;
  sequence: number;
  actor: { kind: string; id: string | null };
  snapshot: Record<string, unknown> | null;
  changedKeys: string[];
}

async function contentSite(): Promise<AccessSite> {
  const site = withHelpers(service, await createTestSite(service, 'feedacl'));
  await createContentModel(site);
  return site;
}

/** A member whose role holds `cdc:subscribe` and these rules. */
async function subscriber(site: AccessSite, rules: RuleInput[]): Promise<string> {
  const role = await createRole(site);
  await grant(site, { roleId: role.id }, [{ action: 'cdc:subscribe' }, ...rules]);
  return (await createMember(service, site, { roleId: role.id })).token;
}

async function feed(site: AccessSite, token: string, query = ''): Promise<{ data: Entry[]; meta: { nextCursor: string; hasMore: boolean } }> {
  const response = await site.as(token, 'GET', `/cdc/events${query}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

async function itemEntries(site: AccessSite, token: string): Promise<Entry[]> {
  await feedCaughtUp(service);
  return (await feed(site, token, '?limit=500')).data.filter((entry) => entry.type.startsWith('items.'));
}

const summary = (entries: Entry[]) => entries.map((entry) => `${entry.type} ${entry.collection} ${String(entry.snapshot?.title ?? entry.snapshot?.name ?? '')}`);

async function sensitiveReads(siteId: string) {
  return service.context.database.withSite(siteId, (tx) =>
    tx.query<{ data: { reads: unknown[] }; metadata: { actor: { id: string } } }>({
      text: `SELECT data, metadata FROM events WHERE site_id = $1 AND type = 'item.sensitive_read' ORDER BY position`,
      values: [siteId],
    }),
  );
}

describe('GET /cdc/events for a member with cdc:subscribe', () => {
  it('leaves out the items of collections the member may not read', async () => {
    const site = await contentSite();
    const reader = await subscriber(site, [{ collection: 'articles', action: 'read' }]);
    const author = await createItem(site, 'authors', { name: 'Ada', email: 'ada@example.test' });
    await createItem(site, 'articles', { title: 'Hello', author: author.id });
    await site.admin('PATCH', `/items/authors/${author.id}`, { name: 'Ada L.' });

    expect(summary(await itemEntries(site, reader))).toEqual(['items.create articles Hello']);
    // A member with the capability and no read rule reads no item at all.
    const bare = await subscriber(site, []);
    expect(await itemEntries(site, bare)).toEqual([]);
  });

  it('leaves out entries whose item the read conditions exclude, judged on the item as it was at that change, deletes included', async () => {
    const site = await contentSite();
    const reader = await subscriber(site, [{ collection: 'articles', action: 'read', conditions: { category: { _eq: 'public' } } }]);
    const open = await createItem(site, 'articles', { title: 'Open', category: 'public' });
    const closed = await createItem(site, 'articles', { title: 'Closed', category: 'internal' });
    await site.admin('PATCH', `/items/articles/${closed.id}`, { category: 'public', title: 'Opened' });
    await site.admin('PATCH', `/items/articles/${open.id}`, { category: 'internal', title: 'Shut' });
    expect((await site.admin('DELETE', `/items/articles/${open.id}`)).status).toBe(204);
    expect((await site.admin('DELETE', `/items/articles/${closed.id}`)).status).toBe(204);

    const entries = await itemEntries(site, reader);
    expect(summary(entries)).toEqual(['items.create articles Open', 'items.update articles Opened', 'items.delete articles Opened']);
    expect(entries.map((entry) => entry.itemId)).toEqual([open.id, closed.id, closed.id]);
    expect(entries[2]!.snapshot!.deletedAt).toEqual(expect.any(String));
    // The administrator sees all six.
    expect(await itemEntries(site, site.adminToken)).toHaveLength(6);
  });

  it('applies conditions that reach into a related collection', async () => {
    const site = await contentSite();
    const reader = await subscriber(site, [
      { collection: 'articles', action: 'read', conditions: { author: { name: { _eq: 'Ada' } } } },
      { collection: 'authors', action: 'read', fields: ['id', 'name'] },
    ]);
    const ada = await createItem(site, 'authors', { name: 'Ada' });
    const bob = await createItem(site, 'authors', { name: 'Bob' });
    await createItem(site, 'articles', { title: 'By Ada', author: ada.id });
    await createItem(site, 'articles', { title: 'By Bob', author: bob.id });
    await createItem(site, 'articles', { title: 'By nobody' });

    expect(summary(await itemEntries(site, reader))).toEqual(['items.create authors Ada', 'items.create authors Bob', 'items.create articles By Ada']);
  });

  it('shows only the snapshot fields and changed keys the member may read, and its actor only to readers of userUpdated', async () => {
    const site = await contentSite();
    const reader = await subscriber(site, [{ collection: 'articles', action: 'read', fields: ['title', 'category'] }]);
    const article = await createItem(site, 'articles', { title: 'T1', body: 'secret body', category: 'c', rating: 3 });
    await site.admin('PATCH', `/items/articles/${article.id}`, { title: 'T2', body: 'secret body 2' });
    await site.admin('PATCH', `/items/articles/${article.id}`, { rating: 5 });
    await site.admin('DELETE', `/items/articles/${article.id}`);

    const [created, retitled, rerated, deleted] = await itemEntries(site, reader);
    // `deletedAt` is the entry's own (null until deleted), not a field of the collection.
    expect(created!.snapshot).toEqual({ id: article.id, title: 'T1', category: 'c', deletedAt: null });
    expect(created!.changedKeys.filter((key) => !['id', 'title', 'category', 'deletedAt'].includes(key))).toEqual([]);
    expect(created!.changedKeys).toEqual(expect.arrayContaining(['title', 'category']));
    expect(created!.actor).toEqual({ kind: 'user', id: null });
    expect(retitled!.snapshot).toEqual({ id: article.id, title: 'T2', category: 'c', deletedAt: null });
    expect(retitled!.changedKeys).toEqual(['title']);
    // A change of hidden fields only is still an entry (the item may have entered the reader's rows), with nothing to name.
    expect(rerated!.type).toBe('items.update');
    expect(rerated!.changedKeys).toEqual([]);
    expect(deleted!.snapshot).toEqual({ id: article.id, title: 'T2', category: 'c', deletedAt: expect.any(String) });
    expect(deleted!.changedKeys).toEqual(['deletedAt']);
    expect(JSON.stringify(await itemEntries(site, reader))).not.toContain('secret body');

    // With userUpdated readable the actor is shown; the administrator sees every field.
    const auditor = await subscriber(site, [{ collection: 'articles', action: 'read', fields: ['title', 'userUpdated'] }]);
    expect((await itemEntries(site, auditor))[0]!.actor).toEqual({ kind: 'user', id: site.adminUserId });
    const [asAdmin] = await itemEntries(site, site.adminToken);
    expect(asAdmin!.snapshot).toMatchObject({ title: 'T1', body: 'secret body', rating: 3 });
  });

  it('logs the pii values it shows as item reads are logged, and nothing for a member that may not read them', async () => {
    const site = await contentSite();
    expect((await site.admin('POST', '/fields/authors', { field: 'phone', type: 'string', sensitivity: 'pii' })).status).toBe(201);
    const reader = await subscriber(site, [
      { collection: 'authors', action: 'read' },
      { collection: 'authors', action: 'read_decrypted', fields: ['phone'] },
    ]);
    const blind = await subscriber(site, [{ collection: 'authors', action: 'read', fields: ['name'] }]);
    // Reading the field without read_decrypted shows its mask, which reveals nothing and is not logged.
    const masked = await subscriber(site, [{ collection: 'authors', action: 'read' }]);
    const ada = await createItem(site, 'authors', { name: 'Ada', phone: '+1 555 0100' });
    await createItem(site, 'authors', { name: 'Bob' });
    await feedCaughtUp(service);

    const blindPage = await feed(site, blind);
    expect(blindPage.data.filter((entry) => entry.type === 'items.create')).toHaveLength(2);
    expect(JSON.stringify(blindPage)).not.toContain('+1 555 0100');
    expect(await sensitiveReads(site.siteId)).toEqual([]);
    const maskedPage = await feed(site, masked);
    expect(maskedPage.data.find((entry) => entry.itemId === ada.id)!.snapshot!.phone).toBe('[encrypted]');
    expect(JSON.stringify(maskedPage)).not.toContain('+1 555 0100');
    expect(await sensitiveReads(site.siteId)).toEqual([]);

    const page = await feed(site, reader);
    expect(page.data.find((entry) => entry.itemId === ada.id)!.snapshot!.phone).toBe('+1 555 0100');
    const logged = await sensitiveReads(site.siteId);
    expect(logged).toHaveLength(1);
    expect(logged[0]!.data.reads).toEqual([{ collection: 'authors', itemId: ada.id, fields: [{ field: 'phone', sensitivity: 'pii' }] }]);
    // A page without a pii value writes nothing; an administrator's read is logged like any read.
    await feed(site, reader, `?cursor=${page.meta.nextCursor}`);
    expect(await sensitiveReads(site.siteId)).toHaveLength(1);
    await feed(site, site.adminToken);
    const afterAdmin = await sensitiveReads(site.siteId);
    expect(afterAdmin).toHaveLength(2);
    expect(afterAdmin[1]!.metadata.actor.id).toBe(site.adminUserId);
  });

  it('shows schema entries as schema reads do: visible collections, listed fields, relations between visible collections', async () => {
    const site = await contentSite();
    const articlesOnly = await subscriber(site, [{ collection: 'articles', action: 'read', fields: ['title'] }]);
    const both = await subscriber(site, [
      { collection: 'articles', action: 'read' },
      { collection: 'authors', action: 'update', fields: ['name'] },
    ]);
    await feedCaughtUp(service);
    const schemaOf = async (token: string) =>
      (await feed(site, token, '?limit=500')).data
        .filter((entry) => !entry.type.startsWith('items.'))
        .map((entry) => `${entry.type} ${entry.collection ?? ''} ${entry.type.startsWith('fields.') ? entry.itemId : ''}`.trim());

    const all = await schemaOf(site.adminToken);
    expect(all).toContain('collections.create authors');
    expect(all).toContain('fields.create articles body');
    expect(all.some((entry) => entry.startsWith('relations.create'))).toBe(true);

    expect(await schemaOf(articlesOnly)).toEqual(['collections.create articles', 'fields.create articles title']);
    const wider = await schemaOf(both);
    expect(wider).toContain('collections.create authors');
    expect(wider).toContain('fields.create authors name');
    expect(wider).not.toContain('fields.create authors email');
    expect(wider).toContain('fields.create articles body');
    expect(wider.filter((entry) => entry.startsWith('relations.create'))).toHaveLength(1);
  });

  it('keeps keyset pages whole: cursors move past left-out entries, pages may be short, and every visible entry comes once', async () => {
    const site = await contentSite();
    const reader = await subscriber(site, [{ collection: 'articles', action: 'read', conditions: { category: { _eq: 'public' } } }]);
    const expected: string[] = [];
    for (let index = 0; index < 12; index += 1) {
      const visible = index % 3 === 0;
      const created = await createItem(site, 'articles', { title: `a${index}`, category: visible ? 'public' : 'internal' });
      await createItem(site, 'authors', { name: `author ${index}` });
      if (visible) expected.push(created.id as string);
    }
    await feedCaughtUp(service);

    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor = '';
    for (let round = 0; round < 100; round += 1) {
      const page = await feed(site, reader, `?limit=3&operations=items.create${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.data.map((entry) => entry.itemId!));
      sizes.push(page.data.length);
      cursor = page.meta.nextCursor;
      if (!page.meta.hasMore) break;
    }
    expect(seen).toEqual(expected);
    expect(sizes.some((size) => size < 3)).toBe(true);
    // The last cursor stands at the end of the feed: nothing is read twice.
    expect((await feed(site, reader, `?cursor=${cursor}`)).data).toEqual([]);
    const admin = await feed(site, site.adminToken, '?limit=500');
    expect(cursor).toBe(admin.meta.nextCursor);
  });

  it('long-polls past entries it leaves out and answers with the first one the member may read', async () => {
    const site = await contentSite();
    const reader = await subscriber(site, [{ collection: 'articles', action: 'read', conditions: { category: { _eq: 'public' } } }]);
    await feedCaughtUp(service);
    const start = (await feed(site, reader)).meta.nextCursor;
    const pending = feed(site, reader, `?wait=20&limit=2&cursor=${start}`);
    for (let index = 0; index < 5; index += 1) await createItem(site, 'articles', { title: `hidden ${index}`, category: 'internal' });
    await createItem(site, 'articles', { title: 'Shown', category: 'public' });
    const started = Date.now();
    const page = await pending;
    expect(page.data.map((entry) => entry.snapshot!.title)).toEqual(['Shown']);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("never shows another site's entries, to its administrator or to a member", async () => {
    const site = await contentSite();
    const other = await contentSite();
    const reader = await subscriber(site, [{ collection: 'articles', action: 'read' }]);
    await createItem(other, 'articles', { title: 'Foreign' });
    await appendItemEvent(service, other.siteId, { type: 'item.created', collection: 'articles', fields: { title: 'Foreign too' } });
    await createItem(site, 'articles', { title: 'Mine' });
    await feedCaughtUp(service);

    const sites = (page: { data: Entry[] }) => new Set(page.data.map((entry) => (entry as unknown as { site: string }).site));
    for (const token of [reader, site.adminToken]) {
      const page = await feed(site, token, '?limit=500');
      // Not empty: this site's own article is there, so an entry of the other site would be seen too.
      expect(summary(page.data.filter((entry) => entry.type.startsWith('items.')))).toEqual(['items.create articles Mine']);
      expect(sites(page)).toEqual(new Set([site.siteId]));
      expect(JSON.stringify(page)).not.toContain('Foreign');
    }
    // The other site's feed does hold both foreign entries, under its own site id.
    const theirs = await feed(other, other.adminToken, '?limit=500');
    expect(summary(theirs.data.filter((entry) => entry.type.startsWith('items.')))).toEqual(['items.create articles Foreign', 'items.create articles Foreign too']);
    expect(sites(theirs)).toEqual(new Set([other.siteId]));
    // The other site's token is refused on this site.
    const refused = await site.as(other.adminToken, 'GET', '/cdc/events');
    expect([refused.status, refused.body.errors[0].code]).toEqual([401, 'UNAUTHENTICATED']);
  });
});
