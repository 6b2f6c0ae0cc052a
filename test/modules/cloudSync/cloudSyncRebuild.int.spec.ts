// The cloud-sync pipelines read model gives the same rows when rebuilt from the log: created, renamed,
// re-credentialed (a new sealed reference) and deleted pipelines.
import { describe, expect, it } from 'vitest';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { cloudSyncPipelinesProjection } from '../../../projections/cloudSyncPipelinesProjection.ts';
import { createCollection } from '../../support/contentModel.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';

const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url });

describe('cloud-sync read model', () => {
  it('rebuilds to the same rows', async () => {
    const site = await createTestSite(service, 'sync-rebuild');
    await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await service.request(method, path, { site: site.siteId, token: site.adminToken, body });
      expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
      return response.body?.data;
    };
    const pipeline = (name: string) => ({
      name,
      target: 'realtime_database',
      projectId: 'demo',
      credentials: { databaseUrl: 'https://demo.example.com', secret: 's3cret' },
      collections: ['articles'],
    });
    const kept = await call('POST', '/cloud-sync/pipelines', pipeline('Kept'));
    await call('PATCH', `/cloud-sync/pipelines/${kept.id}`, { name: 'Kept 2', syncOnDelete: false, credentials: { databaseUrl: 'https://demo.example.com', secret: 'other' } });
    const gone = await call('POST', '/cloud-sync/pipelines', pipeline('Gone'));
    await call('DELETE', `/cloud-sync/pipelines/${gone.id}`);
    await call('POST', '/cloud-sync/pipelines', pipeline('Third'));
    const rows = (query: SqlFragment) => database.owner.query(query).then((found) => found.map((row) => JSON.stringify(row)));
    await expectRebuildToGiveSameRows({
      service,
      owner: database.owner,
      projections: [cloudSyncPipelinesProjection],
      tablesWithRows: ['cloud_sync_pipelines'],
      snapshot: async () => ({ cloud_sync_pipelines: await rows(sql`SELECT * FROM cloud_sync_pipelines WHERE site_id = ${site.siteId} ORDER BY id`) }),
    });
  });
});
