// A site with a content model for the item tests: authors (name, pii email), articles with a field
// of every type (m2o author → authors, restrict), comments (o2m from articles, set null).
import { expect } from 'vitest';
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

export const ARTICLE_FIELDS = [
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
  const expectCreated = (response: TestResponse) => expect(response.status, JSON.stringify(response.body)).toBe(201);
  expectCreated(
    await site.call('POST', '/collections', {
      name: 'authors',
      fields: [
        { field: 'name', type: 'string', required: true },
        { field: 'email', type: 'string', sensitivity: 'pii' },
      ],
    }),
  );
  expectCreated(await site.call('POST', '/collections', { name: 'articles', fields: ARTICLE_FIELDS }));
  expectCreated(
    await site.call('POST', '/collections', {
      name: 'comments',
      fields: [
        { field: 'article', type: 'uuid' },
        { field: 'text', type: 'string' },
      ],
    }),
  );
  expectCreated(
    await site.call('POST', '/relations', {
      id: 'article-author',
      kind: 'm2o',
      collection: 'articles',
      field: 'author',
      relatedCollection: 'authors',
      relatedField: 'articles',
      onDelete: 'restrict',
    }),
  );
  expectCreated(
    await site.call('POST', '/relations', {
      id: 'article-comments',
      kind: 'o2m',
      collection: 'articles',
      field: 'comments',
      relatedCollection: 'comments',
      relatedField: 'article',
      onDelete: 'set null',
    }),
  );
  return site;
}

export async function createItem(site: ContentSite, collection: string, body: Record<string, unknown>): Promise<Json> {
  const response = await site.call('POST', `/items/${collection}`, body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data;
}
