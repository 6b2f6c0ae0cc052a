// What the config manifest tests share: requests as a site's administrator, a small schema to start
// from, manifests built from parts, and the site's event count read as the owner.
import type pg from 'pg';
import { expect } from 'vitest';
import { createTestSite, type TestService, type TestSite } from '../../support/testService.ts';

export const VERSION = 'svc.config@v1';

/** Requests as the site's administrator. */
export function adminCalls(service: TestService, site: TestSite) {
  return (method: string, path: string, body?: unknown) =>
    service.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) });
}

/** Events of the site in the log (read as the owner: nothing of a refused import may be written). */
export async function eventCount(owner: pg.Client, siteId: string): Promise<number> {
  const { rows } = await owner.query<{ count: string }>('SELECT count(*) FROM events WHERE site_id = $1', [siteId]);
  return Number(rows[0]!.count);
}

/** A manifest with every section (empty unless given). */
export function manifest(parts: Record<string, unknown> = {}): Record<string, unknown> {
  return { version: VERSION, collections: [], fields: [], relations: [], webhooks: [], settings: [], managedScopes: [], ...parts };
}

export const blogSchema = {
  collections: [
    { name: 'articles', label: 'Articles', versioning: true },
    { name: 'authors', label: 'Authors' },
  ],
  fields: [
    { collection: 'articles', field: 'title', type: 'string', required: true },
    { collection: 'articles', field: 'views', type: 'integer' },
    { collection: 'articles', field: 'author', type: 'uuid' },
    { collection: 'authors', field: 'name', type: 'string' },
  ],
  relations: [{ id: 'article-author', kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors', onDelete: 'set null' }],
};

/** A fresh site and requests to its config routes as its administrator. */
export async function configSite(service: TestService) {
  const site = await createTestSite(service);
  const call = adminCalls(service, site);
  const importManifest = (body: unknown, query = 'mode=merge') => call('POST', `/config/import?${query}`, body);
  const dryRun = async (body: unknown, mode = 'merge') => {
    const response = await importManifest(body, `dryRun=true&mode=${mode}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data;
  };
  const apply = async (body: unknown, query = 'mode=merge') => {
    const response = await importManifest(body, query);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data;
  };
  const exportConfig = async (scope = 'all') => {
    const response = await call('GET', `/config/export?scope=${scope}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data;
  };
  return { site, call, importManifest, dryRun, apply, exportConfig };
}

/** An export without its time, for comparing two exports. */
export function withoutTime(exported: Record<string, unknown>): Record<string, unknown> {
  const { exportedAt: _exportedAt, ...rest } = exported;
  return rest;
}
