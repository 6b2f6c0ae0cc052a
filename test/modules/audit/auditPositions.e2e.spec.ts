// The audit log tells a site nothing of other sites (issue 27, finding 11): its entries carry no
// global log position, whose gaps would count other sites' writes.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';

const service = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();

describe('GET /audit', () => {
  it('lists entries without global log positions, newest first', async () => {
    const site = await createTestSite(service, 'audit');
    const other = await createTestSite(service, 'audit');
    for (let index = 0; index < 3; index += 1) {
      await service.request('POST', '/auth/login', { site: other.siteId, body: { email: other.adminEmail, password: other.adminPassword } });
      await service.request('POST', '/auth/login', { site: site.siteId, body: { email: site.adminEmail, password: site.adminPassword } });
    }
    await service.context.daemon.drain();
    const response = await service.request('GET', '/audit?limit=200', { site: site.siteId, token: site.adminToken });
    expect(response.status).toBe(200);
    const entries = response.body.data as Record<string, unknown>[];
    expect(entries.length).toBeGreaterThan(3);
    for (const entry of entries) expect(entry).not.toHaveProperty('position');

    const positions = await owner.query<{ position: string }>(sql`SELECT position::text AS position FROM events WHERE site_id = ${site.siteId}`);
    const text = JSON.stringify(response.body);
    for (const { position } of positions) expect(text).not.toMatch(new RegExp(`[^0-9A-Za-z]${position}[^0-9A-Za-z]`));
    // Newest first, as the log recorded them.
    const events = await owner.query<{ event_id: string }>(sql`SELECT event_id FROM audit_log WHERE site_id = ${site.siteId} ORDER BY position DESC`);
    expect(entries.map((entry) => entry.eventId)).toEqual(events.map((row) => row.event_id));
  });
});
