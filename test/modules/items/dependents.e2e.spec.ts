import { describe, expect, it } from 'vitest';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createContentSite, createItem, type ContentSite } from './support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();

/** An author with three articles (restrict) and an article with two comments (set null). */
async function withDependents(site: ContentSite) {
  const author = await createItem(site, 'authors', { name: 'Ann' });
  const other = await createItem(site, 'authors', { name: 'Bob' });
  const articles = (await site.call('POST', '/items/articles', [1, 2, 3].map((n) => ({ title: `A${n}`, author: author.id })))).body.data;
  const comments = (
    await site.call('POST', '/items/comments', [
      { article: articles[0].id, text: 'c1' },
      { article: articles[0].id, text: 'c2' },
    ])
  ).body.data;
  return { author, other, articles, comments };
}

async function types(site: ContentSite, collection: string, id: string): Promise<string[]> {
  const { rows } = await owner.query('SELECT type FROM events WHERE stream_id = $1 ORDER BY stream_position', [`${site.siteId}/item/${collection}/${id}`]);
  return rows.map((row) => row.type);
}

describe('dependents', () => {
  it('reports who points at an item, per relation, with counts and a sample', async () => {
    const site = await createContentSite(service);
    const { author, articles } = await withDependents(site);
    const report = await site.call('GET', `/items/authors/${author.id}/dependents`);
    expect(report.status).toBe(200);
    expect(report.body.data).toEqual({
      blocking: true,
      dependents: [
        {
          relation: 'article-author',
          collection: 'articles',
          field: 'author',
          onDelete: 'restrict',
          count: 3,
          sample: articles.map((article: { id: string }) => article.id).sort(),
        },
      ],
    });
    const article = await site.call('GET', `/items/articles/${articles[0].id}/dependents`);
    expect(article.body.data).toEqual({
      blocking: false,
      dependents: [expect.objectContaining({ relation: 'article-comments', collection: 'comments', field: 'article', onDelete: 'set null', count: 2 })],
    });
  });

  it('refuses to delete an item a restrict relation still points at: 409 DEPENDENT_RECORDS_EXIST with the dependents', async () => {
    const site = await createContentSite(service);
    const { author } = await withDependents(site);
    const refused = await site.call('DELETE', `/items/authors/${author.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0]).toMatchObject({
      code: 'DEPENDENT_RECORDS_EXIST',
      extensions: { dependents: [{ relation: 'article-author', collection: 'articles', field: 'author', onDelete: 'restrict', count: 3 }] },
    });
    expect(await types(site, 'authors', author.id)).toEqual(['item.created']);
  });

  it('does not apply set null or cascade on a soft delete', async () => {
    const site = await createContentSite(service);
    const { articles, comments } = await withDependents(site);
    expect((await site.call('DELETE', `/items/articles/${articles[0].id}`)).status).toBe(204);
    const comment = await site.call('GET', `/items/comments/${comments[0].id}`);
    expect(comment.body.data.article).toBe(articles[0].id);
  });

  it('set_null clears the field of every dependent in one transaction, after which the delete passes', async () => {
    const site = await createContentSite(service);
    const { author, articles } = await withDependents(site);
    const resolved = await site.call('POST', `/items/authors/${author.id}/resolve-dependents`, { action: 'set_null', relation: 'article-author' });
    expect(resolved.status).toBe(200);
    expect(resolved.body.data).toMatchObject({ action: 'set_null', relation: 'article-author', affected: 3, blocking: false });
    for (const article of articles) {
      expect((await site.call('GET', `/items/articles/${article.id}`)).body.data.author).toBeNull();
      expect(await types(site, 'articles', article.id)).toEqual(['item.created', 'item.updated']);
    }
    expect((await site.call('DELETE', `/items/authors/${author.id}`)).status).toBe(204);
  });

  it('set_null on a required field is 409 FIELD_REQUIRED and changes nothing', async () => {
    const site = await createContentSite(service);
    const { author, articles } = await withDependents(site);
    expect((await site.call('PATCH', '/fields/articles/author', { required: true })).status).toBe(200);
    const refused = await site.call('POST', `/items/authors/${author.id}/resolve-dependents`, { action: 'set_null', relation: 'article-author' });
    expect([refused.status, refused.body.errors[0].code]).toEqual([409, 'FIELD_REQUIRED']);
    expect(refused.body.errors[0].extensions).toEqual({ collection: 'articles', field: 'author' });
    expect((await site.call('GET', `/items/articles/${articles[0].id}`)).body.data.author).toBe(author.id);
  });

  it('reassign points the dependents at another item; a bad target is 422 INVALID_TARGET', async () => {
    const site = await createContentSite(service);
    const { author, other, articles } = await withDependents(site);
    const resolve = (body: Record<string, unknown>) => site.call('POST', `/items/authors/${author.id}/resolve-dependents`, { action: 'reassign', relation: 'article-author', ...body });
    const missing = await resolve({});
    expect([missing.status, missing.body.errors[0].code, missing.body.errors[0].path]).toEqual([400, 'VALIDATION_FAILED', ['body', 'newTargetId']]);
    for (const target of ['no-such-author', author.id, articles[0].id]) {
      const bad = await resolve({ newTargetId: target });
      expect([bad.status, bad.body.errors[0].code, bad.body.errors[0].path]).toEqual([422, 'INVALID_TARGET', ['body', 'newTargetId']]);
    }
    await site.call('DELETE', `/items/authors/${other.id}`);
    expect((await resolve({ newTargetId: other.id })).status).toBe(422);
    const third = await createItem(site, 'authors', { name: 'Cid' });
    const moved = await resolve({ newTargetId: third.id });
    expect(moved.body.data).toMatchObject({ affected: 3, blocking: false, dependents: [{ count: 0, sample: [] }] });
    expect((await site.call('GET', `/items/authors/${third.id}/dependents`)).body.data.dependents[0].count).toBe(3);
  });

  it('delete removes the dependents through the normal delete path; hard removes them for good', async () => {
    const site = await createContentSite(service);
    const { author, articles } = await withDependents(site);
    // the first article has comments, but they point at it through a set null relation: no block
    const soft = await site.call('POST', `/items/authors/${author.id}/resolve-dependents`, { action: 'delete', relation: 'article-author' });
    expect(soft.body.data).toMatchObject({ affected: 3, blocking: false });
    expect(await types(site, 'articles', articles[0].id)).toEqual(['item.created', 'item.deleted']);

    const second = await withDependents(site);
    const hard = await site.call('POST', `/items/authors/${second.author.id}/resolve-dependents`, { action: 'delete', relation: 'article-author', hard: true });
    expect(hard.body.data.affected).toBe(3);
    expect(await types(site, 'articles', second.articles[1].id)).toEqual(['item.created', 'item.hard_deleted']);
    const { rows } = await owner.query('SELECT count(*)::int AS n FROM items WHERE site_id = $1 AND id = ANY($2)', [
      site.siteId,
      second.articles.map((article: { id: string }) => article.id),
    ]);
    expect(rows[0].n).toBe(0);
  });

  it('is transactional: a dependent that cannot be deleted leaves every dependent as it was', async () => {
    const site = await createContentSite(service);
    await site.call('PATCH', '/relations/article-comments', { onDelete: 'restrict' });
    const { author, articles } = await withDependents(site);
    const refused = await site.call('POST', `/items/authors/${author.id}/resolve-dependents`, { action: 'delete', relation: 'article-author' });
    expect([refused.status, refused.body.errors[0].code]).toEqual([409, 'DEPENDENT_RECORDS_EXIST']);
    for (const article of articles) expect(await types(site, 'articles', article.id)).toEqual(['item.created']);
  });

  it('refuses an unknown relation, an unknown action and a missing item', async () => {
    const site = await createContentSite(service);
    const { author } = await withDependents(site);
    const unknown = await site.call('POST', `/items/authors/${author.id}/resolve-dependents`, { action: 'set_null', relation: 'article-comments' });
    expect([unknown.status, unknown.body.errors[0].path]).toEqual([400, ['body', 'relation']]);
    const action = await site.call('POST', `/items/authors/${author.id}/resolve-dependents`, { action: 'cascade', relation: 'article-author' });
    expect([action.status, action.body.errors[0].path]).toEqual([400, ['body', 'action']]);
    const missing = await site.call('POST', '/items/authors/nobody/resolve-dependents', { action: 'set_null', relation: 'article-author' });
    expect([missing.status, missing.body.errors[0].code]).toEqual([404, 'RECORD_NOT_FOUND']);
  });
});
