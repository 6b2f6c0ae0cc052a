// m2a (many-to-any) relations read through `fields`: junction rows (`blocks.*`), their item expanded
// in every allowed collection (`blocks.item.title`) or per collection (`blocks.item:headings.title`),
// with deleted targets, permissions, sensitive-read logging, batching and tenancy as for m2o reads.
import { describe, expect, it } from 'vitest';
import { createCollection, createRelation } from '../../support/contentModel.ts';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createMember, createRole, grant, withHelpers } from '../access/support.ts';
import { createArticleBlocks, createContentSite, createItem, type ContentSite, type Json } from './support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();

/**
 * The content site of the item tests plus page blocks: `articles.blocks` (m2a through
 * `articles_blocks`: article, item, collection) to headings, texts (with a pii `editor`) and quotes
 * (whose `author` is an m2o to authors).
 */
async function createBlocksSite(prefix = 'blocks'): Promise<ContentSite> {
  const site = await createContentSite(service, prefix);
  await createCollection(service, site, 'headings', [
    { field: 'title', type: 'string' },
    { field: 'level', type: 'integer' },
  ]);
  await createCollection(service, site, 'texts', [
    { field: 'title', type: 'string' },
    { field: 'body', type: 'text' },
    { field: 'editor', type: 'string', sensitivity: 'pii' },
  ]);
  await createCollection(service, site, 'quotes', [
    { field: 'quote', type: 'string' },
    { field: 'author', type: 'uuid' },
  ]);
  await createRelation(service, site, { id: 'quote-author', kind: 'm2o', collection: 'quotes', field: 'author', relatedCollection: 'authors' });
  await createArticleBlocks(service, site, ['headings', 'texts', 'quotes']);
  return site;
}

/**
 * One article with five blocks: b1 a heading, b2 a text, b3 a quote, b4 an author (a collection the
 * relation does not allow), b5 a heading that no longer exists (a reference must name a live item
 * when it is written, so it is deleted after).
 */
async function seedPage(site: ContentSite) {
  const ann = await createItem(site, 'authors', { name: 'Ann' });
  const article = await createItem(site, 'articles', { title: 'Page' });
  await createItem(site, 'headings', { id: 'h1', title: 'Intro', level: 1 });
  await createItem(site, 'headings', { id: 'missing', title: 'Gone', level: 2 });
  await createItem(site, 'texts', { id: 't1', title: 'Body', body: 'Lorem', editor: 'ed@example.test' });
  await createItem(site, 'quotes', { id: 'q1', quote: 'Be brief', author: ann.id });
  const blocks = [
    { id: 'b1', item: 'h1', collection: 'headings' },
    { id: 'b2', item: 't1', collection: 'texts' },
    { id: 'b3', item: 'q1', collection: 'quotes' },
    { id: 'b4', item: ann.id, collection: 'authors' },
    { id: 'b5', item: 'missing', collection: 'headings' },
  ];
  const created = await site.call('POST', '/items/articles_blocks', blocks.map((block) => ({ ...block, article: article.id })));
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect((await site.call('DELETE', '/items/headings/missing')).status).toBe(204);
  return { ann, article };
}

/** The `item` of each block, in order. */
function itemsOf(response: Json): unknown[] {
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const data = Array.isArray(response.body.data) ? response.body.data[0] : response.body.data;
  return data.blocks.map((block: { item: unknown }) => block.item);
}

describe('reading m2a relations with fields', () => {
  it('returns the junction rows for blocks.*, and each row\'s item of its own collection for blocks.item.*', async () => {
    const site = await createBlocksSite();
    const { ann, article } = await seedPage(site);

    const rows = await site.call('GET', `/items/articles/${article.id}?fields=title,blocks.*`);
    expect(rows.status).toBe(200);
    expect(rows.body.data.blocks.map((block: Json) => [block.id, block.article, block.item, block.collection])).toEqual([
      ['b1', article.id, 'h1', 'headings'],
      ['b2', article.id, 't1', 'texts'],
      ['b3', article.id, 'q1', 'quotes'],
      ['b4', article.id, ann.id, 'authors'],
      ['b5', article.id, 'missing', 'headings'],
    ]);

    const expanded = await site.call('GET', `/items/articles/${article.id}?fields=title,blocks.collection,blocks.item.*`);
    expect(expanded.body.data.title).toBe('Page');
    expect(expanded.body.data.blocks).toHaveLength(5);
    expect(expanded.body.data.blocks[0]).toMatchObject({ collection: 'headings', item: { id: 'h1', title: 'Intro', level: 1, status: null } });
    expect(expanded.body.data.blocks[1]).toMatchObject({ collection: 'texts', item: { id: 't1', title: 'Body', body: 'Lorem', editor: 'ed@example.test' } });
    expect(expanded.body.data.blocks[2]).toMatchObject({ collection: 'quotes', item: { id: 'q1', quote: 'Be brief', author: ann.id } });
    // A collection the relation does not allow, and a missing target, read null.
    expect(expanded.body.data.blocks.slice(3)).toEqual([
      { collection: 'authors', item: null },
      { collection: 'headings', item: null },
    ]);

    // The list reads the same way.
    const list = await site.call('GET', `/items/articles?filter[id][_eq]=${article.id}&fields=title,blocks.item.*`);
    expect(list.body.data[0].blocks).toEqual(expanded.body.data.blocks.map((block: Json) => ({ item: block.item })));
  });

  it('applies an unscoped path to every allowed collection that has its field, and keeps the bare id for the others', async () => {
    const site = await createBlocksSite();
    const { article } = await seedPage(site);
    const titles = await site.call('GET', `/items/articles/${article.id}?fields=blocks.item.title`);
    expect(itemsOf(titles)).toEqual([{ title: 'Intro' }, { title: 'Body' }, 'q1', null, null]);
    // `id` is a field of every collection.
    const ids = await site.call('GET', `/items/articles?fields=blocks.item.id,blocks.item.title&sort=title`);
    expect(itemsOf(ids)).toEqual([{ id: 'h1', title: 'Intro' }, { id: 't1', title: 'Body' }, { id: 'q1' }, null, null]);
    // Named alone, the item is the stored id, whatever it points at.
    const bare = await site.call('GET', `/items/articles/${article.id}?fields=blocks.item`);
    expect(itemsOf(bare)).toEqual(['h1', 't1', 'q1', expect.any(String), 'missing']);
  });

  it('selects fields per collection with item:<collection>, nests relations inside targets, and takes deep[...][fields]', async () => {
    const site = await createBlocksSite();
    const { article } = await seedPage(site);
    const scoped = await site.call('GET', `/items/articles/${article.id}?fields=blocks.item:headings.title,blocks.item:quotes.quote,blocks.item:quotes.author.name`);
    expect(itemsOf(scoped)).toEqual([{ title: 'Intro' }, 't1', { quote: 'Be brief', author: { name: 'Ann' } }, null, null]);
    const star = await site.call('GET', `/items/articles?fields=blocks.item:texts.*`);
    const [first, text, ...others] = itemsOf(star);
    expect(text).toMatchObject({ id: 't1', title: 'Body', body: 'Lorem' });
    // Collections not named keep the bare id (also when it points at nothing); b4's collection is not allowed.
    expect([first, ...others]).toEqual(['h1', 'q1', null, 'missing']);
    // Scoped and unscoped paths add up for a collection.
    const mixed = await site.call('GET', `/items/articles/${article.id}?fields=blocks.item:headings.level,blocks.item.title`);
    expect(itemsOf(mixed)).toEqual([{ level: 1, title: 'Intro' }, { title: 'Body' }, 'q1', null, null]);
    const deep = await site.call('GET', `/items/articles/${article.id}?fields=title&deep[blocks][fields]=item:texts.body`);
    expect(deep.body.data.title).toBe('Page');
    expect(itemsOf(deep)).toEqual(['h1', { body: 'Lorem' }, 'q1', null, 'missing']);
  });

  it('reads soft-deleted targets and targets of a deleted collection as null; the relation keeps its other collections', async () => {
    const site = await createBlocksSite();
    const { article } = await seedPage(site);
    expect((await site.call('DELETE', '/items/headings/h1')).status).toBe(204);
    expect(itemsOf(await site.call('GET', `/items/articles/${article.id}?fields=blocks.item.id`))).toEqual([null, { id: 't1' }, { id: 'q1' }, null, null]);

    expect((await site.call('DELETE', '/collections/quotes')).status).toBe(204);
    const relation = await site.call('GET', '/relations/article-blocks');
    expect(relation.body.data).toMatchObject({ kind: 'm2a', allowedCollections: ['headings', 'texts'] });
    expect(itemsOf(await site.call('GET', `/items/articles/${article.id}?fields=blocks.item.id`))).toEqual([null, { id: 't1' }, null, null, null]);
    // The stored id is still what the junction row holds.
    expect(itemsOf(await site.call('GET', `/items/articles/${article.id}?fields=blocks.item`)).slice(0, 3)).toEqual(['h1', 't1', 'q1']);
    const gone = await site.call('GET', `/items/articles/${article.id}?fields=blocks.item:quotes.quote`);
    expect([gone.status, gone.body.errors[0].code, gone.body.errors[0].path]).toEqual([400, 'VALIDATION_FAILED', ['fields']]);
  });

  it('applies the target collection\'s row conditions and field lists, as for m2o reads', async () => {
    const site = await createBlocksSite();
    const { ann, article } = await seedPage(site);
    await createItem(site, 'headings', { id: 'h2', title: 'Hidden', level: 2 });
    await createItem(site, 'articles_blocks', { id: 'b6', article: article.id, item: 'h2', collection: 'headings' });
    const access = withHelpers(service, site);
    const role = await createRole(access);
    await grant(access, { roleId: role.id }, [
      { collection: 'articles', action: 'read', fields: ['id', 'title', 'blocks'] },
      { collection: 'articles_blocks', action: 'read' },
      { collection: 'headings', action: 'read', fields: ['title'], conditions: { level: { _eq: 1 } } },
      { collection: 'quotes', action: 'read', fields: ['quote', 'author'] },
    ]);
    const reader = await createMember(service, site, { roleId: role.id });
    const read = (fields: string) => access.as(reader.token, 'GET', `/items/articles/${article.id}?fields=${fields}`);
    // headings: only level 1, only title (and id); texts: no read rule; quotes: quote and author.
    expect(itemsOf(await read('blocks.item.*'))).toEqual([{ id: 'h1', title: 'Intro' }, null, { id: 'q1', quote: 'Be brief', author: ann.id }, null, null, null]);
    // No read rule on authors: the m2o inside the target reads null.
    expect(itemsOf(await read('blocks.item:quotes.author.name'))).toEqual(['h1', 't1', { author: null }, null, 'missing', 'h2']);
    // The administrator sees every target.
    expect(itemsOf(await site.call('GET', `/items/articles/${article.id}?fields=blocks.item.title`))).toEqual([
      { title: 'Intro' },
      { title: 'Body' },
      'q1',
      null,
      null,
      { title: 'Hidden' },
    ]);
  });

  it('logs the pii fields of expanded targets as sensitive reads', async () => {
    const site = await createBlocksSite();
    const { article } = await seedPage(site);
    const stream = `${site.siteId}/sensitive-reads/${new Date().toISOString().slice(0, 10)}`;
    const logged = async () => (await owner.query<{ data: Json }>('SELECT data FROM events WHERE stream_id = $1 ORDER BY stream_position', [stream])).rows;
    expect((await site.call('GET', `/items/articles/${article.id}?fields=blocks.item:headings.*,blocks.item:texts.title`)).status).toBe(200);
    expect(await logged()).toEqual([]);
    expect((await site.call('GET', `/items/articles?fields=blocks.item.*`)).status).toBe(200);
    const events = await logged();
    expect(events).toHaveLength(1);
    expect(events[0]!.data.reads).toEqual([{ collection: 'texts', itemId: 't1', fields: [{ field: 'editor', sensitivity: 'pii' }] }]);
  });

  it('loads m2a targets with one query per target collection per level, whatever the page size', async () => {
    const site = await createBlocksSite();
    const ann = await createItem(site, 'authors', { name: 'Ann' });
    await createItem(site, 'headings', { id: 'h1', title: 'Intro', level: 1 });
    await createItem(site, 'texts', { id: 't1', title: 'Body' });
    await createItem(site, 'quotes', { id: 'q1', quote: 'Be brief', author: ann.id });
    const articles = (await site.call('POST', '/items/articles', Array.from({ length: 55 }, (_, i) => ({ title: `Page ${i}` })))).body.data as Json[];
    const blocks = articles.flatMap((article) => [
      { article: article.id, item: 'h1', collection: 'headings' },
      { article: article.id, item: 't1', collection: 'texts' },
      { article: article.id, item: 'q1', collection: 'quotes' },
    ]);
    expect((await site.call('POST', '/items/articles_blocks', blocks)).status).toBe(201);
    // As in the m2o count test (items.e2e.spec.ts): pause the projection daemon, keep the fewest of several runs.
    await service.context.daemon.drain();
    await service.context.daemon.stop();
    const countQueries = async (path: string) => {
      await site.call('GET', path);
      const counts: number[] = [];
      let response: Json = null;
      for (let run = 0; run < 7; run += 1) {
        const before = service.context.database.stats.siteQueries;
        response = await site.call('GET', path);
        expect(response.status, JSON.stringify(response.body)).toBe(200);
        counts.push(service.context.database.stats.siteQueries - before);
      }
      return { queries: Math.min(...counts), body: response.body };
    };
    try {
      const fields = 'id,title,blocks.item.title,blocks.item:quotes.quote,blocks.item:quotes.author.name';
      const small = await countQueries(`/items/articles?fields=${fields}&limit=5`);
      const large = await countQueries(`/items/articles?fields=${fields}&limit=50`);
      expect([small.body.data.length, large.body.data.length]).toEqual([5, 50]);
      expect(large.body.data[49].blocks.map((block: Json) => block.item)).toEqual([{ title: 'Intro' }, { title: 'Body' }, { quote: 'Be brief', author: { name: 'Ann' } }]);
      expect(large.queries).toBe(small.queries);
      // Exactly: the junction rows, then headings, texts and quotes, then the quotes' authors.
      const plain = await countQueries('/items/articles?fields=id,title&limit=50');
      const oneRelation = await countQueries('/items/articles?fields=id,title,comments.text&limit=50');
      expect(large.queries - plain.queries).toBe(5 * (oneRelation.queries - plain.queries));
      // Deep filters on targets (scoped, unscoped, and on a target's relation) ride on the same queries.
      const deep = 'deep[blocks][item:headings][filter][level][_eq]=1&deep[blocks][item][filter][title][_nnull]=true&deep[blocks][item:quotes][author][filter][name][_eq]=Bob';
      const deepSmall = await countQueries(`/items/articles?fields=${fields}&limit=5&${deep}`);
      const deepLarge = await countQueries(`/items/articles?fields=${fields}&limit=50&${deep}`);
      expect(deepLarge.body.data[49].blocks.map((block: Json) => block.item)).toEqual([{ title: 'Intro' }, { title: 'Body' }, { quote: 'Be brief', author: null }]);
      expect([deepSmall.queries, deepLarge.queries]).toEqual([large.queries, large.queries]);
    } finally {
      await service.context.daemon.start();
    }
  });

  it('never shows another site\'s items as targets', async () => {
    const siteA = await createBlocksSite('blocks-a');
    const siteB = await createBlocksSite('blocks-b');
    await createItem(siteA, 'headings', { id: 'h1', title: 'A heading' });
    await createItem(siteA, 'headings', { id: 'a-only', title: 'Only in A' });
    await createItem(siteB, 'headings', { id: 'h1', title: 'B heading' });
    const articleB = await createItem(siteB, 'articles', { title: 'B page' });
    const blocks = [
      { id: 'b1', article: articleB.id, item: 'h1', collection: 'headings' },
      { id: 'b2', article: articleB.id, item: 'a-only', collection: 'headings' },
    ];
    // A write cannot point at site A's item: it is no item of site B.
    const crossing = await siteB.call('POST', '/items/articles_blocks', blocks);
    expect(crossing.status).toBe(400);
    expect(crossing.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 1, 'item'] });
    // Nor does a read reach it: site B's own "a-only", deleted since, reads null while site A's lives.
    await createItem(siteB, 'headings', { id: 'a-only', title: 'Only in B, deleted' });
    expect((await siteB.call('POST', '/items/articles_blocks', blocks)).status).toBe(201);
    expect((await siteB.call('DELETE', '/items/headings/a-only')).status).toBe(204);
    expect(itemsOf(await siteB.call('GET', `/items/articles/${articleB.id}?fields=blocks.item.title`))).toEqual([{ title: 'B heading' }, null]);
    expect(itemsOf(await siteB.call('GET', `/items/articles?fields=blocks.item:headings.*`)).map((item) => (item as Json)?.title ?? null)).toEqual([
      'B heading',
      null,
    ]);
    // Site A's token reads nothing of site B.
    const crossed = await service.request('GET', `/items/articles/${articleB.id}?fields=blocks.item.title`, { site: siteB.siteId, token: siteA.adminToken });
    expect(crossed.status).toBeGreaterThanOrEqual(401);
    expect(crossed.status).toBeLessThanOrEqual(403);
    expect(JSON.stringify(crossed.body)).not.toContain('heading');
  });

  it('refuses bad m2a selections with 400 and path fields, on lists and single items', async () => {
    const site = await createBlocksSite();
    const { article } = await seedPage(site);
    const bad = [
      'blocks.item:nope.title', // no such collection
      'blocks.item:articles.title', // a collection the relation does not allow
      'blocks.item:headings', // a scope with no field under it
      'blocks.item.nope', // no allowed collection has it
      'blocks.item:headings.nope',
      'blocks.item:headings.title.x', // not a relation
      'title:headings', // not an m2a item field
      'blocks.collection:headings.title',
      'blocks.item:headings:texts.title', // syntax
      `${'blocks.item:quotes.author.articles.'.repeat(3)}blocks.item:quotes.author.name`, // too deep (over 12 relation levels)
    ];
    for (const fields of bad) {
      for (const path of [`/items/articles?fields=${fields}`, `/items/articles/${article.id}?fields=${fields}`]) {
        const response = await site.call('GET', path);
        expect([path, response.status, response.body.errors?.[0]?.code, response.body.errors?.[0]?.path]).toEqual([path, 400, 'VALIDATION_FAILED', ['fields']]);
      }
    }
    const unknown = await site.call('GET', '/items/articles?fields=blocks.item.nope');
    expect(unknown.body.errors[0].message).toContain('blocks.item.nope');
    const deepSyntax = await site.call('GET', '/items/articles?deep[blocks][fields]=item:a:b.title');
    expect([deepSyntax.status, deepSyntax.body.errors[0].path]).toEqual([400, ['deep', 'blocks', 'fields']]);
  });
});

/** The error code and path of a response, with the request for the failure message. */
function errorOf(path: string, response: Json): unknown[] {
  return [path, response.status, response.body.errors?.[0]?.code, response.body.errors?.[0]?.path];
}

describe('deep parameters on m2a targets', () => {
  /** seedPage plus b6, a level-2 heading. */
  async function seedDeepPage(site: ContentSite) {
    const seeded = await seedPage(site);
    await createItem(site, 'headings', { id: 'h2', title: 'Outro', level: 2 });
    await createItem(site, 'articles_blocks', { id: 'b6', article: seeded.article.id, item: 'h2', collection: 'headings' });
    return seeded;
  }

  it('nulls the targets of one collection that a scoped filter rejects, in every syntax, and leaves the other collections alone', async () => {
    const site = await createBlocksSite();
    const { article } = await seedDeepPage(site);
    const expected = [{ title: 'Intro' }, { title: 'Body' }, 'q1', null, null, null];
    const json = encodeURIComponent(JSON.stringify({ blocks: { 'item:headings': { _filter: { level: { _eq: 1 } } } } }));
    const forms = [
      'deep[blocks][item:headings][filter][level][_eq]=1',
      'deep[blocks][item:headings][_filter][level][_eq]=1',
      'deep[blocks][deep][item:headings][filter][level][_eq]=1',
      `deep=${json}`,
    ];
    for (const deep of forms) {
      expect(itemsOf(await site.call('GET', `/items/articles/${article.id}?fields=blocks.item.title&${deep}`)), deep).toEqual(expected);
      expect(itemsOf(await site.call('GET', `/items/articles?fields=blocks.item.title&${deep}`)), deep).toEqual(expected);
    }
    // A filter on texts nulls the text, not the headings.
    const texts = await site.call('GET', `/items/articles/${article.id}?fields=blocks.item.title&deep[blocks][item:texts][filter][title][_eq]=Other`);
    expect(itemsOf(texts)).toEqual([{ title: 'Intro' }, null, 'q1', null, null, { title: 'Outro' }]);
    // Filters of two collections apply each to its own targets; dynamic values and relational filters work as for m2o.
    const both = await site.call(
      'GET',
      `/items/articles/${article.id}?fields=blocks.item.id&deep[blocks][item:headings][filter][level][_gte]=2&deep[blocks][item:quotes][filter][author][name][_eq]=Ann&deep[blocks][item:texts][filter][createdAt][_lte]=$NOW`,
    );
    expect(itemsOf(both)).toEqual([null, { id: 't1' }, { id: 'q1' }, null, null, { id: 'h2' }]);
    // The filter applies to expanded targets: rows of a collection the fields do not expand keep the bare id.
    const bare = await site.call('GET', `/items/articles/${article.id}?fields=blocks.item:texts.body&deep[blocks][item:headings][filter][level][_eq]=99`);
    expect(itemsOf(bare)).toEqual(['h1', { body: 'Lorem' }, 'q1', null, 'missing', 'h2']);
  });

  it('takes fields per target collection, as deep[blocks][fields]=item:texts.body does', async () => {
    const site = await createBlocksSite();
    const { article } = await seedDeepPage(site);
    const scoped = await site.call('GET', `/items/articles/${article.id}?fields=title&deep[blocks][item:texts][fields]=body`);
    const viaJunction = await site.call('GET', `/items/articles/${article.id}?fields=title&deep[blocks][fields]=item:texts.body`);
    expect(scoped.body.data.title).toBe('Page');
    expect(itemsOf(scoped)).toEqual(['h1', { body: 'Lorem' }, 'q1', null, 'missing', 'h2']);
    expect(scoped.body.data).toEqual(viaJunction.body.data);
    // Fields and filter together; an unscoped `item` takes fields as `blocks.item.<field>` does.
    const filtered = await site.call('GET', `/items/articles/${article.id}?fields=title&deep[blocks][item:headings][fields]=title,level&deep[blocks][item:headings][filter][level][_eq]=2`);
    expect(itemsOf(filtered)).toEqual([null, 't1', 'q1', null, null, { title: 'Outro', level: 2 }]);
    const unscoped = await site.call('GET', `/items/articles/${article.id}?fields=title&deep[blocks][item][fields]=title`);
    expect(itemsOf(unscoped)).toEqual([{ title: 'Intro' }, { title: 'Body' }, 'q1', null, null, { title: 'Outro' }]);
  });

  it('passes nested deep to the relations of targets', async () => {
    const site = await createBlocksSite();
    const { article } = await seedDeepPage(site);
    const read = async (deep: string) => itemsOf(await site.call('GET', `/items/articles/${article.id}?fields=blocks.item:quotes.quote,blocks.item:quotes.author.name&${deep}`))[2];
    expect(await read('deep[blocks][item:quotes][author][filter][name][_eq]=Bob')).toEqual({ quote: 'Be brief', author: null });
    expect(await read('deep[blocks][item:quotes][deep][author][_filter][name][_eq]=Bob')).toEqual({ quote: 'Be brief', author: null });
    expect(await read('deep[blocks][item:quotes][author][filter][name][_eq]=Ann')).toEqual({ quote: 'Be brief', author: { name: 'Ann' } });
    expect(await read(`deep=${encodeURIComponent(JSON.stringify({ blocks: { 'item:quotes': { author: { _filter: { name: { _eq: 'Bob' } } } } } }))}`)).toEqual({
      quote: 'Be brief',
      author: null,
    });
    // Through an unscoped `item`: it reaches the quotes' author.
    expect(await read('deep[blocks][item][author][filter][name][_eq]=Bob')).toEqual({ quote: 'Be brief', author: null });
    // A scoped entry's parameters win over the unscoped ones for the same nested relation.
    expect(await read('deep[blocks][item][author][filter][name][_eq]=Bob&deep[blocks][item:quotes][author][filter][name][_eq]=Ann')).toEqual({
      quote: 'Be brief',
      author: { name: 'Ann' },
    });
    // Nested fields: blocks.item:quotes.quote and blocks.item:quotes.author.name.
    const nestedFields = await site.call('GET', `/items/articles/${article.id}?fields=title&deep[blocks][item:quotes][fields]=quote&deep[blocks][item:quotes][author][fields]=name`);
    expect(itemsOf(nestedFields)).toEqual(['h1', 't1', { quote: 'Be brief', author: { name: 'Ann' } }, null, 'missing', 'h2']);
    // The target filter and the nested one together.
    expect(await read('deep[blocks][item:quotes][filter][quote][_eq]=Other&deep[blocks][item:quotes][author][filter][name][_eq]=Ann')).toBeNull();
  });

  it('applies an unscoped filter to every allowed collection that has the fields it tests, and refuses one that fits none', async () => {
    const site = await createBlocksSite();
    const { article } = await seedDeepPage(site);
    const read = async (fields: string, deep: string) => itemsOf(await site.call('GET', `/items/articles/${article.id}?fields=${fields}&${deep}`));
    // headings and texts have `title`, quotes does not: its targets are not filtered.
    expect(await read('blocks.item.id', 'deep[blocks][item][filter][title][_eq]=Intro')).toEqual([{ id: 'h1' }, null, { id: 'q1' }, null, null, null]);
    // Only headings have `level`.
    expect(await read('blocks.item.id', 'deep[blocks][item][filter][level][_eq]=2')).toEqual([null, { id: 't1' }, { id: 'q1' }, null, null, { id: 'h2' }]);
    // `id` (like every structural key) is a field of every collection; _and/_or members count too.
    expect(await read('blocks.item.id', 'deep[blocks][item][filter][_or][0][id][_eq]=t1&deep[blocks][item][filter][_or][1][id][_eq]=h2')).toEqual([
      null,
      { id: 't1' },
      null,
      null,
      null,
      { id: 'h2' },
    ]);
    // Unscoped and scoped filters of a collection both apply.
    expect(await read('blocks.item.id', 'deep[blocks][item][filter][title][_nnull]=true&deep[blocks][item:headings][filter][level][_eq]=2')).toEqual([
      null,
      { id: 't1' },
      { id: 'q1' },
      null,
      null,
      { id: 'h2' },
    ]);
    // A field no allowed collection has, and fields no single collection has all of: 400.
    for (const path of [`/items/articles/${article.id}`, '/items/articles']) {
      const unknown = await site.call('GET', `${path}?fields=blocks.item.id&deep[blocks][item][filter][nope][_eq]=1`);
      expect(errorOf(path, unknown)).toEqual([path, 400, 'VALIDATION_FAILED', ['deep', 'blocks', 'item', 'filter', 'nope']]);
      expect(unknown.body.errors[0].message).toContain('nope');
      const apart = await site.call('GET', `${path}?fields=blocks.item.id&deep[blocks][item][filter][level][_eq]=1&deep[blocks][item][filter][body][_eq]=x`);
      expect(errorOf(path, apart)).toEqual([path, 400, 'VALIDATION_FAILED', ['deep', 'blocks', 'item', 'filter']]);
    }
  });

  it('refuses bad deep keys and parameters of m2a targets with 400 and the path of the key, on lists and single items', async () => {
    const site = await createBlocksSite();
    const { article } = await seedDeepPage(site);
    const expanded = 'fields=blocks.item.title';
    const bad: [string, (string | number)[]][] = [
      // Keys: checked whether or not the fields expand the targets.
      ['deep[blocks][item:nope][filter][title][_eq]=x', ['deep', 'blocks', 'item:nope']],
      ['deep[blocks][item:articles][filter][title][_eq]=x', ['deep', 'blocks', 'item:articles']],
      ['deep[blocks][item:authors][filter][name][_eq]=x', ['deep', 'blocks', 'item:authors']],
      ['deep[blocks][collection:headings][filter][title][_eq]=x', ['deep', 'blocks', 'collection:headings']],
      ['deep[author:authors][filter][name][_eq]=x', ['deep', 'author:authors']],
      ['deep[blocks][item:headings:texts][filter][title][_eq]=x', ['deep', 'blocks', 'item:headings:texts']],
      ['deep[blocks][item:][filter][title][_eq]=x', ['deep', 'blocks', 'item:']],
      [`deep=${encodeURIComponent(JSON.stringify({ blocks: { 'item:nope': { _filter: {} } } }))}`, ['deep', 'blocks', 'item:nope']],
      ['deep[blocks][deep][item:nope][filter][title][_eq]=x', ['deep', 'blocks', 'item:nope']],
      ['deep[blocks][item:quotes][author][author:x][filter][name][_eq]=x', ['deep', 'blocks', 'item:quotes', 'author', 'author:x']],
      // A target is a single item.
      ['deep[blocks][item:headings][limit]=1', ['deep', 'blocks', 'item:headings', 'limit']],
      ['deep[blocks][item:headings][_limit]=1', ['deep', 'blocks', 'item:headings', 'limit']],
      ['deep[blocks][item:headings][sort]=-title', ['deep', 'blocks', 'item:headings', 'sort']],
      ['deep[blocks][item:headings][offset]=1', ['deep', 'blocks', 'item:headings', 'offset']],
      ['deep[blocks][item:headings][page]=2', ['deep', 'blocks', 'item:headings', 'page']],
      ['deep[blocks][item][limit]=1', ['deep', 'blocks', 'item', 'limit']],
      ['deep[blocks][item:quotes][author][item:x][filter][name][_eq]=x', ['deep', 'blocks', 'item:quotes', 'author', 'item:x']],
      // Filters of expanded targets, as the filter compiler reports them.
      [`${expanded}&deep[blocks][item:headings][filter][nope][_eq]=1`, ['deep', 'blocks', 'item:headings', 'filter', 'nope']],
      [`${expanded}&deep[blocks][item:headings][filter][level][_contains]=x`, ['deep', 'blocks', 'item:headings', 'filter', 'level', '_contains']],
      [`${expanded}&deep[blocks][item:headings][filter][level][_eq]=x`, ['deep', 'blocks', 'item:headings', 'filter', 'level', '_eq']],
      [`${expanded}&deep[blocks][item][filter][level][_contains]=x`, ['deep', 'blocks', 'item', 'filter', 'level', '_contains']],
      [`${expanded}&deep[blocks][item:headings][filter][_nope]=1`, ['deep', 'blocks', 'item:headings', 'filter', '_nope']],
      [`fields=blocks.item:quotes.author.name&deep[blocks][item:quotes][author][filter][nope][_eq]=1`, ['deep', 'blocks', 'item:quotes', 'author', 'filter', 'nope']],
      // Filters of collections the fields do not expand are checked too (the item field being expanded).
      ['fields=blocks.item:texts.body&deep[blocks][item:headings][filter][nope][_eq]=1', ['deep', 'blocks', 'item:headings', 'filter', 'nope']],
    ];
    for (const [query, errorPath] of bad) {
      for (const path of [`/items/articles?${query}`, `/items/articles/${article.id}?${query}`]) {
        expect(errorOf(path, await site.call('GET', path))).toEqual([path, 400, 'VALIDATION_FAILED', errorPath]);
      }
    }
    // Listing the junction collection itself: its item field takes scoped deep parameters at the top level.
    const junction = await site.call('GET', '/items/articles_blocks?fields=id,item.title&sort=id&deep[item:headings][filter][level][_eq]=2');
    expect(junction.status, JSON.stringify(junction.body)).toBe(200);
    expect(junction.body.data.map((row: Json) => row.item)).toEqual([null, { title: 'Body' }, 'q1', null, null, { title: 'Outro' }]);
    const junctionBad = await site.call('GET', '/items/articles_blocks?deep[item:nope][filter][title][_eq]=x');
    expect(errorOf('junction', junctionBad)).toEqual(['junction', 400, 'VALIDATION_FAILED', ['deep', 'item:nope']]);
  });

  it('checks that deep filters on targets only test fields the reader may read', async () => {
    const site = await createBlocksSite();
    const { article } = await seedDeepPage(site);
    const access = withHelpers(service, site);
    const role = await createRole(access);
    await grant(access, { roleId: role.id }, [
      { collection: 'articles', action: 'read', fields: ['id', 'title', 'blocks'] },
      { collection: 'articles_blocks', action: 'read' },
      { collection: 'headings', action: 'read', fields: ['title'] },
      { collection: 'quotes', action: 'read', fields: ['quote', 'author'] },
    ]);
    const reader = await createMember(service, site, { roleId: role.id });
    const read = (query: string) => access.as(reader.token, 'GET', `/items/articles/${article.id}?fields=blocks.item.title&${query}`);
    const hidden = await read('deep[blocks][item:headings][filter][level][_eq]=1');
    expect(errorOf('hidden', hidden)).toEqual(['hidden', 403, 'PERMISSION_DENIED', ['deep', 'blocks', 'deep', 'item:headings', 'filter', 'level']]);
    const unscopedHidden = await read('deep[blocks][item][filter][level][_eq]=1');
    expect(errorOf('unscoped', unscopedHidden)).toEqual(['unscoped', 403, 'PERMISSION_DENIED', ['deep', 'blocks', 'deep', 'item', 'filter', 'level']]);
    // An unscoped filter skips collections the reader cannot read at all (their targets read null anyway).
    expect(itemsOf(await read('deep[blocks][item][filter][title][_eq]=Outro'))).toEqual([null, null, 'q1', null, null, { title: 'Outro' }]);
    // No read rule on authors: a nested filter on them is refused, as for m2o.
    const nested = await access.as(reader.token, 'GET', `/items/articles/${article.id}?fields=blocks.item:quotes.author.name&deep[blocks][item:quotes][author][filter][name][_eq]=Ann`);
    expect([nested.status, nested.body.errors?.[0]?.code]).toEqual([403, 'PERMISSION_DENIED']);
  });
});
