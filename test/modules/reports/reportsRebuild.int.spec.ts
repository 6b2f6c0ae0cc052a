// The compliance_reports read model gives the same rows when rebuilt from the log: reports queued,
// completed (with progress recorded on the way) and failed. On a database of the file's own: a rebuild
// rewrites the whole table, which other files' reports must not see.
import { describe, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { createObjectStorage } from '../../../infra/storage/createObjectStorage.ts';
import { complianceReportsProjection } from '../../../projections/complianceReportsProjection.ts';
import { generateReport } from '../../../src/modules/reports/generateReport.ts';
import { requestReport } from '../../../src/modules/reports/handlers.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { completedReport, createReportSite, writeItem } from './support/reportHelpers.ts';

const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url });

describe('compliance reports read model', () => {
  it('rebuilds to the same rows', async () => {
    const site = await createReportSite(service);
    const from = new Date(Date.now() - 1).toISOString();
    for (let n = 0; n < 3; n += 1) await writeItem(site, n % 2 ? 'notes' : 'articles', `Item ${n}`);
    await service.context.daemon.drain();
    const to = new Date(Date.now() + 1).toISOString();
    await completedReport(site, { from, to, format: 'json', collections: ['notes'] });
    const metadata = { actor: { kind: 'user' as const, id: site.adminUserId } };
    const queue = async () => {};
    await requestReport(service.context, queue, site.siteId, { from, to, format: 'csv' }, metadata);
    const progressed = await requestReport(service.context, queue, site.siteId, { from, to, format: 'csv', actions: ['item.updated'] }, metadata);
    const storage = createObjectStorage(service.context.config);
    await generateReport(service.context, storage, site.siteId, progressed.id, { pageSize: 1, progressEveryEntries: 1 });
    const failed = await requestReport(service.context, queue, site.siteId, { from, to, format: 'json' }, metadata);
    await generateReport(service.context, storage, site.siteId, failed.id, { temporaryFolder: '/nonexistent-folder-for-reports' });

    await expectRebuildToGiveSameRows({
      service,
      owner: database.owner,
      projections: [complianceReportsProjection],
      snapshot: async () => ({
        compliance_reports: (await database.owner.query(sql`SELECT * FROM compliance_reports WHERE site_id = ${site.siteId} ORDER BY id`)).map((row) => JSON.stringify(row)),
      }),
      tablesWithRows: ['compliance_reports'],
    });
  });
});
