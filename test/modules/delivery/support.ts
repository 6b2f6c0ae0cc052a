// Helpers of the delivery tests: a site with authors and articles whose public role reads published
// articles (title, category, author) and authors' names, pages, and anonymous GETs with Node's fetch
// (so conditional requests behave as a standard client's), plus statement counting.
import { expect } from 'vitest';
import { createTestSite, type TestService } from '../../support/testService.ts';
import { createContentModel, createItem, grant, withHelpers, type AccessSite, type RuleInput } from '../access/support.ts';

export interface Delivered {
  status: number;
  headers: Headers;
  text: string;
  /** The body as JSON, or null when it is not JSON (llms.txt, an empty 304). */
  json: any;
}

/** An HTTP GET of `/api/v1<path>` with only the headers given (no Authorization unless named). */
export async function deliver(service: TestService, path: string, headers: Record<string, string> = {}): Promise<Delivered> {
  const response = await fetch(`${service.url}/api/v1${path}`, { headers });
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, text, json };
}

export const MISS = { errors: [{ code: 'NOT_FOUND', message: 'Not found', path: [], extensions: {} }] };

/** A 404 miss as the caching table has it: the one body, no-store, nothing for a shared cache. */
export function expectMiss(answer: Delivered): void {
  expect(answer.status, answer.text).toBe(404);
  expect(answer.json).toEqual(MISS);
  expect(answer.headers.get('cache-control')).toBe('no-store');
  expect(answer.headers.get('surrogate-key')).toBeNull();
}

export async function publicRoleId(site: AccessSite): Promise<string> {
  const roles = await site.admin('GET', '/roles');
  expect(roles.status, JSON.stringify(roles.body)).toBe(200);
  return roles.body.data.find((role: { systemKey: string }) => role.systemKey === 'public').id;
}

export async function grantPublic(site: AccessSite, rules: RuleInput[]): Promise<void> {
  await grant(site, { roleId: await publicRoleId(site) }, rules);
}

export interface DeliverySite extends AccessSite {
  authors: { ada: string; bob: string };
}

/**
 * A site with `authors` and `articles` (title, body, category, rating, author m2o). Its public role
 * reads published articles (title, category, author, status) and authors' names, unless `open` is false.
 */
export async function createDeliverySite(service: TestService, options: { open?: boolean; prefix?: string } = {}): Promise<DeliverySite> {
  const site = withHelpers(service, await createTestSite(service, options.prefix ?? 'dlv'));
  await createContentModel(site);
  const ada = (await createItem(site, 'authors', { name: 'Ada', email: 'ada@example.com' })).id as string;
  const bob = (await createItem(site, 'authors', { name: 'Bob', email: 'bob@example.com' })).id as string;
  if (options.open !== false) {
    await grantPublic(site, [
      { collection: 'articles', action: 'read', fields: ['id', 'title', 'category', 'author', 'status'], conditions: { status: { _eq: 'published' } } },
      { collection: 'authors', action: 'read', fields: ['id', 'name'] },
    ]);
  }
  return { ...site, authors: { ada, bob } };
}

export async function createArticle(site: AccessSite, body: Record<string, unknown>): Promise<string> {
  return (await createItem(site, 'articles', { status: 'published', ...body })).id as string;
}

export async function createPage(site: AccessSite, body: Record<string, unknown>): Promise<{ id: string; slug: string }> {
  const created = await site.admin('POST', '/pages', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data;
}

/**
 * The fewest SQL statements `work` ran over `runs` runs, with the projection daemon (which shares
 * the counter) drained and paused meanwhile.
 */
export async function fewestStatements(service: TestService, work: () => Promise<unknown>, runs = 5): Promise<number> {
  const { daemon, database } = service.context;
  await daemon.drain();
  await daemon.stop();
  try {
    const counts: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      const before = database.stats.queries;
      await work();
      counts.push(database.stats.queries - before);
    }
    return Math.min(...counts);
  } finally {
    await daemon.start();
  }
}

/** The SQL statements one call of `work` ran, with the projection daemon drained and paused. */
export async function statementsOf<T>(service: TestService, work: () => Promise<T>): Promise<{ statements: number; result: T }> {
  const { daemon, database } = service.context;
  await daemon.drain();
  await daemon.stop();
  try {
    const before = database.stats.queries;
    const result = await work();
    return { statements: database.stats.queries - before, result };
  } finally {
    await daemon.start();
  }
}
