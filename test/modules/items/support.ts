// A site with a content model for the item tests: authors (name, pii email), articles with a field
// of every type (m2o author → authors, restrict), comments (o2m from articles, set null).
import { expect } from 'vitest';
import { createCollection, createRelation, type FieldInput } from '../../support/contentModel.ts';
import { createTestSite, type TestResponse, type TestService, type TestSite } from '../../support/testService.ts';

/** JSON as the tests read it (the body type of TestResponse). */
export type Json = TestResponse['body'];

export interface ContentSite extends TestSite {
  call<T = Json>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse<T>>;
}

export function withCall(service: TestService, site: TestSite): ContentSite {
  return {
    ...site,
    call: (method, path, body, headers) =>
      service.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) }),
  };
}

export const ARTICLE_FIELDS: FieldInput[] = [
  { field: 'title', type: 'string', required: true },
  { field: 'body', type: 'text' },
  { field: 'views', type: 'integer', indexed: true },
  { field: 'rating', type: 'float' },
  { field: 'price', type: 'decimal', options: { precision: 10, scale: 2 } },
  { field: 'big', type: 'bigInteger' },
  { field: 'published', type: 'boolean' },
  { field: 'published_at', type: 'dateTime', indexed: true },
  { field: 'day', type: 'date' },
  { field: 'at', type: 'time' },
  { field: 'stamp', type: 'timestamp' },
  { field: 'ref', type: 'uuid' },
  { field: 'slug', type: 'slug' },
  { field: 'color', type: 'color' },
  { field: 'tags', type: 'csv' },
  { field: 'meta', type: 'json' },
  { field: 'location', type: 'geometry' },
  { field: 'gallery', type: 'files' },
  { field: 'secret', type: 'hash' },
  { field: 'summary', type: 'text', options: { translatable: true } },
  { field: 'snippet', type: 'code' },
  { field: 'author', type: 'uuid' },
];

export async function createContentSite(service: TestService, prefix = 'content'): Promise<ContentSite> {
  const site = withCall(service, await createTestSite(service, prefix));
  await createCollection(service, site, 'authors', [
    { field: 'name', type: 'string', required: true },
    { field: 'email', type: 'string', sensitivity: 'pii' },
  ]);
  await createCollection(service, site, 'articles', ARTICLE_FIELDS);
  await createCollection(service, site, 'comments', [
    { field: 'article', type: 'uuid' },
    { field: 'text', type: 'string' },
  ]);
  await createRelation(service, site, { id: 'article-author', kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors', relatedField: 'articles', onDelete: 'restrict' });
  await createRelation(service, site, { id: 'article-comments', kind: 'o2m', collection: 'articles', field: 'comments', relatedCollection: 'comments', relatedField: 'article', onDelete: 'set null' });
  return site;
}

/**
 * Page blocks: an `articles_blocks` junction (article, item, collection) and the m2a relation
 * `article-blocks` (`articles.blocks`) through it, to the allowed collections.
 */
export async function createArticleBlocks(service: TestService, site: ContentSite, allowedCollections: string[]): Promise<void> {
  await createCollection(service, site, 'articles_blocks', [
    { field: 'article', type: 'uuid' },
    { field: 'item', type: 'string' },
    { field: 'collection', type: 'string' },
  ]);
  await createRelation(service, site, {
    id: 'article-blocks',
    kind: 'm2a',
    collection: 'articles',
    field: 'blocks',
    junctionCollection: 'articles_blocks',
    junctionField: 'article',
    junctionItemField: 'item',
    junctionCollectionField: 'collection',
    allowedCollections,
  });
}

export async function createItem(site: ContentSite, collection: string, body: Record<string, unknown>): Promise<Json> {
  const response = await site.call('POST', `/items/${collection}`, body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data;
}
