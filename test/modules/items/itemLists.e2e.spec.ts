// Item lists: filter, sort, page and totals, nested relations and deep parameters, aggregates,
// singletons, and many-to-many / many-to-any reads.
import { describe, expect, it } from 'vitest';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { settledIndexes } from '../../support/fieldIndexes.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createArticleBlocks, createContentSite, createItem, type ContentSite } from './support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();

describe('lists', () => {
  async function seed(site: ContentSite) {
    const authors = (await site.call('POST', '/items/authors', [{ name: 'Ann' }, { name: 'Bob' }, { name: 'Cid' }])).body.data;
    const articles = Array.from({ length: 12 }, (_, i) => ({
      title: `Article ${String(i).padStart(2, '0')}`,
      views: i * 10,
      status: i % 3 === 0 ? 'draft' : 'published',
      published_at: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
      meta: { level: i % 4 },
      author: authors[i % 3].id,
    }));
    const created = (await site.call('POST', '/items/articles', articles)).body.data;
    return { authors, articles: created };
  }

  it('filters, sorts and pages, with meta total_count by default and meta=none', async () => {
    const site = await createContentSite(service);
    await seed(site);
    const page = await site.call('GET', '/items/articles?filter[status][_eq]=published&sort=-views&limit=3&page=2&fields=title,views');
    expect(page.body).toEqual({
      data: [
        { title: 'Article 07', views: 70 },
        { title: 'Article 05', views: 50 },
        { title: 'Article 04', views: 40 },
      ],
      meta: { total: 8, limit: 3, offset: 3 },
    });
    const none = await site.call('GET', '/items/articles?filter={"views":{"_gte":100}}&sort=views&meta=none&fields=views&offset=1');
    expect(none.body).toEqual({ data: [{ views: 110 }], meta: { limit: 25, offset: 1 } });
    const json = await site.call('GET', '/items/articles?filter[meta.level][_eq]=2&fields=views&sort=views');
    expect(json.body.data).toEqual([{ views: 20 }, { views: 60 }, { views: 100 }]);
    expect((await site.call('GET', '/items/articles?limit=500')).body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['limit'] });
    expect((await site.call('GET', '/items/articles?filter[nope][_eq]=1')).body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['filter', 'nope'] });
    expect((await site.call('GET', '/items/articles?filter={bad')).body.errors[0].code).toBe('VALIDATION');
    expect((await site.call('GET', '/items/articles?sort=nope')).body.errors[0].path).toEqual(['sort']);
    expect((await site.call('GET', '/items/articles?fields=nope')).body.errors[0].path).toEqual(['fields']);
    expect((await site.call('GET', '/items/articles')).body.data).toHaveLength(12);
  });

  it('answers the total of a page that is not full without counting, and counts otherwise', async () => {
    const site = await createContentSite(service);
    await seed(site);
    // The field index builder's work for the new site (its site statements, the schema reload after
    // it) would count with the reads below.
    await settledIndexes(service, owner, site.siteId);
    await service.context.daemon.drain();
    await service.context.daemon.stop();
    try {
      const list = async (query: string) => {
        const path = `/items/articles?filter[title][_contains]=Article 0&fields=views&sort=views&${query}`;
        await site.call('GET', path);
        const counts: number[] = [];
        let meta: unknown;
        for (let run = 0; run < 5; run += 1) {
          const before = service.context.database.stats.siteQueries;
          meta = (await site.call('GET', path)).body.meta;
          counts.push(service.context.database.stats.siteQueries - before);
        }
        return { meta, queries: Math.min(...counts) };
      };
      // Articles 00 to 09 match: ten rows.
      const partial = await list('limit=25');
      const last = await list('limit=4&offset=8');
      const full = await list('limit=4');
      const beyond = await list('limit=4&offset=20');
      expect([partial.meta, last.meta, full.meta, beyond.meta]).toEqual([
        { total: 10, limit: 25, offset: 0 },
        { total: 10, limit: 4, offset: 8 },
        { total: 10, limit: 4, offset: 0 },
        { total: 10, limit: 4, offset: 20 },
      ]);
      expect([partial.queries, last.queries, beyond.queries]).toEqual([full.queries - 1, full.queries - 1, full.queries]);
    } finally {
      await service.context.daemon.start();
    }
  });

  it('resolves $CURRENT_USER and $NOW in filters', async () => {
    const site = await createContentSite(service);
    await seed(site);
    expect((await site.call('GET', '/items/articles?filter[userCreated][_eq]=$CURRENT_USER&meta=none&limit=100')).body.data).toHaveLength(12);
    expect((await site.call('GET', '/items/articles?filter[published_at][_gt]=$NOW(-1 day)&fields=id')).body.data).toEqual([]);
    expect((await site.call('GET', '/items/articles?filter[published_at][_lt]=$NOW&fields=id')).body.data).toHaveLength(12);
  });

  it('selects nested relations: m2o, o2m (ids or fields), *, rel.*, and deep parameters', async () => {
    const site = await createContentSite(service);
    const { authors, articles } = await seed(site);
    await site.call('POST', '/items/comments', [
      { article: articles[0].id, text: 'first' },
      { article: articles[0].id, text: 'second' },
      { article: articles[1].id, text: 'third' },
    ]);
    const nested = await site.call('GET', '/items/articles?fields=title,author.name&sort=title&limit=2');
    expect(nested.body.data).toEqual([
      { title: 'Article 00', author: { name: 'Ann' } },
      { title: 'Article 01', author: { name: 'Bob' } },
    ]);
    const star = await site.call('GET', `/items/authors/${authors[0].id}?fields=*,articles.title`);
    expect(star.body.data).toMatchObject({ id: authors[0].id, name: 'Ann', email: null });
    expect(star.body.data.articles.map((article: { title: string }) => article.title).sort()).toEqual(['Article 00', 'Article 03', 'Article 06', 'Article 09']);
    const ids = await site.call('GET', `/items/articles/${articles[0].id}?fields=title,comments`);
    expect(ids.body.data.comments).toHaveLength(2);
    expect(typeof ids.body.data.comments[0]).toBe('string');
    const relStar = await site.call('GET', `/items/articles/${articles[0].id}?fields=author.*`);
    expect(relStar.body.data.author).toMatchObject({ id: authors[0].id, name: 'Ann' });
    const deep = await site.call(
      'GET',
      `/items/articles/${articles[0].id}?fields=comments.text&deep[comments][_sort]=-text&deep[comments][_limit]=1`,
    );
    expect(deep.body.data).toEqual({ comments: [{ text: 'second' }] });
    const deepFilter = await site.call('GET', `/items/articles/${articles[0].id}?fields=comments.text&deep[comments][_filter][text][_eq]=first`);
    expect(deepFilter.body.data).toEqual({ comments: [{ text: 'first' }] });
    const deepFields = await site.call('GET', `/items/articles/${articles[1].id}?fields=title&deep[author][fields]=name`);
    expect(deepFields.body.data).toEqual({ title: 'Article 01', author: { name: 'Bob' } });
    const relational = await site.call('GET', '/items/articles?filter[author][name][_eq]=Cid&fields=title&sort=title');
    expect(relational.body.data.map((article: { title: string }) => article.title)).toEqual(['Article 02', 'Article 05', 'Article 08', 'Article 11']);
  });

  it('aggregates with groupBy', async () => {
    const site = await createContentSite(service);
    await seed(site);
    const counted = await site.call('GET', '/items/articles?aggregate[count]=*&groupBy=status');
    expect(counted.body.data).toEqual([
      { status: 'draft', count: 4 },
      { status: 'published', count: 8 },
    ]);
    const summed = await site.call('GET', '/items/articles?aggregate[sum]=views&aggregate[max]=views&filter[status][_eq]=draft');
    expect(summed.body.data).toEqual([{ sum: { views: 180 }, max: { views: 90 } }]);
    expect((await site.call('GET', '/items/articles?aggregate[sum]=title')).body.errors[0].path).toEqual(['aggregate', 'sum']);
  });

  it('loads nested relations with the same number of queries whatever the page size', async () => {
    const site = await createContentSite(service);
    await seed(site);
    await site.call('POST', '/items/articles', Array.from({ length: 40 }, (_, i) => ({ title: `More ${i}` })));
    // Background parts of this service (the async projection daemon) share the counter: let them
    // catch up and pause them while counting.
    await service.context.daemon.drain();
    await service.context.daemon.stop();
    // Caches refresh and pollers (job queue, scheduler) run on their own clock: the fewest of several runs is the request's own count.
    const countQueries = async (path: string) => {
      await site.call('GET', path); // warm caches (schema, site, user)
      const counts: number[] = [];
      let items = 0;
      for (let run = 0; run < 7; run += 1) {
        const before = service.context.database.stats.siteQueries;
        const response = await site.call('GET', path);
        expect(response.status).toBe(200);
        counts.push(service.context.database.stats.siteQueries - before);
        items = response.body.data.length;
      }
      return { queries: Math.min(...counts), items };
    };
    const small = await countQueries('/items/articles?fields=id,title,author.name&limit=5');
    const large = await countQueries('/items/articles?fields=id,title,author.name&limit=50');
    expect([small.items, large.items]).toEqual([5, 50]);
    expect(large.queries).toBe(small.queries);
    const deeper = await countQueries('/items/authors?fields=name,articles.title,articles.author.name&limit=3');
    const deeperOne = await countQueries('/items/authors?fields=name,articles.title,articles.author.name&limit=1');
    expect(deeper.queries).toBe(deeperOne.queries);
    await service.context.daemon.start();
  });

  it('returns the one item of a singleton collection, and refuses a second', async () => {
    const site = await createContentSite(service);
    await site.call('POST', '/collections', { name: 'settings', singleton: true, fields: [{ field: 'motto', type: 'string' }] });
    expect((await site.call('GET', '/items/settings')).body).toEqual({ data: null });
    const created = await createItem(site, 'settings', { motto: 'Hi' });
    expect(created.id).toBe('singleton');
    expect((await site.call('GET', '/items/settings')).body.data).toMatchObject({ id: 'singleton', motto: 'Hi' });
    const second = await site.call('POST', '/items/settings', { motto: 'Again' });
    expect([second.status, second.body.errors[0].code]).toEqual([409, 'CONFLICT']);
  });
});

describe('many-to-many and many-to-any', () => {
  it('reads m2m through its junction and m2a junction rows', async () => {
    const site = await createContentSite(service);
    await site.call('POST', '/collections', { name: 'tags', fields: [{ field: 'label', type: 'string' }] });
    await site.call('POST', '/collections', { name: 'articles_tags', fields: [{ field: 'article', type: 'uuid' }, { field: 'tag', type: 'uuid' }] });
    await site.call('POST', '/collections', { name: 'headings', fields: [{ field: 'text', type: 'string' }] });
    await site.call('POST', '/relations', {
      kind: 'm2m',
      collection: 'articles',
      field: 'tagged',
      relatedCollection: 'tags',
      relatedField: 'articles',
      junctionCollection: 'articles_tags',
      junctionField: 'article',
      junctionRelatedField: 'tag',
    });
    await createArticleBlocks(service, site, ['headings']);
    const article = await createItem(site, 'articles', { title: 'Tagged' });
    const [news, tech] = (await site.call('POST', '/items/tags', [{ label: 'news' }, { label: 'tech' }])).body.data;
    await site.call('POST', '/items/articles_tags', [
      { article: article.id, tag: news.id },
      { article: article.id, tag: tech.id },
    ]);
    const heading = await createItem(site, 'headings', { text: 'Intro' });
    await createItem(site, 'articles_blocks', { article: article.id, item: heading.id, collection: 'headings' });
    const read = await site.call('GET', `/items/articles/${article.id}?fields=title,tagged.tag.label,blocks.collection,blocks.item`);
    expect(read.body.data.title).toBe('Tagged');
    expect(read.body.data.tagged.map((link: { tag: { label: string } }) => link.tag.label).sort()).toEqual(['news', 'tech']);
    expect(read.body.data.blocks).toEqual([{ collection: 'headings', item: heading.id }]);
    const back = await site.call('GET', `/items/tags/${news.id}?fields=label,articles.article.title`);
    expect(back.body.data).toEqual({ label: 'news', articles: [{ article: { title: 'Tagged' } }] });
    const write = await site.call('PATCH', `/items/articles/${article.id}`, { tagged: [] });
    expect(write.body.errors[0].path).toEqual(['body', 'tagged']);
  });
});
