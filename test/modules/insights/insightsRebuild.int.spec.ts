// The dashboards read models give the same rows when rebuilt from the log: dashboards created,
// changed and deleted (with their panels), panels added, changed and removed. On a database of the
// file's own: a rebuild rewrites the whole tables, which other files' dashboards must not see.
import { describe, expect, it } from 'vitest';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { dashboardsProjection } from '../../../projections/dashboardsProjection.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createArticles, createDashboard, createInsightsSite, createPanel } from './support.ts';

const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url });

async function snapshot(siteId: string): Promise<Record<string, string[]>> {
  const rows = (query: SqlFragment) => database.owner.query(query).then((found) => found.map((row) => JSON.stringify(row)));
  return {
    dashboards: await rows(sql`SELECT * FROM dashboards WHERE site_id = ${siteId} ORDER BY id`),
    dashboard_panels: await rows(sql`SELECT * FROM dashboard_panels WHERE site_id = ${siteId} ORDER BY id`),
  };
}

describe('dashboards read models', () => {
  it('rebuild to the same rows', async () => {
    const site = await createInsightsSite(service, 'insrb');
    await createArticles(site);
    const count = { collection: 'articles', aggregate: 'count' };
    const kept = await createDashboard(site, { name: 'Kept', color: '#abc' });
    const changed = await createPanel(site, kept.id, count, { name: 'Changed' });
    const removed = await createPanel(site, kept.id, count, { name: 'Removed' });
    await createPanel(site, kept.id, { ...count, groupBy: ['category'] }, { name: 'Plain', options: { legend: false } });
    expect((await site.admin('PATCH', `/dashboards/${kept.id}`, { note: 'Noted', icon: 'chart' })).status).toBe(200);
    expect((await site.admin('PATCH', `/dashboards/${kept.id}/panels/${changed.id}`, { type: 'pie', position: { x: 6, y: 0, width: 6, height: 4 } })).status).toBe(200);
    expect((await site.admin('DELETE', `/dashboards/${kept.id}/panels/${removed.id}`)).status).toBe(204);
    const gone = await createDashboard(site, { name: 'Gone' });
    await createPanel(site, gone.id, count);
    expect((await site.admin('DELETE', `/dashboards/${gone.id}`)).status).toBe(204);

    const before = await snapshot(site.siteId);
    expect(before.dashboards).toHaveLength(1);
    expect(before.dashboard_panels).toHaveLength(2);
    await expectRebuildToGiveSameRows({
      service,
      owner: database.owner,
      projections: [dashboardsProjection],
      tablesWithRows: Object.keys(before),
      snapshot: () => snapshot(site.siteId),
    });
  });
});
