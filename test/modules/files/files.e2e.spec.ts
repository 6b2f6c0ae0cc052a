// /files over real HTTP with local storage: the presigned (signed one-time) upload URL, the upload
// through it, registering the file, the list with the query language, and reading, changing and
// deleting a record.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { signLocalUpload } from '../../../src/modules/files/uploads.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { CLEAN_SVG, jpegBytes, onlyError, pngBytes, sendRaw, storedKeys } from './support.ts';

const service = await startTestServiceForFile();

const admin = (site: TestSite, method: string, path: string, body?: unknown) =>
  service.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) });

/** A presigned URL for `filename`, the bytes PUT to it as its headers say, and the file registered. */
async function upload(site: TestSite, filename: string, contentType: string, bytes: Buffer | string, register: Record<string, unknown> = {}) {
  const presigned = await admin(site, 'POST', '/files/presigned-url', { filename, contentType, size: Buffer.byteLength(bytes) });
  expect(presigned.status, JSON.stringify(presigned.body)).toBe(200);
  const { url, method, headers, key } = presigned.body.data;
  const put = await sendRaw(service, method, url, { headers, body: bytes });
  expect(put.status, JSON.stringify(put.body)).toBe(201);
  const registered = await admin(site, 'POST', '/files', { key, ...register });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  return registered.body.data;
}

describe('presigned upload with local storage', () => {
  it('answers a signed one-time PUT URL with the site header, then takes the bytes and registers them', async () => {
    const site = await createTestSite(service, 'files');
    const png = await pngBytes(40, 30);
    const presigned = await admin(site, 'POST', '/files/presigned-url', { filename: 'Hero Image.png', contentType: 'image/png', size: png.length });
    expect(presigned.status).toBe(200);
    const data = presigned.body.data;
    expect(data).toMatchObject({ method: 'PUT', headers: { 'Content-Type': 'image/png', 'X-Svc-Site': site.siteId }, key: expect.stringMatching(/^uploads\/[0-9a-f-]{36}\/Hero-Image\.png$/) });
    expect(data.url).toMatch(new RegExp(`^${service.url}/api/v1/files/upload/${data.key}\\?expires=\\d+&signature=[A-Za-z0-9_-]+$`));
    expect(Date.parse(data.expiresAt)).toBeGreaterThan(Date.now());

    const put = await sendRaw(service, 'PUT', data.url, { headers: data.headers, body: png });
    expect(put.status).toBe(201);
    expect(put.body.data).toMatchObject({ key: data.key, type: 'image/png' });

    const registered = await admin(site, 'POST', '/files', { key: data.key, title: 'Hero', tags: ['hero', 'home'], folder: 'banners' });
    expect(registered.status).toBe(201);
    expect(registered.body.data).toMatchObject({
      id: expect.any(String),
      key: data.key,
      filename: 'Hero-Image.png',
      title: 'Hero',
      type: 'image/png',
      tags: ['hero', 'home'],
      folder: 'banners',
      width: 40,
      height: 30,
      source: 'upload',
      uploadedBy: site.adminUserId,
    });
    const fetched = await admin(site, 'GET', `/files/${registered.body.data.id}`);
    expect(fetched.body.data).toEqual(registered.body.data);
    const original = await sendRaw(service, 'GET', `/assets/${registered.body.data.id}`, { site: site.siteId, token: site.adminToken });
    expect(original.status).toBe(200);
    expect(original.headers.get('content-type')).toBe('image/png');
    expect(original.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await sharp(original.bytes).metadata()).width).toBe(40);
  });

  it('refuses the URL unsigned (401), with a wrong or expired signature (403), and a second time (409)', async () => {
    const site = await createTestSite(service, 'files');
    const png = await pngBytes();
    const { url, headers, key } = (await admin(site, 'POST', '/files/presigned-url', { filename: 'a.png', contentType: 'image/png' })).body.data;
    const unsigned = await sendRaw(service, 'PUT', url.split('?')[0], { headers, body: png });
    expect([unsigned.status, onlyError(unsigned).code]).toEqual([401, 'UNAUTHENTICATED']);
    const signature = new URL(url).searchParams.get('signature')!;
    const wrongSignature = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    const tampered = await sendRaw(service, 'PUT', url.replace(signature, wrongSignature), { headers, body: png });
    expect([tampered.status, onlyError(tampered).code]).toEqual([403, 'PERMISSION_DENIED']);
    const otherType = await sendRaw(service, 'PUT', url, { headers: { ...headers, 'Content-Type': 'image/jpeg' }, body: await jpegBytes() });
    expect(otherType.status).toBe(403);
    const past = Math.floor(Date.now() / 1000) - 10;
    const expired = signLocalUpload(service.context.config.SVC_SECRET, `${service.url}/api/v1`, site.siteId, key, 'image/png', past);
    const late = await sendRaw(service, 'PUT', expired.url, { headers: expired.headers, body: png });
    expect([late.status, onlyError(late).code, onlyError(late).message]).toEqual([403, 'PERMISSION_DENIED', expect.stringMatching(/expired/)]);
    expect(await storedKeys(service, site.siteId)).toEqual([]);

    expect((await sendRaw(service, 'PUT', url, { headers, body: png })).status).toBe(201);
    const again = await sendRaw(service, 'PUT', url, { headers, body: await pngBytes(4, 4) });
    expect([again.status, onlyError(again).code]).toEqual([409, 'CONFLICT']);
    expect(await storedKeys(service, site.siteId)).toEqual([key]);
  });

  it('signs a content type with parameters so that the URL works with the headers it answers', async () => {
    const site = await createTestSite(service, 'files');
    const presigned = await admin(site, 'POST', '/files/presigned-url', { filename: 'logo.svg', contentType: 'image/svg+xml; charset=utf-8' });
    const { url, headers } = presigned.body.data;
    const put = await sendRaw(service, 'PUT', url, { headers, body: CLEAN_SVG });
    expect(put.status, JSON.stringify(put.body)).toBe(201);
  });

  it('takes the type as `type`, the name the file record uses, with `contentType` as its alias', async () => {
    const site = await createTestSite(service, 'files');
    const png = await pngBytes();
    const byType = await admin(site, 'POST', '/files/presigned-url', { filename: 'a.png', type: 'image/png' });
    expect([byType.status, byType.body.data?.headers['Content-Type']]).toEqual([200, 'image/png']);
    expect((await sendRaw(service, 'PUT', byType.body.data.url, { headers: byType.body.data.headers, body: png })).status).toBe(201);
    const registered = await admin(site, 'POST', '/files', { key: byType.body.data.key });
    expect(registered.body.data.type).toBe('image/png');

    const both = await admin(site, 'POST', '/files/presigned-url', { filename: 'b.png', type: 'image/png', contentType: 'Image/PNG; charset=binary' });
    expect([both.status, both.body.data?.headers['Content-Type']]).toEqual([200, 'image/png']);
    const alias = await admin(site, 'POST', '/files/presigned-url', { filename: 'c.png', contentType: 'image/png' });
    expect([alias.status, alias.body.data?.headers['Content-Type']]).toEqual([200, 'image/png']);
  });

  it('refuses a presign without a type, or with `type` and `contentType` naming different types, at the path', async () => {
    const site = await createTestSite(service, 'files');
    const missing = await admin(site, 'POST', '/files/presigned-url', { filename: 'a.png' });
    expect([missing.status, onlyError(missing).code, onlyError(missing).path]).toEqual([400, 'VALIDATION_FAILED', ['body', 'type']]);
    const differ = await admin(site, 'POST', '/files/presigned-url', { filename: 'a.png', type: 'image/png', contentType: 'image/jpeg' });
    expect([differ.status, onlyError(differ).code, onlyError(differ).path]).toEqual([400, 'VALIDATION_FAILED', ['body', 'contentType']]);
    const empty = await admin(site, 'POST', '/files/presigned-url', { filename: 'a.png', type: '' });
    expect([empty.status, onlyError(empty).path]).toEqual([400, ['body', 'type']]);
    expect(await storedKeys(service, site.siteId)).toEqual([]);
  });

  it('refuses a declared size over the policy before any URL is signed', async () => {
    const site = await createTestSite(service, 'files');
    const refused = await admin(site, 'POST', '/files/presigned-url', { filename: 'big.png', contentType: 'image/png', size: 26_214_401 });
    expect([refused.status, onlyError(refused).code, onlyError(refused).path]).toEqual([413, 'PAYLOAD_TOO_LARGE', ['body', 'size']]);
  });

  it('registers nothing for a key nothing was uploaded at (404), nor twice for one key (409)', async () => {
    const site = await createTestSite(service, 'files');
    const missing = await admin(site, 'POST', '/files', { key: 'uploads/00000000-0000-4000-8000-000000000000/a.png' });
    expect([missing.status, onlyError(missing).code, onlyError(missing).path]).toEqual([404, 'RECORD_NOT_FOUND', ['body', 'key']]);
    const file = await upload(site, 'a.png', 'image/png', await pngBytes());
    const twice = await admin(site, 'POST', '/files', { key: file.key });
    expect([twice.status, onlyError(twice).code]).toEqual([409, 'CONFLICT']);
    expect((await admin(site, 'GET', '/files')).body.meta.total).toBe(1);
  });

  it('does not touch the bytes of a registered file when the same key is registered again with another name', async () => {
    const site = await createTestSite(service, 'files');
    const file = await upload(site, 'keep.png', 'image/png', await pngBytes());
    const again = await admin(site, 'POST', '/files', { key: file.key, filename: 'keep.txt' });
    expect.soft([again.status, onlyError(again).code]).toEqual([409, 'CONFLICT']);
    const original = await sendRaw(service, 'GET', `/assets/${file.id}`, { site: site.siteId, token: site.adminToken });
    expect(original.status, 'the registered file still has its bytes').toBe(200);
    expect(await storedKeys(service, site.siteId)).toEqual([file.key]);
  });
  it('registers only uploaded objects: not a derivative of another file', async () => {
    const site = await createTestSite(service, 'files');
    const media = await sendRaw(service, 'POST', '/media/logo.png', { site: site.siteId, token: site.adminToken, contentType: 'image/png', body: await pngBytes(40, 40) });
    const derivative = await sendRaw(service, 'GET', `/assets/${media.body.data.id}?width=10`, { site: site.siteId, token: site.adminToken });
    expect(derivative.status).toBe(200);
    const derivativeKey = (await storedKeys(service, site.siteId)).find((key) => key.includes('.derivatives/'))!;
    const registered = await admin(site, 'POST', '/files', { key: derivativeKey });
    // Only keys POST /files/presigned-url answers (uploads/…) are registered.
    expect([registered.status, onlyError(registered).code, onlyError(registered).path]).toEqual([400, 'VALIDATION_FAILED', ['body', 'key']]);
    expect((await admin(site, 'GET', '/files')).body.meta.total).toBe(1);
  });
});

describe('download names', () => {
  async function uploadedKey(site: TestSite): Promise<string> {
    const { url, headers, key } = (await admin(site, 'POST', '/files/presigned-url', { filename: 'x.png', contentType: 'image/png' })).body.data;
    expect((await sendRaw(service, 'PUT', url, { headers, body: await pngBytes() })).status).toBe(201);
    return key;
  }

  it('serves a file registered with a non-ASCII name (the name never breaks the header)', async () => {
    const site = await createTestSite(service, 'files');
    const filename = '写真 2024.png';
    const registered = await admin(site, 'POST', '/files', { key: await uploadedKey(site), filename });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    expect(registered.body.data.filename).toBe(filename);
    const original = await sendRaw(service, 'GET', `/assets/${registered.body.data.id}`, { site: site.siteId, token: site.adminToken });
    expect(original.status, JSON.stringify(original.body)).toBe(200);
    expect(original.headers.get('content-disposition')).toMatch(/^inline; filename/);
  });

  it('refuses a name with CR LF (400 at body.filename), so it never reaches a header, and registers nothing', async () => {
    const site = await createTestSite(service, 'files');
    const registered = await admin(site, 'POST', '/files', { key: await uploadedKey(site), filename: 'a\r\nX-Injected: 1.png' });
    expect([registered.status, onlyError(registered).code, onlyError(registered).path]).toEqual([400, 'VALIDATION_FAILED', ['body', 'filename']]);
    expect((await admin(site, 'GET', '/files')).body.meta.total).toBe(0);
  });
});

describe('file records', () => {
  it('lists with the query language: title starts with, type, tags contain, folder', async () => {
    const site = await createTestSite(service, 'files');
    const hero = await upload(site, 'hero.png', 'image/png', await pngBytes(), { title: 'Hero banner', tags: ['hero', 'home'], folder: 'banners' });
    const photo = await upload(site, 'photo.jpg', 'image/jpeg', await jpegBytes(), { title: 'Team photo', tags: ['team'], folder: 'people' });
    const logo = await upload(site, 'logo.svg', 'image/svg+xml', CLEAN_SVG, { title: 'Logo', tags: ['hero'], folder: 'banners' });
    const ids = async (query: string) => {
      const listed = await admin(site, 'GET', `/files?${query}`);
      expect(listed.status, JSON.stringify(listed.body)).toBe(200);
      return listed.body.data.map((file: { id: string }) => file.id).sort();
    };
    expect(await ids('')).toEqual([hero.id, photo.id, logo.id].sort());
    expect(await ids('filter[title][_starts_with]=Her')).toEqual([hero.id]);
    expect(await ids('filter[type][_eq]=image/jpeg')).toEqual([photo.id]);
    expect(await ids(`filter[tags][_json_contains]=${encodeURIComponent('["hero"]')}`)).toEqual([hero.id, logo.id].sort());
    expect(await ids('filter[folder][_eq]=banners')).toEqual([hero.id, logo.id].sort());
    expect(await ids(`filter[folder][_eq]=banners&filter[type][_eq]=${encodeURIComponent('image/svg+xml')}`)).toEqual([logo.id]);
    const paged = await admin(site, 'GET', '/files?limit=2&page=2');
    expect([paged.body.data.length, paged.body.meta]).toEqual([1, { total: 3, page: 2, pageSize: 2 }]);
  });

  it('refuses a filter on an unknown field or operator, and a bad page size, with 400', async () => {
    const site = await createTestSite(service, 'files');
    const unknownField = await admin(site, 'GET', '/files?filter[owner][_eq]=x');
    expect(unknownField.status).toBe(400);
    const unknownOperator = await admin(site, 'GET', '/files?filter[title][_contains]=x');
    expect(unknownOperator.status).toBe(400);
    const badLimit = await admin(site, 'GET', '/files?limit=abc');
    expect([badLimit.status, onlyError(badLimit).code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('changes title, tags and folder, and deletes the record with its bytes', async () => {
    const site = await createTestSite(service, 'files');
    const file = await upload(site, 'a.png', 'image/png', await pngBytes(), { title: 'Old', tags: ['x'] });
    const changed = await admin(site, 'PATCH', `/files/${file.id}`, { title: 'New', tags: ['y', 'z'], folder: 'misc' });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ id: file.id, title: 'New', tags: ['y', 'z'], folder: 'misc', filename: 'a.png' });
    const cleared = await admin(site, 'PATCH', `/files/${file.id}`, { title: null, folder: null });
    expect(cleared.body.data).toMatchObject({ title: null, tags: ['y', 'z'], folder: null });
    const badPatch = await admin(site, 'PATCH', `/files/${file.id}`, { key: 'elsewhere.png' });
    expect(badPatch.status).toBe(400);

    expect((await admin(site, 'DELETE', `/files/${file.id}`)).status).toBe(204);
    expect((await admin(site, 'GET', `/files/${file.id}`)).status).toBe(404);
    expect((await admin(site, 'PATCH', `/files/${file.id}`, { title: 'x' })).status).toBe(404);
    expect((await admin(site, 'DELETE', `/files/${file.id}`)).status).toBe(404);
    expect(await storedKeys(service, site.siteId)).toEqual([]);
  });

  it('answers 404 for an id that is not a file of the site', async () => {
    const site = await createTestSite(service, 'files');
    for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      expect((await admin(site, 'GET', `/files/${id}`)).status).toBe(404);
      expect((await admin(site, 'PATCH', `/files/${id}`, { title: 'x' })).status).toBe(404);
      expect((await admin(site, 'DELETE', `/files/${id}`)).status).toBe(404);
    }
  });
});
