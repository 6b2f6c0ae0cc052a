// The audit read model gives the same rows, details included, when rebuilt from the log: the
// details are a function of each event (domain/shared/auditEvents.ts), never of when it was applied.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { auditProjection } from '../../../projections/auditProjection.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createItem } from '../access/support.ts';
import { erasureSite, ok, requestErasure, unique } from '../erasure/support.ts';

const service = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();

describe('the audit read model', () => {
  it('rebuilds to the same rows, details included', async () => {
    const { site, second } = await erasureSite(service, 'audit-rebuild');
    const email = `${unique('subject')}@example.test`;
    await createItem(site, 'patients', { name: 'One', email });
    await createItem(site, 'patients', { name: 'Two', email });
    await ok(site.as(second.token, 'PUT', '/me/consents/analytics', { granted: true, source: 'banner', version: '3' }));
    const erasure = await requestErasure(site, { collection: 'patients', filter: { email: { _eq: email } } });
    await ok(site.as(second.token, 'POST', `/admin/erasure/${erasure.id}/confirm`));
    await ok(site.admin('POST', `/admin/erasure/${erasure.id}/execute`));

    const snapshot = async () => ({
      audit_log: (await owner.query(sql`SELECT * FROM audit_log WHERE site_id = ${site.siteId} ORDER BY position`)).map((row) => JSON.stringify(row)),
    });
    await service.context.daemon.drain();
    const [erased] = await owner.query<{ details: unknown }>(sql`SELECT details FROM audit_log WHERE site_id = ${site.siteId} AND action = 'data_erased'`);
    expect(erased!.details).toMatchObject({ recordCount: 2, collection: 'patients' });
    await expectRebuildToGiveSameRows({ service, owner, projections: [auditProjection], tablesWithRows: ['audit_log'], snapshot });
  });
});
