// The extensions read model (and the code table beside it) gives the same rows when rebuilt from the
// log: installed, upgraded, enabled, disabled and granted extensions, in two sites.
import { describe, expect, it } from 'vitest';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { extensionsProjection } from '../../../projections/extensionsProjection.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { TRUSTED_KEYS, officialKey, upload } from './support.ts';

const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url, SVC_EXTENSION_TRUSTED_KEYS: TRUSTED_KEYS });

describe('extensions read model', () => {
  it('rebuilds to the same rows', async () => {
    const site = await createTestSite(service, 'ext-rebuild');
    const other = await createTestSite(service, 'ext-rebuild');
    const call = async (path: string, body?: unknown) => {
      const response = await service.request('POST', path, { site: site.siteId, token: site.adminToken, body });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
    };
    const panels = [{ id: 'stats', title: 'Stats', location: 'dashboard' }];
    const counted = await upload(service, site, { name: 'word-count', version: '1.0.0', capabilities: ['log', 'items:read:articles'], ui: { panels } });
    await call(`/extensions/${counted.id}/enable`);
    await call(`/extensions/${counted.id}/capabilities`, { capabilities: ['log', 'items:read:articles'] });
    await upload(service, site, { name: 'word-count', version: '1.1.0', capabilities: ['items:read:articles'], code: 'exports.run = () => 2;' });
    const paused = await upload(service, site, { name: '@svc/seo', version: '0.1.0', description: 'Official' }, officialKey);
    await call(`/extensions/${paused.id}/enable`);
    await call(`/extensions/${paused.id}/disable`);
    await upload(service, other, { name: 'word-count' });
    const rows = (query: SqlFragment) => database.owner.query(query).then((found) => found.map((row) => JSON.stringify(row)));
    const sites = [site.siteId, other.siteId];
    await expectRebuildToGiveSameRows({
      service,
      owner: database.owner,
      projections: [extensionsProjection],
      tablesWithRows: ['extensions', 'extension_code'],
      snapshot: async () => ({
        extensions: await rows(sql`SELECT * FROM extensions WHERE site_id = ANY(${sites}::text[]) ORDER BY site_id, id`),
        extension_code: await rows(sql`SELECT * FROM extension_code WHERE site_id = ANY(${sites}::text[]) ORDER BY site_id, extension_id`),
      }),
    });
    const [code] = await database.owner.query<{ code: string }>(sql`SELECT code FROM extension_code WHERE site_id = ${site.siteId} AND extension_id = ${counted.id}`);
    expect(code!.code).toBe('exports.run = () => 2;');
  });
});
