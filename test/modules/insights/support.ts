// Helpers of the insights tests (docs/insights.md): a site with authors and articles, items with
// known values, dashboards and panels made over HTTP, and the panel data and preview calls.
import { expect } from 'vitest';
import { createCollection, createRelation } from '../../support/contentModel.ts';
import { createTestSite, type TestResponse, type TestService } from '../../support/testService.ts';
import { createItem, createRole, grant, withHelpers, type AccessSite, type RuleInput } from '../access/support.ts';
import { createMember, type Member } from '../identity/support/identity.ts';

export type InsightsSite = AccessSite;
export type Json = TestResponse['body'];

export async function createInsightsSite(service: TestService, prefix = 'ins'): Promise<InsightsSite> {
  return withHelpers(service, await createTestSite(service, prefix));
}

/**
 * `authors` (name) and `articles` (title, category, views integer, price decimal, publishedAt
 * dateTime, day date, email pii, meta json, author m2o → authors, whose to-many side is `articles`).
 */
export async function createArticles(site: InsightsSite): Promise<void> {
  await createCollection(site.service, site, 'authors', [{ field: 'name', type: 'string' }]);
  await createCollection(site.service, site, 'articles', [
    { field: 'title', type: 'string' },
    { field: 'category', type: 'string' },
    { field: 'views', type: 'integer' },
    { field: 'price', type: 'decimal' },
    { field: 'publishedAt', type: 'dateTime' },
    { field: 'day', type: 'date' },
    { field: 'email', type: 'string', sensitivity: 'pii' },
    { field: 'meta', type: 'json' },
    { field: 'author', type: 'uuid' },
  ]);
  await createRelation(site.service, site, { kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors', relatedField: 'articles', onDelete: 'restrict' });
}

export const daysAgo = (days: number, from = new Date()) => new Date(from.getTime() - days * 86_400_000).toISOString();

/**
 * Five articles: news (10, 20, 30 views), sport (5, 15); two by Ada, published 1, 1, 2, 10 and 40
 * days ago (fixed days of 2024 in `day`).
 */
export async function seedArticles(site: InsightsSite): Promise<{ ada: string; bob: string; now: Date }> {
  const now = new Date();
  const ada = (await createItem(site, 'authors', { name: 'Ada' })).id as string;
  const bob = (await createItem(site, 'authors', { name: 'Bob' })).id as string;
  const rows = [
    { title: 'n1', category: 'news', views: 10, price: '1.50', publishedAt: daysAgo(1, now), day: '2024-03-01', author: ada, email: 'a@x.test' },
    { title: 'n2', category: 'news', views: 20, price: '2.25', publishedAt: daysAgo(1.2, now), day: '2024-03-01', author: ada },
    { title: 'n3', category: 'news', views: 30, price: '3.00', publishedAt: daysAgo(2, now), day: '2024-03-02', author: bob },
    { title: 's1', category: 'sport', views: 5, price: '0.25', publishedAt: daysAgo(10, now), day: '2024-03-15', author: bob },
    { title: 's2', category: 'sport', views: 15, price: '4.00', publishedAt: daysAgo(40, now), day: '2024-04-20', author: bob },
  ];
  for (const row of rows) await createItem(site, 'articles', row);
  return { ada, bob, now };
}

export async function createDashboard(site: InsightsSite, body: Record<string, unknown> = {}): Promise<Json> {
  const created = await site.admin('POST', '/dashboards', { name: 'Editorial', ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data;
}

export const panelBody = (query: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name: 'A panel',
  type: 'table',
  position: { x: 0, y: 0, width: 6, height: 4 },
  query,
  ...extra,
});

export async function createPanel(site: InsightsSite, dashboardId: string, query: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Json> {
  const created = await site.admin('POST', `/dashboards/${dashboardId}/panels`, panelBody(query, extra));
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data;
}

/** POST …/panels/preview as `token` (default the administrator). */
export const preview = (site: InsightsSite, dashboardId: string, query: Record<string, unknown>, token: string | null = site.adminToken) =>
  site.as(token, 'POST', `/dashboards/${dashboardId}/panels/preview`, { query });

/** The rows of a preview that must succeed. */
export async function previewRows(site: InsightsSite, dashboardId: string, query: Record<string, unknown>, token: string | null = site.adminToken): Promise<Json[]> {
  const answered = await preview(site, dashboardId, query, token);
  expect(answered.status, JSON.stringify(answered.body)).toBe(200);
  return answered.body.data;
}

export const panelData = (site: InsightsSite, dashboardId: string, panelId: string, token: string | null = site.adminToken) =>
  site.as(token, 'POST', `/dashboards/${dashboardId}/panels/${panelId}/data`);

/** The first error of a refusal, after checking its status and code (and its path when given). */
export function expectError(response: TestResponse, status: number, code: string, path?: (string | number)[]): Json {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  const [error] = response.body.errors;
  expect(error.code, JSON.stringify(error)).toBe(code);
  if (path) expect(error.path, JSON.stringify(error)).toEqual(path);
  return error;
}

/** A member whose role has these rules. */
export async function memberWith(site: InsightsSite, rules: RuleInput[]): Promise<Member> {
  const role = await createRole(site);
  if (rules.length > 0) await grant(site, { roleId: role.id }, rules);
  return createMember(site.service, site, { roleId: role.id });
}
