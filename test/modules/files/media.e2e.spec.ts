// /media/:key and /assets/:id over real HTTP with local storage: raw uploads, the original as an
// attachment, transforms (parameters, refusals, the redirect to the normalized asset URL), a
// derivative made once under concurrent requests, and deletion.
import { watch } from 'node:fs';
import { unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { CLEAN_SVG, onlyError, pngBytes, sendRaw, storedFiles, storedKeys } from './support.ts';

const service = await startTestServiceForFile();

const get = (site: TestSite, path: string, redirect: RequestRedirect = 'manual') => sendRaw(service, 'GET', path, { site: site.siteId, token: site.adminToken, redirect });

async function postMedia(site: TestSite, key: string, contentType: string, body: Buffer | string) {
  const created = await sendRaw(service, 'POST', `/media/${key}`, { site: site.siteId, token: site.adminToken, contentType, body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data as { id: string; key: string };
}

describe('POST, GET and DELETE /media/:key', () => {
  it('stores raw bytes under media/<key> and serves the original as an attachment with nosniff', async () => {
    const site = await createTestSite(service, 'media');
    const file = await postMedia(site, 'logo.png', 'image/png', await pngBytes(64, 48));
    expect(file).toMatchObject({ key: 'media/logo.png', filename: 'logo.png', type: 'image/png', width: 64, height: 48, source: 'media', uploadedBy: site.adminUserId });
    const original = await get(site, '/media/logo.png');
    expect(original.status).toBe(200);
    expect(original.headers.get('content-type')).toBe('image/png');
    expect(original.headers.get('content-disposition')).toBe('attachment; filename="logo.png"');
    expect(original.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await sharp(original.bytes).metadata()).toMatchObject({ format: 'png', width: 64, height: 48 });
    expect((await service.request('GET', `/files/${file.id}`, { site: site.siteId, token: site.adminToken })).body.data.key).toBe('media/logo.png');
  });

  it('serves an SVG under a policy that runs nothing', async () => {
    const site = await createTestSite(service, 'media');
    await postMedia(site, 'logo.svg', 'image/svg+xml', CLEAN_SVG);
    const original = await get(site, '/media/logo.svg');
    expect(original.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(original.headers.get('content-security-policy')).toMatch(/default-src 'none'.*sandbox/);
    expect(original.bytes.toString('utf8')).toBe(CLEAN_SVG);
  });

  it('refuses a key taken (409) and a malformed key (400 at params.key)', async () => {
    const site = await createTestSite(service, 'media');
    await postMedia(site, 'logo.png', 'image/png', await pngBytes());
    const again = await sendRaw(service, 'POST', '/media/logo.png', { site: site.siteId, token: site.adminToken, contentType: 'image/png', body: await pngBytes(4, 4) });
    expect([again.status, onlyError(again).code, onlyError(again).path]).toEqual([409, 'CONFLICT', ['params', 'key']]);
    const hidden = await sendRaw(service, 'POST', '/media/.hidden.png', { site: site.siteId, token: site.adminToken, contentType: 'image/png', body: await pngBytes() });
    expect([hidden.status, onlyError(hidden).path]).toEqual([400, ['params', 'key']]);
    expect((await get(site, '/media/missing.png')).status).toBe(404);
    expect(await storedKeys(service, site.siteId)).toEqual(['media/logo.png']);
  });

  it('deletes the record, the original and its derivatives', async () => {
    const site = await createTestSite(service, 'media');
    const file = await postMedia(site, 'gone.png', 'image/png', await pngBytes(40, 40));
    expect((await get(site, `/assets/${file.id}?width=20`)).status).toBe(200);
    expect((await sendRaw(service, 'DELETE', '/media/gone.png', { site: site.siteId, token: site.adminToken })).status).toBe(204);
    expect((await get(site, '/media/gone.png')).status).toBe(404);
    expect((await get(site, `/assets/${file.id}`)).status).toBe(404);
    expect((await sendRaw(service, 'DELETE', '/media/gone.png', { site: site.siteId, token: site.adminToken })).status).toBe(404);
    expect(await storedKeys(service, site.siteId), 'no object of the deleted file is left in storage').toEqual([]);
  });
  it('keeps the bytes of the one upload that won when several race for one key', async () => {
    const site = await createTestSite(service, 'media');
    const bodies = await Promise.all([10, 20, 30, 40].map((size) => pngBytes(size, size)));
    const answers = await Promise.all(
      bodies.map((body) => sendRaw(service, 'POST', '/media/race.png', { site: site.siteId, token: site.adminToken, contentType: 'image/png', body })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409]);
    const winner = answers.find((answer) => answer.status === 201)!.body.data;
    const served = await get(site, '/media/race.png');
    expect(served.status, 'the registered file has its bytes').toBe(200);
    expect(await sharp(served.bytes).metadata()).toMatchObject({ width: winner.width, height: winner.height });
  });
});

describe('transforms', () => {
  it('redirects GET /media/:key with parameters to the normalized asset URL, which serves an immutable derivative', async () => {
    const site = await createTestSite(service, 'media');
    const file = await postMedia(site, 'photo.png', 'image/png', await pngBytes(80, 60));
    const redirect = await get(site, '/media/photo.png?width=40&format=webp');
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe(`/api/v1/assets/${file.id}?width=40&format=webp&quality=80`);
    // Equal renders share one address: the default quality written out, parameter order and no-ops dropped.
    const same = await get(site, '/media/photo.png?quality=80&format=webp&fit=contain&width=40&focal=0.5,0.5');
    expect(same.headers.get('location')).toBe(redirect.headers.get('location'));

    const derivative = await get(site, redirect.headers.get('location')!.replace('/api/v1', ''));
    expect(derivative.status).toBe(200);
    expect(derivative.headers.get('content-type')).toBe('image/webp');
    // Private: the public role of a new site may not read media (issue #27; assetCaching.e2e.spec.ts has the public case).
    expect(derivative.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(derivative.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await sharp(derivative.bytes).metadata()).toMatchObject({ format: 'webp', width: 40, height: 30 });
    const followed = await get(site, '/media/photo.png?width=40&format=webp', 'follow');
    expect([followed.status, followed.bytes.equals(derivative.bytes)]).toEqual([200, true]);
  });

  it.each([
    ['width=20', { format: 'png', width: 20, height: 15 }],
    ['height=30', { format: 'png', width: 40, height: 30 }],
    ['width=20&height=20', { format: 'png', width: 20, height: 20 }],
    ['width=20&height=20&fit=contain&format=webp&quality=50', { format: 'webp', width: 20, height: 20 }],
    ['width=20&height=20&fit=inside&format=jpeg', { format: 'jpeg', width: 20, height: 15 }],
    ['width=20&height=20&fit=outside', { format: 'png', width: 27, height: 20 }],
    ['width=10&height=30&fit=cover&focal=0.9,0.1&format=avif', { format: 'heif', width: 10, height: 30 }],
  ])('renders %s', async (query, expected) => {
    const site = await createTestSite(service, 'media');
    const file = await postMedia(site, 'p.png', 'image/png', await pngBytes(80, 60));
    const derivative = await get(site, `/assets/${file.id}?${query}`);
    expect(derivative.status, derivative.bytes.toString('utf8').slice(0, 300)).toBe(200);
    expect(derivative.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(await sharp(derivative.bytes).metadata()).toMatchObject(expected);
  });

  it.each([
    ['width=abc', ['query', 'width']],
    ['width=0', ['query', 'width']],
    ['width=5001', ['query', 'width']],
    ['height=99999', ['query', 'height']],
    ['width=10&width=20', ['query', 'width']],
    ['format=gif', ['query', 'format']],
    ['quality=101', ['query', 'quality']],
    ['fit=stretch&width=1&height=1', ['query', 'fit']],
    ['focal=1.5,0.2', ['query', 'focal']],
    ['preset=', ['query', 'preset']],
    ['preset=nothing', ['query', 'preset']],
  ])('refuses %s with 400 at its path, on /assets and on /media', async (query, path) => {
    const site = await createTestSite(service, 'media');
    const file = await postMedia(site, 'p.png', 'image/png', await pngBytes());
    for (const url of [`/assets/${file.id}?${query}`, `/media/p.png?${query}`]) {
      const refused = await get(site, url);
      expect([refused.status, onlyError(refused).code, onlyError(refused).path], url).toEqual([400, 'VALIDATION_FAILED', path]);
    }
    expect((await storedFiles(service, site.siteId)).filter((name) => name.includes('.derivatives/'))).toEqual([]);
  });

  it('refuses to transform what is not a raster image with 422', async () => {
    const site = await createTestSite(service, 'media');
    const file = await postMedia(site, 'logo.svg', 'image/svg+xml', CLEAN_SVG);
    const refused = await get(site, `/assets/${file.id}?width=10`);
    expect([refused.status, onlyError(refused).extensions.reason]).toEqual([422, 'unsupported_input']);
  });

  it('answers a revalidation of a derivative with its ETag with 304 and no body', async () => {
    const site = await createTestSite(service, 'media');
    const file = await postMedia(site, 'etag.png', 'image/png', await pngBytes(50, 50));
    const first = await get(site, `/assets/${file.id}?width=25`);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{64}\.png"$/);
    const revalidated = await sendRaw(service, 'GET', `/assets/${file.id}?width=25`, { site: site.siteId, token: site.adminToken, headers: { 'if-none-match': etag } });
    expect([revalidated.status, revalidated.bytes.length, revalidated.headers.get('etag'), revalidated.headers.get('cache-control')]).toEqual([304, 0, etag, 'private, max-age=31536000, immutable']);
    const otherSize = await sendRaw(service, 'GET', `/assets/${file.id}?width=26`, { site: site.siteId, token: site.adminToken, headers: { 'if-none-match': etag } });
    expect(otherSize.status).toBe(200);
    // Revalidating needs the right to read, and a file that still exists.
    const anonymous = await sendRaw(service, 'GET', `/assets/${file.id}?width=25`, { site: site.siteId, headers: { 'if-none-match': etag } });
    expect(anonymous.status).toBe(403);
    expect((await sendRaw(service, 'DELETE', '/media/etag.png', { site: site.siteId, token: site.adminToken })).status).toBe(204);
    const gone = await sendRaw(service, 'GET', `/assets/${file.id}?width=25`, { site: site.siteId, token: site.adminToken, headers: { 'if-none-match': etag } });
    expect(gone.status).toBe(404);
  });

  it('makes a new derivative once for 20 concurrent requests', async () => {
    const site = await createTestSite(service, 'media');
    const file = await postMedia(site, 'crowd.png', 'image/png', await pngBytes(600, 400));
    const siteRoot = join(service.context.config.dataDir, 'objects', 'sites', site.siteId);
    const derivativeFolder = join(siteRoot, 'media', 'crowd.png.derivatives');
    // Every put of an object writes a data file with a fresh version in its name: one per write.
    const written = new Set<string>();
    let first: Buffer = Buffer.alloc(0);
    // A file the test writes beside the derivatives once every answer is in: the watcher reports a
    // folder's changes in order, so once it reports this one it has reported every write before it.
    const BARRIER = 'test-barrier';
    let barrierSeen: () => void = () => {};
    let timer: NodeJS.Timeout | undefined;
    const barrier = new Promise<void>((resolve, reject) => {
      barrierSeen = resolve;
      timer = setTimeout(() => reject(new Error(`the watcher did not report ${BARRIER} within 10 s; it reported ${[...written].join(', ')}`)), 10_000);
    });
    const watcher = watch(siteRoot, { recursive: true }, (_event, name) => {
      if (name && /\.derivatives\/[^/]+~[0-9a-f]{24}$/.test(name)) written.add(name);
      if (name?.endsWith(`.derivatives/${BARRIER}`)) barrierSeen();
    });
    try {
      const answers = await Promise.all(Array.from({ length: 20 }, () => get(site, `/assets/${file.id}?width=300&height=120&format=webp`)));
      expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
      first = answers[0]!.bytes;
      for (const answer of answers) expect(answer.bytes.equals(first)).toBe(true);
      await writeFile(join(derivativeFolder, BARRIER), '');
      await barrier;
      await unlink(join(derivativeFolder, BARRIER));
    } finally {
      clearTimeout(timer);
      watcher.close();
    }
    const derivatives = (await storedKeys(service, site.siteId)).filter((key) => key.startsWith('media/crowd.png.derivatives/'));
    expect(derivatives).toHaveLength(1);
    expect(derivatives[0]).toMatch(/^media\/crowd\.png\.derivatives\/[0-9a-f]{64}\.webp$/);
    expect(written.size, [...written].join(', ')).toBe(1);
    const again = await get(site, `/assets/${file.id}?width=300&height=120&format=webp`);
    expect(again.bytes.equals(first)).toBe(true);
  });
});
