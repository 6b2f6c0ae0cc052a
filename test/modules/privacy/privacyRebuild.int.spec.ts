// The privacy read models give the same rows when rebuilt from the log: consents, restrictions, and
// each site's encryption settings (active key, retired keys, envelope mode).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { consentsProjection } from '../../../projections/consentsProjection.ts';
import { encryptionSettingsProjection } from '../../../projections/encryptionSettingsProjection.ts';
import { restrictionsProjection } from '../../../projections/restrictionsProjection.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createMember } from '../access/support.ts';

const key = () => randomBytes(32).toString('base64');
const service = await startTestServiceForFile({ SVC_ENCRYPTION_KEYS: `k1:${key()},k2:${key()},k3:${key()}` });
const owner = openOwnerDatabaseForFile();

describe('privacy read models', () => {
  it('rebuild to the same rows', async () => {
    const site = await createTestSite(service, 'privacy');
    const member = await createMember(service, site);
    const other = await createMember(service, site);
    const put = (token: string, path: string, body: unknown) => service.request('PUT', path, { site: site.siteId, token, body });
    await put(member.token, '/me/consents/marketing', { granted: true, source: 'banner', version: '1' });
    await put(member.token, '/me/consents/marketing', { granted: false, source: 'settings', version: '1' });
    await put(member.token, '/me/consents/marketing', { granted: true, source: 'settings', version: '2' });
    await put(member.token, '/me/consents/sale_share', { granted: false, source: 'banner', version: '1' });
    await put(other.token, '/me/consents/analytics', { granted: true, source: 'banner', version: '1' });
    await put(member.token, '/me/restriction', { restricted: true, reason: 'first' });
    await put(member.token, '/me/restriction', { restricted: true, reason: 'second' });
    await put(other.token, '/me/restriction', { restricted: true });
    await put(other.token, '/me/restriction', { restricted: false });
    const admin = (path: string, body: unknown) => service.request('POST', path, { site: site.siteId, token: site.adminToken, body });
    for (const keyId of ['k2', 'k3', 'k1']) expect((await admin('/admin/encryption/keys/rotate', { keyId })).status).toBe(200);
    expect((await admin('/admin/encryption/envelope', { enabled: true, password: site.adminPassword })).status).toBe(200);

    await expectRebuildToGiveSameRows({
      service,
      owner,
      projections: [consentsProjection, restrictionsProjection, encryptionSettingsProjection],
      tablesWithRows: ['consents', 'processing_restrictions', 'encryption_settings'],
      snapshot: async () => ({
        consents: (await owner.query(sql`SELECT * FROM consents WHERE site_id = ${site.siteId} ORDER BY user_id, consent_type`)).map((row) => JSON.stringify(row)),
        processing_restrictions: (await owner.query(sql`SELECT * FROM processing_restrictions WHERE site_id = ${site.siteId} ORDER BY user_id`)).map((row) => JSON.stringify(row)),
        encryption_settings: (await owner.query(sql`SELECT * FROM encryption_settings WHERE site_id = ${site.siteId}`)).map((row) => JSON.stringify(row)),
      }),
    });
  });
});
