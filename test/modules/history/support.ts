// A site with two related collections for the history tests: authors (name) and articles (title,
// body, views, a hash field and an m2o author).
import { expect } from 'vitest';
import { createCollection, createRelation } from '../../support/contentModel.ts';
import { createTestSite, type TestService, type TestSite } from '../../support/testService.ts';

export interface HistorySite extends TestSite {
  as: { site: string; token: string };
}

export async function createHistorySite(service: TestService): Promise<HistorySite> {
  const site = await createTestSite(service, 'hist');
  const as = { site: site.siteId, token: site.adminToken };
  await createCollection(service, site, 'authors', [{ field: 'name', type: 'string' }]);
  await createCollection(service, site, 'articles', [
    { field: 'title', type: 'string', required: true },
    { field: 'body', type: 'text' },
    { field: 'views', type: 'integer' },
    { field: 'secret', type: 'hash' },
    { field: 'author', type: 'uuid' },
  ]);
  await createRelation(service, site, { kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors', onDelete: 'set null' });
  return { ...site, as };
}

export interface TestItem {
  id: string;
  [field: string]: unknown;
}

/** A revision as GET /items/:collection/:id/revisions lists it. */
export interface RevisionView {
  revisionId: string;
  collection: string;
  item: string;
  version: number;
  event: string;
  actor: { kind: string; id: string | null };
  timestamp: string;
  staged: boolean;
  cause: Record<string, unknown> | null;
  draft: Record<string, unknown> | null;
  data: Record<string, unknown>;
  delta: Record<string, unknown>;
}

export async function createItem(service: TestService, site: HistorySite, collection: string, body: Record<string, unknown>): Promise<TestItem> {
  const response = await service.request('POST', `/items/${collection}`, { ...site.as, body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data;
}

export async function patchItem(
  service: TestService,
  site: HistorySite,
  collection: string,
  id: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<TestItem> {
  const response = await service.request('PATCH', `/items/${collection}/${id}`, { ...site.as, body, headers });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

/**
 * An item's revisions, newest first. Typed as at least five so that tests can destructure what they
 * wrote; a revision that is not there is undefined and fails the test where it is used.
 */
export type Revisions = [RevisionView, RevisionView, RevisionView, RevisionView, RevisionView, ...RevisionView[]];

export async function revisionsOf(service: TestService, site: HistorySite, collection: string, id: string): Promise<Revisions> {
  const response = await service.request('GET', `/items/${collection}/${id}/revisions?limit=200`, site.as);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

export function expectError(response: { status: number; body: { errors: [{ code: string; path: unknown[] }] } }, status: number, code: string, path?: (string | number)[]): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.errors[0].code).toBe(code);
  if (path) expect(response.body.errors[0].path).toEqual(path);
}
