// The history and search read models rebuilt from the log give the same rows as the incremental run,
// after a workload that exercises every event they handle.
import { describe, expect, it } from 'vitest';
import { itemsProjection } from '../../../projections/itemsProjection.ts';
import { itemPinsProjection } from '../../../projections/itemPinsProjection.ts';
import { itemVersionsProjection } from '../../../projections/itemVersionsProjection.ts';
import { revisionsProjection } from '../../../projections/revisionsProjection.ts';
import { searchProjection } from '../../../projections/searchProjection.ts';
import { snapshotReadModels } from '../../projections/freshDatabase.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createHistorySite, createItem, patchItem, revisionsOf, type HistorySite } from './support.ts';

const historyProjections = [itemsProjection, revisionsProjection, itemVersionsProjection, itemPinsProjection, searchProjection];

const fresh = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: fresh.url });

async function ok(response: Promise<{ status: number; body: unknown }>, status: number): Promise<void> {
  const result = await response;
  expect(result.status, JSON.stringify(result.body)).toBe(status);
}

/** Creates, edits, drafts, reverts, versions, promotes, pins, deletes, restores and drops a field. */
async function runWorkload(site: HistorySite): Promise<void> {
  const author = await createItem(service, site, 'authors', { name: 'Nguyễn Văn A' });
  const article = await createItem(service, site, 'articles', { title: 'Tiếng Việt', body: 'Xin chào', secret: 'pw', author: author.id });
  await patchItem(service, site, 'articles', article.id, { title: 'Tiếng Việt 2', views: 3 });
  await patchItem(service, site, 'articles', article.id, { title: 'Nháp' }, { 'x-svc-draft': 'true' });
  const [, , first] = await revisionsOf(service, site, 'articles', article.id);
  await ok(service.request('POST', `/items/articles/${article.id}/revert`, { ...site.as, body: { revisionId: first.revisionId } }), 200);
  await ok(service.request('POST', `/items/articles/${article.id}/versions`, { ...site.as, body: { key: 'draft', name: 'Draft' } }), 201);
  await ok(service.request('PATCH', `/items/articles/${article.id}/versions/draft`, { ...site.as, body: { data: { body: 'Phiên bản' } } }), 200);
  await ok(service.request('POST', `/items/articles/${article.id}/versions/draft/promote`, site.as), 200);
  await ok(service.request('POST', `/items/articles/${article.id}/versions`, { ...site.as, body: { key: 'gone', name: 'Gone' } }), 201);
  await ok(service.request('DELETE', `/items/articles/${article.id}/versions/gone`, site.as), 204);
  const [authorRevision] = await revisionsOf(service, site, 'authors', author.id);
  await ok(service.request('POST', `/items/articles/${article.id}/pins`, { ...site.as, body: { field: 'author', revisionId: authorRevision.revisionId } }), 201);
  await ok(service.request('POST', `/items/articles/${article.id}/pins`, { ...site.as, body: { field: '*', revisionId: first.revisionId } }), 201);
  await ok(service.request('DELETE', `/items/articles/${article.id}/pins/author`, site.as), 204);
  await ok(service.request('POST', '/items/articles', { ...site.as, body: [{ title: 'Bulk một' }, { title: 'Bulk hai' }] }), 201);
  const other = await createItem(service, site, 'articles', { title: 'Sẽ bị xoá' });
  await ok(service.request('DELETE', `/items/articles/${other.id}`, site.as), 204);
  const [, created] = await revisionsOf(service, site, 'articles', other.id);
  await ok(service.request('POST', `/items/articles/${other.id}/revert`, { ...site.as, body: { revisionId: created.revisionId } }), 200);
  const gone = await createItem(service, site, 'articles', { title: 'Xoá hẳn' });
  await ok(service.request('DELETE', `/items/articles/${gone.id}`, site.as), 204);
  await ok(service.request('DELETE', '/fields/articles/body', site.as), 204);
}

async function snapshot(): Promise<Record<string, string[]>> {
  const tables = await snapshotReadModels(fresh.owner, historyProjections);
  return tables;
}

describe('rebuilding the history and search read models', () => {
  it('gives the same rows as the incremental run', { timeout: 60_000 }, async () => {
    const sites = await Promise.all([createHistorySite(service), createHistorySite(service)]);
    await Promise.all(sites.map(runWorkload));
    await expectRebuildToGiveSameRows({
      service,
      owner: fresh.owner,
      projections: historyProjections,
      snapshot,
      tablesWithRows: ['item_revisions', 'item_history', 'item_versions', 'item_pins', 'search_documents', 'search_fields'],
    });
  });
});
