// Originals come back byte for byte (spec: GET /media/:key without transform parameters answers the
// original bytes): photos carrying EXIF with a GPS position go in through every upload surface (raw
// POST /media/:key, the signed URL then the JSON registration, a multipart POST /files) and come back
// identical from GET /media/:key and GET /assets/:id. Derivatives never carry the metadata; originals
// lose it only when the site's upload policy sets `stripMetadata`.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { exifOf, filePart, photoBytes, sendForm, sendRaw, sha256 } from './support.ts';

const service = await startTestServiceForFile();

const admin = (site: TestSite, method: string, path: string, body?: unknown) =>
  service.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) });
const get = (site: TestSite, path: string) => sendRaw(service, 'GET', path, { site: site.siteId, token: site.adminToken });

interface Uploaded {
  id: string;
  /** The media key, for uploads through POST /media/:key. */
  mediaKey?: string;
}

const surfaces: { name: string; upload(site: TestSite, filename: string, type: string, bytes: Buffer): Promise<Uploaded> }[] = [
  {
    name: 'raw POST /media/:key',
    async upload(site, filename, type, bytes) {
      const sent = await sendRaw(service, 'POST', `/media/${filename}`, { site: site.siteId, token: site.adminToken, contentType: type, body: bytes });
      expect(sent.status, JSON.stringify(sent.body)).toBe(201);
      return { id: sent.body.data.id, mediaKey: filename };
    },
  },
  {
    name: 'the presigned (signed) URL, then POST /files with JSON',
    async upload(site, filename, type, bytes) {
      const presigned = await admin(site, 'POST', '/files/presigned-url', { filename, type, size: bytes.length });
      expect(presigned.status, JSON.stringify(presigned.body)).toBe(200);
      const put = await sendRaw(service, 'PUT', presigned.body.data.url, { headers: presigned.body.data.headers, body: bytes });
      expect(put.status, JSON.stringify(put.body)).toBe(201);
      expect(put.body.data.size).toBe(bytes.length);
      const registered = await admin(site, 'POST', '/files', { key: presigned.body.data.key });
      expect(registered.status, JSON.stringify(registered.body)).toBe(201);
      return { id: registered.body.data.id };
    },
  },
  {
    name: 'POST /files with a multipart form',
    async upload(site, filename, type, bytes) {
      const form = new FormData();
      form.append('file', filePart(bytes, type), filename);
      const sent = await sendForm(service, '/files', form, { site: site.siteId, token: site.adminToken });
      expect(sent.status, JSON.stringify(sent.body)).toBe(201);
      return { id: sent.body.data.id };
    },
  },
];

describe.each(surfaces)('an original uploaded through $name', (surface) => {
  it.each([
    ['JPEG', 'jpeg', 'photo.jpg', 'image/jpeg'],
    ['PNG', 'png', 'photo.png', 'image/png'],
  ] as const)('comes back byte for byte, EXIF and GPS included (%s)', async (_name, format, filename, type) => {
    const site = await createTestSite(service, 'orig');
    const photo = await photoBytes(format);
    expect(await exifOf(photo)).toEqual({ exif: true, gps: true, camera: true });
    const { id, mediaKey } = await surface.upload(site, filename, type, photo);

    const record = (await admin(site, 'GET', `/files/${id}`)).body.data;
    expect(record).toMatchObject({ type, size: photo.length, width: 40, height: 30 });
    const asset = await get(site, `/assets/${id}`);
    expect([asset.status, asset.headers.get('content-length'), sha256(asset.bytes)]).toEqual([200, String(photo.length), sha256(photo)]);
    if (mediaKey) {
      const media = await get(site, `/media/${mediaKey}`);
      expect([media.status, sha256(media.bytes)]).toEqual([200, sha256(photo)]);
    }
  });
});

describe('derivatives', () => {
  it('never carry the original metadata: no EXIF, no GPS, from /assets and through the /media redirect', async () => {
    const site = await createTestSite(service, 'orig');
    const photo = await photoBytes('jpeg');
    const sent = await sendRaw(service, 'POST', '/media/trip.jpg', { site: site.siteId, token: site.adminToken, contentType: 'image/jpeg', body: photo });
    expect(sent.status).toBe(201);

    const derivative = await get(site, `/assets/${sent.body.data.id}?width=20`);
    expect(derivative.status).toBe(200);
    expect((await sharp(derivative.bytes).metadata()).width).toBe(20);
    expect(await exifOf(derivative.bytes)).toEqual({ exif: false, gps: false, camera: false });
    // Same format, same size: still rendered, so still without the metadata.
    const sameSize = await get(site, `/assets/${sent.body.data.id}?format=jpeg`);
    expect(await exifOf(sameSize.bytes)).toEqual({ exif: false, gps: false, camera: false });

    const redirect = await get(site, '/media/trip.jpg?width=24&format=png');
    expect(redirect.status).toBe(302);
    const followed = await sendRaw(service, 'GET', `${service.url}${redirect.headers.get('location')}`, { site: site.siteId, token: site.adminToken });
    expect([followed.status, followed.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect(await exifOf(followed.bytes)).toEqual({ exif: false, gps: false, camera: false });
    // The original is untouched by its derivatives.
    expect(sha256((await get(site, '/media/trip.jpg')).bytes)).toBe(sha256(photo));
  });
});

describe('stripMetadata in the upload policy', () => {
  it('is off by default, and once a site administrator sets it the stored originals carry no EXIF', async () => {
    const site = await createTestSite(service, 'orig');
    expect((await admin(site, 'GET', '/uploads/config')).body.data.stripMetadata).toBe(false);
    const set = await admin(site, 'PUT', '/uploads/config', { stripMetadata: true });
    expect([set.status, set.body.data?.stripMetadata], JSON.stringify(set.body)).toEqual([200, true]);
    expect((await admin(site, 'GET', '/uploads/config')).body.data).toMatchObject({ stripMetadata: true, maxBytes: 26_214_400 });

    for (const surface of surfaces) {
      for (const [format, filename, type] of [['jpeg', 'strip.jpg', 'image/jpeg'], ['png', 'strip.png', 'image/png']] as const) {
        const photo = await photoBytes(format);
        const { id } = await surface.upload(site, `${surface.name.length}-${filename}`, type, photo);
        const asset = await get(site, `/assets/${id}`);
        expect(await exifOf(asset.bytes), `${surface.name} ${format}`).toEqual({ exif: false, gps: false, camera: false });
        const record = (await admin(site, 'GET', `/files/${id}`)).body.data;
        expect(record).toMatchObject({ type, size: asset.bytes.length, width: 40, height: 30 });
      }
    }

    // Off again: originals are kept as sent.
    expect((await admin(site, 'PUT', '/uploads/config', { stripMetadata: false })).body.data.stripMetadata).toBe(false);
    const photo = await photoBytes('jpeg');
    const { id } = await surfaces[0]!.upload(site, 'kept.jpg', 'image/jpeg', photo);
    expect(sha256((await get(site, `/assets/${id}`)).bytes)).toBe(sha256(photo));
  });
});
