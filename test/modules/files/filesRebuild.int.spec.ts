// The files and transform presets read models give the same rows when rebuilt from the log as they
// did incrementally.
import { describe, expect, it } from 'vitest';
import { identifier, sql } from '../../../infra/postgres/sql.ts';
import { findProjection } from '../../../projections/index.ts';
import { openOwnerDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { CLEAN_SVG, jpegBytes, pngBytes, sendRaw } from './support.ts';

const service = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();

async function call(site: TestSite, method: string, path: string, body?: unknown) {
  const response = await service.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) });
  expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
  return response.body?.data;
}

async function media(site: TestSite, key: string, contentType: string, body: Buffer | string) {
  const created = await sendRaw(service, 'POST', `/media/${key}`, { site: site.siteId, token: site.adminToken, contentType, body });
  expect(created.status).toBe(201);
  return created.body.data as { id: string };
}

describe('files and transform presets read models', () => {
  it('rebuild to the same rows', async () => {
    const site = await createTestSite(service, 'rebuild');
    const logo = await media(site, 'logo.png', 'image/png', await pngBytes(30, 20));
    await media(site, 'icon.svg', 'image/svg+xml', CLEAN_SVG);
    const gone = await media(site, 'gone.jpg', 'image/jpeg', await jpegBytes());
    const presigned = await call(site, 'POST', '/files/presigned-url', { filename: 'Photo 1.jpg', contentType: 'image/jpeg' });
    expect((await sendRaw(service, 'PUT', presigned.url, { headers: presigned.headers, body: await jpegBytes(40, 40) })).status).toBe(201);
    const photo = await call(site, 'POST', '/files', { key: presigned.key, title: 'Photo', tags: ['team', 'hero'], folder: 'people' });
    await call(site, 'PATCH', `/files/${logo.id}`, { title: 'Logo', tags: ['brand'], folder: 'brand' });
    await call(site, 'PATCH', `/files/${photo.id}`, { title: null, folder: null });
    await call(site, 'PATCH', `/files/${photo.id}`, { tags: ['team'] });
    await call(site, 'DELETE', `/files/${gone.id}`);

    const thumb = await call(site, 'POST', '/transform-presets', { key: 'thumb', name: 'Thumb', dsl: { width: 100, height: 100, format: 'webp' } });
    const card = await call(site, 'POST', '/transform-presets', { key: 'card', name: 'Card', dsl: { width: 400 } });
    const dropped = await call(site, 'POST', '/transform-presets', { key: 'dropped', name: 'Dropped', dsl: { height: 10 } });
    await call(site, 'PATCH', `/transform-presets/${thumb.id}`, { key: 'thumbnail', dsl: { width: 120, fit: 'contain', height: 120 } });
    await call(site, 'PATCH', `/transform-presets/${card.id}`, { name: 'Card image' });
    await call(site, 'DELETE', `/transform-presets/${dropped.id}`);

    const rows = async (table: string) =>
      (await owner.query(sql`SELECT * FROM ${identifier(table)} WHERE site_id = ${site.siteId}`)).map((row) => JSON.stringify(row)).sort();
    await expectRebuildToGiveSameRows({
      service,
      owner,
      projections: [findProjection('files')!, findProjection('transform-presets')!],
      snapshot: async () => ({ files: await rows('files'), transform_presets: await rows('transform_presets') }),
      tablesWithRows: ['files', 'transform_presets'],
    });
    expect((await rows('files')).length).toBe(3);
    expect((await rows('transform_presets')).length).toBe(2);
  });
});
