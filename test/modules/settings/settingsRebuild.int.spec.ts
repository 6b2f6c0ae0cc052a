// The sites and settings read models rebuilt from the log give the same rows as the incremental run
// (on a database of its own: `sites` is instance-wide, and a rebuild rewrites every site's rows).
import { describe, expect, it } from 'vitest';
import { settingsProjection } from '../../../projections/settingsProjection.ts';
import { sitesProjection } from '../../../projections/sitesProjection.ts';
import { snapshotReadModels } from '../../projections/freshDatabase.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { createTestSite, INSTANCE_TOKEN, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { caller, createNamedSite, dataOf, requestWithHost } from './support.ts';

const projections = [sitesProjection, settingsProjection];

const fresh = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: fresh.url });

/** Sets, overwrites and clears every kind of site field, and sets, removes and applies settings. */
async function runWorkload(site: TestSite, index: number): Promise<void> {
  const admin = caller(service, site);
  const ok = async (method: string, path: string, body?: unknown) => dataOf(await admin(method, path, body));
  await ok('PATCH', '/site', {
    name: `Site ${index}`,
    displayTitle: 'Tiêu đề',
    siteUrl: 'https://example.com/',
    descriptor: 'd',
    domain: `www.${site.siteId}.example.com`,
    defaultLanguage: 'vi',
    defaultAppearance: 'dark',
    defaultSaveAction: 'return',
    branding: { logoUrl: 'https://cdn.example.com/l.png', faviconUrl: 'https://cdn.example.com/f.ico', brandColor: '#abc' },
    themeOverrides: { light: { primary: '222.2 47.4% 11.2%' }, dark: { ring: '0 0% 100%' } },
    customCss: '</style><script>1</script>',
  });
  await ok('PATCH', '/site', { branding: { brandColor: '#112233', logoUrl: '' }, themeOverrides: { dark: { border: '10 20% 30%' } } });
  await ok('PATCH', '/site', { descriptor: '', customCss: '', domain: `news.${site.siteId}.example.com`, defaultAppearance: 'auto' });

  await ok('PUT', '/settings/corsOrigins', { value: ['https://app.example.com', `https://${site.siteId}.example.com`] });
  await ok('PATCH', '/settings', { corsOrigins: ['https://app.example.com'] });
  await ok('PUT', '/settings/upload_policy', { value: { maxBytes: 1024, allowedMimeTypes: ['image/png'], allowedExtensions: ['png'], catalogue: ['c'] } });
  await ok('PATCH', '/settings', { erasureDualControl: false, 'studio.layout': { columns: [1, 2, 3] }, gone: 'soon', label: 'x' });
  await ok('PATCH', '/settings', { gone: null, label: 'y', erasureDualControl: null });
  await ok('POST', '/settings/apply', { version: 'svc.settings@v1', settings: [{ key: 'applied', value: { index } }, { key: 'label', value: 'z' }] });
}

describe('rebuilding the sites and settings read models', () => {
  it('gives the same rows as the incremental run', { timeout: 60_000 }, async () => {
    const sites = [await createTestSite(service), await createNamedSite(service, 'Named site')];
    await Promise.all(sites.map(runWorkload));
    // A deleted site keeps its row (with its deletion time) in the registry.
    const deleted = await createTestSite(service);
    await caller(service, deleted)('PATCH', '/site', { displayTitle: 'Short-lived', domain: `old.${deleted.siteId}.example.com` });
    await caller(service, deleted)('PUT', '/settings/note', { value: 'bye' });
    expect((await service.request('DELETE', `/instance/sites/${deleted.siteId}`, { token: INSTANCE_TOKEN })).status).toBeLessThan(300);

    const views = await Promise.all(sites.map(async (site) => dataOf(await caller(service, site)('GET', '/site'))));
    const settings = await Promise.all(sites.map(async (site) => dataOf(await caller(service, site)('GET', '/settings'))));
    expect(views[1]).toMatchObject({ name: 'Site 1', descriptor: null, customCss: null, branding: { logoUrl: null, brandColor: '#112233' } });
    expect(settings[0]).toMatchObject({ label: 'z', applied: { index: 0 }, erasureDualControl: true });

    await expectRebuildToGiveSameRows({
      service,
      owner: fresh.owner,
      projections,
      snapshot: () => snapshotReadModels(fresh.owner, projections),
      tablesWithRows: [...sitesProjection.tables, ...settingsProjection.tables],
    });

    // The service reads the rebuilt rows as it read the incremental ones, the domain included.
    for (const [index, site] of sites.entries()) {
      expect(dataOf(await caller(service, site)('GET', '/site'))).toEqual(views[index]);
      expect(dataOf(await caller(service, site)('GET', '/settings'))).toEqual(settings[index]);
      const byHost = await requestWithHost(service, 'GET', '/site', { host: `news.${site.siteId}.example.com`, token: site.adminToken });
      expect(dataOf(byHost).id).toBe(site.siteId);
    }
  });
});
