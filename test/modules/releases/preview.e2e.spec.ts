// Release preview (X-Svc-Release on item reads) over real HTTP and PostgreSQL: reads by id and lists
// (filter, sort, fields, aggregates, relations) show the items as the release would leave them,
// nothing is written, the refusals with their codes, and the preview matching what publish writes.
import { describe, expect, it } from 'vitest';
import { createCollection, createRelation } from '../../support/contentModel.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createMember, grant, withHelpers } from '../access/support.ts';
import { withCall, type ContentSite } from '../items/support.ts';

const service = await startTestServiceForFile();

interface Article {
  id: string;
  title: string;
  body: string | null;
  status: string;
  sort: number | null;
  version: number;
}

interface PreviewSite extends ContentSite {
  articles: { a: Article; b: Article; c: Article; d: Article };
  /** B's revision with title "Two v2" and sort 5 (B itself reads "Two v3" now). */
  pinnedRevisionId: string;
  authorId: string;
  /** The author's first revision (name "Ann"). */
  authorRevisionId: string;
}

function expectError(response: { status: number; body: any }, status: number, code: string, path?: (string | number)[]) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.errors[0].code).toBe(code);
  if (path) expect(response.body.errors[0].path).toEqual(path);
}

async function create(site: ContentSite, collection: string, body: Record<string, unknown>) {
  const created = await site.call('POST', `/items/${collection}`, body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data;
}

async function patch(site: ContentSite, collection: string, id: string, body: Record<string, unknown>) {
  const changed = await site.call('PATCH', `/items/${collection}/${id}`, body);
  expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  return changed.body.data;
}

async function revisionAt(site: ContentSite, collection: string, id: string, version: number): Promise<string> {
  const revisions = (await site.call('GET', `/items/${collection}/${id}/revisions`)).body.data as { revisionId: string; version: number }[];
  return revisions.find((revision) => revision.version === version)!.revisionId;
}

/** Versions through the item reads (the ETag), and the site's events, to see that a preview writes nothing. */
async function footprint(site: PreviewSite): Promise<{ versions: number[]; events: number }> {
  const ids = Object.values(site.articles).map((article) => article.id);
  const rows = await service.context.database.withSite(site.siteId, (tx) =>
    tx.query<{ id: string; version: number }>({ text: 'SELECT id, version FROM items WHERE site_id = $1 AND id = ANY($2::text[]) ORDER BY id', values: [site.siteId, ids] }),
  );
  const [count] = await service.context.database.withSite(site.siteId, (tx) =>
    tx.query<{ total: number }>({ text: 'SELECT count(*)::int AS total FROM events WHERE site_id = $1', values: [site.siteId] }),
  );
  return { versions: rows.map((row) => row.version), events: count!.total };
}

/**
 * Articles A, B, C, D (all draft) with an author. B was edited twice: its revision at version 2
 * (title "Two v2", body "b2", sort 5) is the pin. D is soft-deleted after joining the release.
 */
async function previewSite(): Promise<PreviewSite> {
  const site = withCall(service, await createTestSite(service));
  await createCollection(service, site, 'authors', [{ field: 'name', type: 'string' }]);
  await createCollection(service, site, 'articles', [
    { field: 'title', type: 'string' },
    { field: 'body', type: 'text' },
    { field: 'author', type: 'uuid' },
  ]);
  await createRelation(service, site, { kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors', relatedField: 'articles', onDelete: 'set null' });
  const author = await create(site, 'authors', { name: 'Ann', status: 'draft' });
  await patch(site, 'authors', author.id, { name: 'Ann B.' });
  const a = await create(site, 'articles', { title: 'One', body: 'a1', status: 'draft', author: author.id });
  const b = await create(site, 'articles', { title: 'Two', body: 'b1', status: 'draft' });
  await patch(site, 'articles', b.id, { title: 'Two v2', body: 'b2', sort: 5 });
  const bNow = await patch(site, 'articles', b.id, { title: 'Two v3', body: 'b3', sort: 9 });
  const c = await create(site, 'articles', { title: 'Three', body: 'c1', status: 'draft' });
  const d = await create(site, 'articles', { title: 'Zero', body: 'd1', status: 'draft' });
  const articles = { a: { ...a, version: 1 }, b: { ...bNow, version: 3 }, c: { ...c, version: 1 }, d: { ...d, version: 1 } };
  return { ...site, articles, pinnedRevisionId: await revisionAt(site, 'articles', b.id, 2), authorId: author.id, authorRevisionId: await revisionAt(site, 'authors', author.id, 1) };
}

/**
 * The release: A → published, B → published at its pinned revision, the author → published at "Ann",
 * D → archived (then soft-deleted); C not in it.
 */
async function createRelease(site: PreviewSite, atomicityMode = 'all_or_nothing'): Promise<string> {
  const { a, b, d } = site.articles;
  const created = await site.call('POST', '/releases', {
    name: 'Launch',
    atomicityMode,
    addItems: [
      { collection: 'articles', itemId: a.id, targetStatus: 'published' },
      { collection: 'articles', itemId: b.id, targetStatus: 'published', revisionId: site.pinnedRevisionId },
      { collection: 'articles', itemId: d.id, targetStatus: 'archived' },
      { collection: 'authors', itemId: site.authorId, targetStatus: 'published', revisionId: site.authorRevisionId },
    ],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect((await site.call('DELETE', `/items/articles/${d.id}`)).status).toBe(204);
  return created.body.data.id;
}

const preview = (releaseId: string) => ({ 'x-svc-release': releaseId });
const pick = ({ title, body, status, sort }: Article) => ({ title, body, status, sort });

describe('release preview (X-Svc-Release)', () => {
  it('reads an item by id as the release would leave it: target status, pinned content, others unchanged', async () => {
    const site = await previewSite();
    const releaseId = await createRelease(site);
    const { a, b, c, d } = site.articles;

    const readA = await site.call('GET', `/items/articles/${a.id}`, undefined, preview(releaseId));
    expect(readA.status, JSON.stringify(readA.body)).toBe(200);
    expect(pick(readA.body.data)).toEqual({ title: 'One', body: 'a1', status: 'published', sort: null });
    const readB = await site.call('GET', `/items/articles/${b.id}`, undefined, preview(releaseId));
    expect(pick(readB.body.data)).toEqual({ title: 'Two v2', body: 'b2', status: 'published', sort: 5 });
    // The ETag stays the live version: a preview is not a version of the item.
    expect(readB.headers.get('etag')).toBe('"3"');
    expect(pick((await site.call('GET', `/items/articles/${c.id}`, undefined, preview(releaseId))).body.data)).toEqual(pick(c));
    expectError(await site.call('GET', `/items/articles/${d.id}`, undefined, preview(releaseId)), 404, 'RECORD_NOT_FOUND');

    const fields = await site.call('GET', `/items/articles/${b.id}?fields=title,status`, undefined, preview(releaseId));
    expect(fields.body.data).toEqual({ title: 'Two v2', status: 'published' });
    // Relations read the previewed related item too.
    const nested = await site.call('GET', `/items/articles/${a.id}?fields=title,author.name,author.status`, undefined, preview(releaseId));
    expect(nested.body.data).toEqual({ title: 'One', author: { name: 'Ann', status: 'published' } });

    // Without the header, the live items.
    expect(pick((await site.call('GET', `/items/articles/${b.id}`)).body.data)).toEqual({ title: 'Two v3', body: 'b3', status: 'draft', sort: 9 });
    expect((await site.call('GET', `/items/articles/${a.id}?fields=author.name`)).body.data).toEqual({ author: { name: 'Ann B.' } });
  });

  it('lists the items as the release would leave them: filters, sorts, aggregates and relational filters see the previewed values', async () => {
    const site = await previewSite();
    const releaseId = await createRelease(site);
    const { a, b, c } = site.articles;
    const list = (query: string) => site.call('GET', `/items/articles?${query}`, undefined, preview(releaseId));

    const all = await list('sort=title&fields=id,title,status');
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body.data).toEqual([
      { id: a.id, title: 'One', status: 'published' },
      { id: c.id, title: 'Three', status: 'draft' },
      { id: b.id, title: 'Two v2', status: 'published' },
    ]);
    expect(all.body.meta).toMatchObject({ total: 3 });

    const published = await list('filter[status][_eq]=published&sort=title&fields=title');
    expect(published.body).toMatchObject({ data: [{ title: 'One' }, { title: 'Two v2' }], meta: { total: 2 } });
    expect((await site.call('GET', '/items/articles?filter[status][_eq]=published')).body.data).toEqual([]);
    expect((await list('filter[title][_eq]=Two v3')).body.data).toEqual([]);
    expect((await list('filter[sort][_eq]=5&fields=title,sort')).body.data).toEqual([{ title: 'Two v2', sort: 5 }]);
    expect((await list('filter[sort][_eq]=9')).body.data).toEqual([]);

    const counted = await list('aggregate[count]=*&groupBy=status');
    expect(counted.body.data).toEqual([
      { status: 'draft', count: 1 },
      { status: 'published', count: 2 },
    ]);
    const byAuthor = await list('filter[author][status][_eq]=published&fields=title');
    expect(byAuthor.body.data).toEqual([{ title: 'One' }]);
    expect((await site.call('GET', '/items/articles?filter[author][status][_eq]=published')).body.data).toEqual([]);
    expect((await list('fields=title,author.name&filter[id][_eq]=' + a.id)).body.data).toEqual([{ title: 'One', author: { name: 'Ann' } }]);
  });

  it('writes nothing: the items keep their versions and the site its events', async () => {
    const site = await previewSite();
    const releaseId = await createRelease(site);
    const before = await footprint(site);
    for (const article of Object.values(site.articles)) await site.call('GET', `/items/articles/${article.id}`, undefined, preview(releaseId));
    await site.call('GET', '/items/articles?filter[status][_eq]=published', undefined, preview(releaseId));
    await site.call('GET', '/items/articles?aggregate[count]=*&groupBy=status', undefined, preview(releaseId));
    expect(await footprint(site)).toEqual(before);
    expect((await site.call('GET', `/releases/${releaseId}`)).body.data).toMatchObject({ status: 'draft', itemCount: 4 });
  });

  it('answers 404 NOT_FOUND for a release id that is unknown, malformed or of another site', async () => {
    const site = await previewSite();
    const other = withCall(service, await createTestSite(service));
    await createCollection(service, other, 'articles', [{ field: 'title', type: 'string' }]);
    const theirs = (await other.call('POST', '/releases', { name: 'Theirs' })).body.data.id as string;
    const { a } = site.articles;
    for (const value of ['0190d6a0-0000-7000-8000-000000000000', 'not-a-uuid', '', theirs]) {
      expectError(await site.call('GET', `/items/articles/${a.id}`, undefined, preview(value)), 404, 'NOT_FOUND');
      expectError(await site.call('GET', '/items/articles', undefined, preview(value)), 404, 'NOT_FOUND');
    }
    expect((await other.call('GET', '/items/articles', undefined, preview(theirs))).status).toBe(200);
  });

  it('lets only site administrators preview: 403 PERMISSION_DENIED for a member who may read the items, 401 without credentials', async () => {
    const site = await previewSite();
    const releaseId = await createRelease(site);
    const helpers = withHelpers(service, site);
    const member = await createMember(service, site);
    await grant(helpers, { userId: member.userId }, [{ collection: 'articles', action: 'read', fields: ['*'] }]);
    const path = `/items/articles/${site.articles.a.id}`;
    expect((await helpers.as(member.token, 'GET', path)).status).toBe(200);
    expectError(await helpers.as(member.token, 'GET', path, undefined, preview(releaseId)), 403, 'PERMISSION_DENIED');
    expectError(await helpers.as(member.token, 'GET', '/items/articles', undefined, preview(releaseId)), 403, 'PERMISSION_DENIED');
    // Before the release is looked up: a member learns nothing of which releases exist.
    expectError(await helpers.as(member.token, 'GET', path, undefined, preview('not-a-uuid')), 403, 'PERMISSION_DENIED');
    expectError(await helpers.as(null, 'GET', '/items/articles', undefined, preview(releaseId)), 401, 'UNAUTHENTICATED');
  });

  it('refuses to combine with asOf or X-Svc-Draft (400 VALIDATION_FAILED at the header)', async () => {
    const site = await previewSite();
    const releaseId = await createRelease(site);
    const { a } = site.articles;
    const path = ['headers', 'x-svc-release'];
    const now = encodeURIComponent(new Date().toISOString());
    expectError(await site.call('GET', `/items/articles/${a.id}?asOf=${now}`, undefined, preview(releaseId)), 400, 'VALIDATION_FAILED', path);
    expectError(await site.call('GET', `/items/articles?asOf=${now}`, undefined, preview(releaseId)), 400, 'VALIDATION_FAILED', path);
    expectError(await site.call('GET', `/items/articles/${a.id}`, undefined, { ...preview(releaseId), 'x-svc-draft': 'true' }), 400, 'VALIDATION_FAILED', path);
    expectError(await site.call('GET', '/items/articles', undefined, { ...preview(releaseId), 'x-svc-draft': '1' }), 400, 'VALIDATION_FAILED', path);
    // `X-Svc-Draft: false` asks for no draft: nothing to combine.
    expect((await site.call('GET', '/items/articles', undefined, { ...preview(releaseId), 'x-svc-draft': 'false' })).status).toBe(200);
  });

  it('previews exactly what publish then writes', async () => {
    const site = await previewSite();
    // best_effort: the soft-deleted D fails (ITEM_DELETED) and the others go out.
    const releaseId = await createRelease(site, 'best_effort');
    const { a, b, c, d } = site.articles;
    const ids = [a.id, b.id, c.id];
    const read = async (headers?: Record<string, string>) => {
      const items = await Promise.all(ids.map((id) => site.call('GET', `/items/articles/${id}`, undefined, headers)));
      const list = await site.call('GET', '/items/articles?sort=title&fields=id,title,body,status,sort', undefined, headers);
      const author = await site.call('GET', `/items/authors/${site.authorId}?fields=name,status,sort`, undefined, headers);
      return { items: items.map((item) => pick(item.body.data)), list: list.body.data, author: author.body.data };
    };
    const previewed = await read(preview(releaseId));

    const published = await site.call('POST', `/releases/${releaseId}/publish`);
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect(published.body.data.status).toBe('partially_failed');
    expect(published.body.data.outcomes.find((outcome: { itemId: string }) => outcome.itemId === d.id)).toMatchObject({ outcome: 'failed', reason: 'ITEM_DELETED' });

    expect(await read()).toEqual(previewed);
    expect(previewed.items).toEqual([
      { title: 'One', body: 'a1', status: 'published', sort: null },
      { title: 'Two v2', body: 'b2', status: 'published', sort: 5 },
      pick(c),
    ]);
    expect(previewed.author).toEqual({ name: 'Ann', status: 'published', sort: null });
    expectError(await site.call('GET', `/items/articles/${d.id}`), 404, 'RECORD_NOT_FOUND');
  });
});
