// A reference a write sets must name a live item of the site (m2o, the stored side of an o2m, m2a
// junctions): creates, bulk creates, PATCH/PUT, drafts, promotions and release publishes alike, looked
// up in one query per write.
import { describe, expect, it } from 'vitest';
import { createCollection, createRelation } from '../../support/contentModel.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createContentSite, createItem, type ContentSite, type Json } from './support.ts';

// A database of the file's own: the statement counts below would otherwise take in the background work
// (the async daemon, index builds) that every other test file's writes cause on the shared one.
const service = await startTestServiceForFile({ DATABASE_URL: (await createFreshDatabaseForFile()).url });

const NOWHERE = '0190f000-0000-7000-8000-000000000000';

function expectRefused(response: Json, path: (string | number)[]) {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.errors).toHaveLength(1);
  expect(response.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path });
}

async function count(site: ContentSite, collection: string): Promise<number> {
  return (await site.call('GET', `/items/${collection}?aggregate[count]=*`)).body.data[0].count;
}

async function itemOf(site: ContentSite, collection: string, id: string): Promise<Json> {
  return (await site.call('GET', `/items/${collection}/${id}`)).body.data;
}

describe('references on create', () => {
  it('refuses an m2o id that names no item with 400 at body.<field>, and writes nothing', async () => {
    const site = await createContentSite(service, 'refs');
    expectRefused(await site.call('POST', '/items/articles', { title: 'Dangling', author: NOWHERE }), ['body', 'author']);
    const ann = await createItem(site, 'authors', { name: 'Ann' });
    const bulk = [0, 1, 2, 3].map((n) => ({ title: `A${n}`, author: n === 3 ? NOWHERE : ann.id }));
    expectRefused(await site.call('POST', '/items/articles', bulk), ['body', 3, 'author']);
    expect(await count(site, 'articles')).toBe(0);
    const created = await site.call('POST', '/items/articles', { title: 'Pointed', author: ann.id });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.author).toBe(ann.id);
    // The stored side of an o2m is a reference too; null and absent values name nothing to check.
    expectRefused(await site.call('POST', '/items/comments', { text: 'c', article: NOWHERE }), ['body', 'article']);
    expect((await site.call('POST', '/items/comments', [{ text: 'c', article: null }, { text: 'd' }])).status).toBe(201);
  });

  it('refuses a soft-deleted target and an id of another site, even one with the same collection', async () => {
    const site = await createContentSite(service, 'refs-a');
    const other = await createContentSite(service, 'refs-b');
    const gone = await createItem(site, 'authors', { name: 'Gone' });
    expect((await site.call('DELETE', `/items/authors/${gone.id}`)).status).toBe(204);
    expectRefused(await site.call('POST', '/items/articles', { title: 'T', author: gone.id }), ['body', 'author']);
    const foreign = await createItem(other, 'authors', { name: 'Of site B' });
    expectRefused(await site.call('POST', '/items/articles', { title: 'T', author: foreign.id }), ['body', 'author']);
    // Site B's own write of the same id passes: the id is B's.
    expect((await other.call('POST', '/items/articles', { title: 'T', author: foreign.id })).status).toBe(201);
    expect(await count(site, 'articles')).toBe(0);
  });

  it('lets the items of one bulk create point at each other', async () => {
    const site = await createContentSite(service, 'refs-tree');
    await createCollection(service, site, 'categories', [
      { field: 'name', type: 'string' },
      { field: 'parent', type: 'string' },
    ]);
    await createRelation(service, site, { id: 'category-parent', kind: 'm2o', collection: 'categories', field: 'parent', relatedCollection: 'categories' });
    const tree = [
      { id: 'child', name: 'Child', parent: 'root' },
      { id: 'root', name: 'Root' },
    ];
    expect((await site.call('POST', '/items/categories', tree)).status).toBe(201);
    expect((await itemOf(site, 'categories', 'child')).parent).toBe('root');
    expectRefused(await site.call('POST', '/items/categories', [{ id: 'orphan', parent: 'nobody' }]), ['body', 0, 'parent']);
  });

  it('checks the creates that share a transaction together, and refuses only the one that points nowhere', async () => {
    const site = await createContentSite(service, 'refs-group');
    const ann = await createItem(site, 'authors', { name: 'Ann' });
    // Single creates arriving together share group-commit transactions and one lookup per transaction.
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, n) => site.call('POST', '/items/articles', { title: `G${n}`, author: n === 5 ? NOWHERE : ann.id })),
    );
    for (const [n, answer] of answers.entries()) {
      if (n === 5) expectRefused(answer, ['body', 'author']);
      else expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    }
    expect(await count(site, 'articles')).toBe(11);
  });

  it('costs one lookup per write, not one per item: 100 items pointing at 100 authors take about one statement more than 100 pointing at none', async () => {
    const site = await createContentSite(service, 'refs-bench');
    const authors = (await site.call('POST', '/items/authors', Array.from({ length: 100 }, (_, n) => ({ name: `Author ${n}` })))).body.data as Json[];
    await service.context.daemon.drain();
    await service.context.daemon.stop();
    // The reactors that follow the log (webhooks, flow triggers) plan each write's events in a
    // transaction of its site: let them finish the last write's before counting the next one's.
    const settled = async () => {
      for (let waited = 0, seen = -1; waited < 5000 && seen !== service.context.database.stats.siteQueries; waited += 100) {
        seen = service.context.database.stats.siteQueries;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const statements = async (author: (n: number) => string | undefined) => {
      const counts: number[] = [];
      for (let run = 0; run < 5; run += 1) {
        await settled();
        const before = service.context.database.stats.siteQueries;
        const body = Array.from({ length: 100 }, (_, n) => ({ title: `T${n}`, ...(author(n) ? { author: author(n) } : {}) }));
        const created = await site.call('POST', '/items/articles', body);
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        counts.push(service.context.database.stats.siteQueries - before);
      }
      return Math.min(...counts);
    };
    try {
      const without = await statements(() => undefined);
      // One lookup per item would be 100 more.
      const withReferences = await statements((n) => authors[n]!.id);
      expect(withReferences).toBeGreaterThanOrEqual(without);
      expect(withReferences).toBeLessThanOrEqual(without + 3);
    } finally {
      await service.context.daemon.start();
    }
  });
});

describe('references and a concurrent delete', () => {
  it('never lets a restrict delete and a write pointing at the item both succeed', async () => {
    const site = await createContentSite(service, 'refs-race');
    for (let round = 0; round < 10; round += 1) {
      const author = await createItem(site, 'authors', { name: `A${round}` });
      const [deleted, created] = await Promise.all([
        site.call('DELETE', `/items/authors/${author.id}`),
        site.call('POST', '/items/articles', { title: `T${round}`, author: author.id }),
      ]);
      // Either order is fine; both at once would leave a live article pointing at a deleted author.
      expect([[204, 400], [409, 201]]).toContainEqual([deleted.status, created.status]);
    }
  });
});

describe('references on update', () => {
  it('refuses a PATCH, a PUT or a draft write that sets a missing id, and changes nothing', async () => {
    const site = await createContentSite(service, 'refs-up');
    const ann = await createItem(site, 'authors', { name: 'Ann' });
    const article = await createItem(site, 'articles', { title: 'T', author: ann.id });
    expectRefused(await site.call('PATCH', `/items/articles/${article.id}`, { author: NOWHERE }), ['body', 'author']);
    expectRefused(await site.call('PUT', `/items/articles/${article.id}`, { title: 'T2', author: NOWHERE }), ['body', 'author']);
    expectRefused(await site.call('PATCH', `/items/articles/${article.id}`, { author: NOWHERE }, { 'x-svc-draft': 'true' }), ['body', 'author']);
    expect(await itemOf(site, 'articles', article.id)).toMatchObject({ title: 'T', author: ann.id });
    const bob = await createItem(site, 'authors', { name: 'Bob' });
    expect((await site.call('PATCH', `/items/articles/${article.id}`, { author: bob.id })).body.data.author).toBe(bob.id);
    // An unknown item stays a 404, whatever its body names.
    expect((await site.call('PATCH', `/items/articles/${NOWHERE}`, { author: NOWHERE })).status).toBe(404);
  });

  it('keeps a value the item already holds when its target was deleted since, and refuses setting it anew', async () => {
    const site = await createContentSite(service, 'refs-kept');
    const article = await createItem(site, 'articles', { title: 'T' });
    const comment = await createItem(site, 'comments', { text: 'first', article: article.id });
    // comments.article is `set null`: a soft delete leaves the reference in place (the spec).
    expect((await site.call('DELETE', `/items/articles/${article.id}`)).status).toBe(204);
    const edited = await site.call('PATCH', `/items/comments/${comment.id}`, { text: 'edited', article: article.id });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body.data).toMatchObject({ text: 'edited', article: article.id });
    const other = await createItem(site, 'comments', { text: 'second' });
    expectRefused(await site.call('PATCH', `/items/comments/${other.id}`, { article: article.id }), ['body', 'article']);
  });

  it('refuses to promote a version whose reference was deleted since, leaving main as it was', async () => {
    const site = await createContentSite(service, 'refs-promote');
    const ann = await createItem(site, 'authors', { name: 'Ann' });
    const bob = await createItem(site, 'authors', { name: 'Bob' });
    const article = await createItem(site, 'articles', { title: 'T', author: ann.id });
    expect((await site.call('POST', `/items/articles/${article.id}/versions`, { key: 'next', name: 'Next' })).status).toBe(201);
    expect((await site.call('PATCH', `/items/articles/${article.id}/versions/next`, { data: { author: bob.id } })).status).toBe(200);
    expect((await site.call('DELETE', `/items/authors/${bob.id}`)).status).toBe(204);
    expectRefused(await site.call('POST', `/items/articles/${article.id}/versions/next/promote`), ['body', 'author']);
    expect((await itemOf(site, 'articles', article.id)).author).toBe(ann.id);
  });

  it("fails a release's item whose pinned revision points at an item deleted since, and publishes the others", async () => {
    const site = await createContentSite(service, 'refs-release');
    const ann = await createItem(site, 'authors', { name: 'Ann' });
    const bob = await createItem(site, 'authors', { name: 'Bob' });
    const article = await createItem(site, 'articles', { title: 'T', author: bob.id, status: 'draft' });
    const pinned = (await site.call('GET', `/items/articles/${article.id}/revisions`)).body.data[0].revisionId as string;
    expect((await site.call('PATCH', `/items/articles/${article.id}`, { author: ann.id })).status).toBe(200);
    expect((await site.call('DELETE', `/items/authors/${bob.id}`)).status).toBe(204);
    const plain = await createItem(site, 'articles', { title: 'Plain', status: 'draft' });
    const release = await site.call('POST', '/releases', {
      name: 'Spring',
      atomicityMode: 'best_effort',
      addItems: [
        { collection: 'articles', itemId: article.id, targetStatus: 'published', revisionId: pinned },
        { collection: 'articles', itemId: plain.id, targetStatus: 'published' },
      ],
    });
    expect(release.status, JSON.stringify(release.body)).toBe(201);
    const published = await site.call('POST', `/releases/${release.body.data.id}/publish`);
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const byItem = Object.fromEntries(published.body.data.outcomes.map((outcome: Json) => [outcome.itemId, outcome]));
    expect(byItem[article.id]).toMatchObject({ outcome: 'failed', reason: 'VALIDATION_FAILED' });
    expect(byItem[plain.id]).toMatchObject({ outcome: 'published' });
    expect(await itemOf(site, 'articles', article.id)).toMatchObject({ author: ann.id, status: 'draft' });
  });
});
