// What the schema tests share: requests as a site's administrator, the site's event count, and the
// articles collection most tests start from.
import type pg from 'pg';
import { createTestSite, type TestService, type TestSite } from '../../support/testService.ts';

/** Requests as the site's administrator. */
export function adminCalls(service: TestService, site: TestSite) {
  return (method: string, path: string, body?: unknown) =>
    service.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) });
}

/** Events of the site in the log (read as the owner: nothing of a refused request may be written). */
export async function eventCount(owner: pg.Client, siteId: string): Promise<number> {
  const { rows } = await owner.query<{ count: string }>('SELECT count(*) FROM events WHERE site_id = $1', [siteId]);
  return Number(rows[0]!.count);
}

export const articles = {
  name: 'articles',
  displayName: 'Articles',
  icon: 'article',
  fields: [
    { field: 'title', type: 'string', required: true },
    { field: 'views', type: 'integer', indexed: true },
    { field: 'author', type: 'uuid' },
  ],
};

/** A fresh site with `articles` and `authors` (name), and requests as its administrator. */
export async function siteWithArticlesAndAuthors(service: TestService) {
  const site = await createTestSite(service);
  const call = adminCalls(service, site);
  await call('POST', '/collections', articles);
  await call('POST', '/collections', { name: 'authors', fields: [{ field: 'name', type: 'string' }] });
  return { site, call };
}
