// The schema, items and field-access read models rebuilt from the log give the same rows (and the
// same field indexes, with no build left to do) as the incremental run, after a workload that
// exercises every event they handle.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { fieldAccessLogProjection } from '../../../projections/fieldAccessLogProjection.ts';
import { itemsProjection } from '../../../projections/itemsProjection.ts';
import { schemaProjection } from '../../../projections/schemaProjection.ts';
import { snapshotReadModels } from '../../projections/freshDatabase.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { settledIndexes } from '../../support/fieldIndexes.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createContentSite, createItem, type ContentSite } from './support.ts';

const contentProjections = [schemaProjection, itemsProjection, fieldAccessLogProjection];

const fresh = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: fresh.url });

async function ok(site: ContentSite, method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  const response = await site.call(method, path, body, headers);
  expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
  return response.body?.data;
}

async function runWorkload(site: ContentSite): Promise<void> {
  const author = await createItem(site, 'authors', { name: 'Ann', email: 'ann@example.com' });
  const article = await createItem(site, 'articles', { title: 'One', author: author.id, secret: 'pw', summary: 'Hi' });
  await ok(site, 'POST', '/items/articles', [{ title: 'Two' }, { title: 'Three', views: 3 }]);
  await ok(site, 'PATCH', `/items/articles/${article.id}`, { views: 7 });
  await ok(site, 'PATCH', `/items/articles/${article.id}`, { title: 'Draft' }, { 'x-svc-draft': 'true' });
  await ok(site, 'PUT', `/items/articles/${article.id}`, { title: 'Replaced', author: author.id });
  await ok(site, 'GET', `/items/authors/${author.id}`);
  const comment = await createItem(site, 'comments', { article: article.id, text: 'c' });
  await ok(site, 'POST', `/items/articles/${article.id}/resolve-dependents`, { action: 'delete', relation: 'article-comments', hard: true });
  await ok(site, 'DELETE', `/items/articles/${article.id}`);
  void comment;
  // A deleted item brought back by a revert (item.restored, item.reverted), then deleted again.
  const [, revision] = (await ok(site, 'GET', `/items/articles/${article.id}/revisions`)) as { revisionId: string }[];
  await ok(site, 'POST', `/items/articles/${article.id}/revert`, { revisionId: revision!.revisionId });
  await ok(site, 'PATCH', `/items/articles/${article.id}`, { views: 8 });
  await ok(site, 'DELETE', `/items/articles/${article.id}`);
  await ok(site, 'POST', '/fields/articles', { field: 'extra', type: 'integer', indexed: true });
  await ok(site, 'PATCH', '/fields/articles/extra', { indexed: false, note: 'n' });
  await ok(site, 'PATCH', '/fields/articles/views', { indexed: false });
  await ok(site, 'DELETE', '/fields/articles/snippet');
  await ok(site, 'PATCH', '/collections/articles', { icon: 'news' });
  await ok(site, 'PATCH', '/relations/article-author', { onDelete: 'set null' });
  await ok(site, 'POST', '/collections', { name: 'doomed', fields: [{ field: 'n', type: 'integer', indexed: true }] });
  await ok(site, 'DELETE', '/collections/doomed');
}

async function snapshot(): Promise<Record<string, string[]>> {
  const tables = await snapshotReadModels(fresh.owner, contentProjections);
  const indexes = await fresh.owner.query<{ indexdef: string }>(sql`SELECT indexdef FROM pg_indexes WHERE tablename = 'items' ORDER BY indexdef`);
  tables.indexes = indexes.map((row) => row.indexdef);
  // List totals come from the count rows (migration 0104): folded, they equal the live items.
  const counted = await fresh.owner.query<{ key: string }>(sql`
    SELECT concat_ws('/', site_id, collection, status, sum(live)) AS key FROM item_count_deltas
     GROUP BY site_id, collection, status HAVING sum(live) <> 0 ORDER BY 1`);
  const live = await fresh.owner.query<{ key: string }>(sql`
    SELECT concat_ws('/', site_id, collection, status, count(*)) AS key FROM items WHERE deleted_at IS NULL
     GROUP BY site_id, collection, status ORDER BY 1`);
  expect(counted.map((row) => row.key)).toEqual(live.map((row) => row.key));
  tables.item_counts = counted.map((row) => row.key);
  return tables;
}

describe('rebuilding the content read models', () => {
  it('gives the same rows and indexes as the incremental run', { timeout: 60_000 }, async () => {
    const sites = await Promise.all([createContentSite(service), createContentSite(service)]);
    await Promise.all(sites.map(runWorkload));
    await service.context.daemon.drain();
    // Field indexes are built after the schema commands: compare once they stand as the schema asks.
    for (const site of sites) await settledIndexes(service, fresh.owner.pool, site.siteId);
    await expectRebuildToGiveSameRows({
      service,
      owner: fresh.owner,
      projections: contentProjections,
      snapshot,
      tablesWithRows: ['collections', 'collection_fields', 'collection_relations', 'schema_versions', 'item_field_indexes', 'items', 'item_drafts', 'field_access_log'],
    });
  });
});
