// /transform-presets over real HTTP: create, list, change and delete, keys unique per site, the dsl
// checked by the transform schema, and a preset applied with `?preset=<key>`.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { onlyError, pngBytes, sendRaw } from './support.ts';

const service = await startTestServiceForFile();

const admin = (site: TestSite, method: string, path: string, body?: unknown) =>
  service.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) });
const get = (site: TestSite, path: string) => sendRaw(service, 'GET', path, { site: site.siteId, token: site.adminToken });

async function createPreset(site: TestSite, body: Record<string, unknown>) {
  const created = await admin(site, 'POST', '/transform-presets', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data as { id: string; key: string; dsl: Record<string, unknown> };
}

describe('transform presets', () => {
  it('creates, lists, changes and deletes presets', async () => {
    const site = await createTestSite(service, 'preset');
    const thumb = await createPreset(site, { key: 'thumb', name: 'Thumbnail', dsl: { width: '120', height: 120, fit: 'cover', format: 'webp' } });
    expect(thumb).toMatchObject({ id: expect.any(String), key: 'thumb', name: 'Thumbnail', dsl: { width: 120, height: 120, fit: 'cover', format: 'webp' } });
    const hero = await createPreset(site, { key: 'hero-wide', name: 'Hero', dsl: { width: 1600 } });
    expect((await admin(site, 'GET', '/transform-presets')).body.data.map((preset: { key: string }) => preset.key)).toEqual(['hero-wide', 'thumb']);

    const changed = await admin(site, 'PATCH', `/transform-presets/${thumb.id}`, { name: 'Small', dsl: { width: 64, quality: 70, format: 'jpeg' } });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ id: thumb.id, key: 'thumb', name: 'Small', dsl: { width: 64, quality: 70, format: 'jpeg' } });
    const renamed = await admin(site, 'PATCH', `/transform-presets/${thumb.id}`, { key: 'small' });
    expect(renamed.body.data.key).toBe('small');

    expect((await admin(site, 'DELETE', `/transform-presets/${hero.id}`)).status).toBe(204);
    expect((await admin(site, 'GET', '/transform-presets')).body.data.map((preset: { key: string }) => preset.key)).toEqual(['small']);
    expect((await admin(site, 'DELETE', `/transform-presets/${hero.id}`)).status).toBe(404);
    expect((await admin(site, 'PATCH', `/transform-presets/${hero.id}`, { name: 'x' })).status).toBe(404);
    expect((await admin(site, 'PATCH', '/transform-presets/not-an-id', { name: 'x' })).status).toBe(404);
  });

  it('refuses a duplicate key with 409, on create and on rename; another site may use it', async () => {
    const site = await createTestSite(service, 'preset');
    await createPreset(site, { key: 'thumb', name: 'Thumb', dsl: { width: 100 } });
    const other = await createPreset(site, { key: 'card', name: 'Card', dsl: { width: 300 } });
    const duplicate = await admin(site, 'POST', '/transform-presets', { key: 'thumb', name: 'Again', dsl: { width: 50 } });
    expect([duplicate.status, onlyError(duplicate).code, onlyError(duplicate).path]).toEqual([409, 'CONFLICT', ['body', 'key']]);
    const rename = await admin(site, 'PATCH', `/transform-presets/${other.id}`, { key: 'thumb' });
    expect([rename.status, onlyError(rename).code]).toEqual([409, 'CONFLICT']);
    const secondSite = await createTestSite(service, 'preset');
    await createPreset(secondSite, { key: 'thumb', name: 'Thumb', dsl: { width: 10 } });
  });

  it.each([
    [{ width: 5001 }, ['body', 'dsl', 'width']],
    [{ width: 0 }, ['body', 'dsl', 'width']],
    [{ height: 'tall' }, ['body', 'dsl', 'height']],
    [{ format: 'gif' }, ['body', 'dsl', 'format']],
    [{ quality: 120 }, ['body', 'dsl', 'quality']],
    [{ fit: 'stretch' }, ['body', 'dsl', 'fit']],
    [{ focal: '2,0' }, ['body', 'dsl', 'focal']],
    [{ blur: 3 }, ['body', 'dsl', 'blur']],
    [{ preset: 'thumb' }, ['body', 'dsl', 'preset']],
  ])('refuses the dsl %j with 400 at %j, on create and on change', async (dsl, path) => {
    const site = await createTestSite(service, 'preset');
    const refused = await admin(site, 'POST', '/transform-presets', { key: 'bad', name: 'Bad', dsl });
    expect([refused.status, onlyError(refused).code, onlyError(refused).path]).toEqual([400, 'VALIDATION_FAILED', path]);
    const preset = await createPreset(site, { key: 'good', name: 'Good', dsl: { width: 10 } });
    const change = await admin(site, 'PATCH', `/transform-presets/${preset.id}`, { dsl });
    expect([change.status, onlyError(change).path]).toEqual([400, path]);
    expect((await admin(site, 'GET', '/transform-presets')).body.data.map((entry: { key: string; dsl: unknown }) => [entry.key, entry.dsl])).toEqual([['good', { width: 10 }]]);
  });

  it('refuses a malformed key or name with 400', async () => {
    const site = await createTestSite(service, 'preset');
    for (const body of [{ key: 'Thumb', name: 'x', dsl: {} }, { key: 'a b', name: 'x', dsl: {} }, { key: 'ok', name: '', dsl: {} }, { key: 'ok', name: 'x', dsl: [] }]) {
      expect((await admin(site, 'POST', '/transform-presets', body)).status, JSON.stringify(body)).toBe(400);
    }
  });
});

describe('?preset=<key>', () => {
  it('renders the preset, with query parameters over it, and redirects /media to the normalized parameters', async () => {
    const site = await createTestSite(service, 'preset');
    const uploaded = await sendRaw(service, 'POST', '/media/photo.png', { site: site.siteId, token: site.adminToken, contentType: 'image/png', body: await pngBytes(200, 100) });
    const file = uploaded.body.data;
    const preset = await createPreset(site, { key: 'thumb', name: 'Thumb', dsl: { width: 40, height: 40, format: 'webp' } });

    const rendered = await get(site, `/assets/${file.id}?preset=thumb`);
    expect(rendered.status).toBe(200);
    expect(rendered.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(await sharp(rendered.bytes).metadata()).toMatchObject({ format: 'webp', width: 40, height: 40 });
    const explicit = await get(site, `/assets/${file.id}?width=40&height=40&format=webp`);
    expect(explicit.bytes.equals(rendered.bytes)).toBe(true);

    const overridden = await get(site, `/assets/${file.id}?preset=thumb&format=png&height=20`);
    expect(await sharp(overridden.bytes).metadata()).toMatchObject({ format: 'png', width: 40, height: 20 });

    const redirect = await get(site, '/media/photo.png?preset=thumb');
    expect([redirect.status, redirect.headers.get('location')]).toEqual([302, `/api/v1/assets/${file.id}?width=40&height=40&format=webp&quality=80&fit=cover`]);

    // A changed preset renders anew; a deleted one is refused.
    await admin(site, 'PATCH', `/transform-presets/${preset.id}`, { dsl: { width: 30 } });
    expect(await sharp((await get(site, `/assets/${file.id}?preset=thumb`)).bytes).metadata()).toMatchObject({ format: 'png', width: 30, height: 15 });
    await admin(site, 'DELETE', `/transform-presets/${preset.id}`);
    const gone = await get(site, `/assets/${file.id}?preset=thumb`);
    expect([gone.status, onlyError(gone).path]).toEqual([400, ['query', 'preset']]);
  });

  it("never applies another site's preset", async () => {
    const owner = await createTestSite(service, 'preset');
    await createPreset(owner, { key: 'secret-crop', name: 'Crop', dsl: { width: 10 } });
    const site = await createTestSite(service, 'preset');
    const file = (await sendRaw(service, 'POST', '/media/a.png', { site: site.siteId, token: site.adminToken, contentType: 'image/png', body: await pngBytes() })).body.data;
    const refused = await get(site, `/assets/${file.id}?preset=secret-crop`);
    expect([refused.status, onlyError(refused).path]).toEqual([400, ['query', 'preset']]);
  });
});
