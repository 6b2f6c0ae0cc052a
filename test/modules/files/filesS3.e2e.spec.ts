// The same files and media routes with S3 storage (s3rver, a real S3 server started in this file):
// a presigned PUT straight to the bucket then POST /files, hostile or oversized objects refused at
// registration and deleted from the bucket, and media upload, transform and download.
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { asBody, CLEAN_SVG, MZ, onlyError, pngBytes, pngWithElfAppended, pngWithScriptText, sendRaw, SVG_WITH_ONLOAD } from './support.ts';

// s3rver ships no types: the little of it this file uses.
interface S3rverServer {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: Record<string, unknown>) => S3rverServer;

const BUCKET = 'svc-test';
const s3Directory = await mkdtemp(join(tmpdir(), 'svc-files-s3-'));
const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3Directory, configureBuckets: [{ name: BUCKET }] });
const { port } = await s3.run();
afterAll(async () => {
  await s3.close();
  await rm(s3Directory, { recursive: true, force: true });
});
const endpoint = `http://127.0.0.1:${port}`;
const service = await startTestServiceForFile({
  S3_BUCKET: BUCKET,
  S3_ENDPOINT: endpoint,
  S3_FORCE_PATH_STYLE: 'true',
  S3_ACCESS_KEY_ID: 'S3RVER',
  S3_SECRET_ACCESS_KEY: 'S3RVER',
});
// A second instance on the same database and bucket.
const secondInstance = await startTestServiceForFile({
  S3_BUCKET: BUCKET,
  S3_ENDPOINT: endpoint,
  S3_FORCE_PATH_STYLE: 'true',
  S3_ACCESS_KEY_ID: 'S3RVER',
  S3_SECRET_ACCESS_KEY: 'S3RVER',
});
const bucket = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
afterAll(() => bucket.destroy());

const admin = (site: TestSite, method: string, path: string, body?: unknown) =>
  service.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) });
const get = (site: TestSite, path: string, redirect: RequestRedirect = 'manual') => sendRaw(service, 'GET', path, { site: site.siteId, token: site.adminToken, redirect });

/** The keys in the bucket under the site's namespace, relative to it. */
async function bucketKeys(siteId: string): Promise<string[]> {
  const prefix = `sites/${siteId}/`;
  const listed = await bucket.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (listed.Contents ?? []).map((object) => object.Key!.slice(prefix.length)).sort();
}

/** A presigned PUT for `filename`, and `bytes` sent straight to S3 with it: the presigned answer. */
async function putToBucket(site: TestSite, filename: string, contentType: string, bytes: Buffer | string) {
  const presigned = await admin(site, 'POST', '/files/presigned-url', { filename, contentType });
  expect(presigned.status, JSON.stringify(presigned.body)).toBe(200);
  const data = presigned.body.data;
  const put = await fetch(data.url, { method: data.method, headers: data.headers, body: asBody(bytes) });
  expect(put.status, await put.text()).toBe(200);
  return data as { url: string; method: string; headers: Record<string, string>; key: string; expiresAt: string };
}

describe('presigned uploads to S3', () => {
  it('answers a presigned PUT to the bucket; the object is registered with POST /files and served', async () => {
    const site = await createTestSite(service, 's3');
    const presigned = await putToBucket(site, 'hero.png', 'image/png', await pngBytes(60, 40));
    expect(presigned.url.startsWith(`${endpoint}/${BUCKET}/sites/${site.siteId}/uploads/`)).toBe(true);
    expect(presigned.url).toContain('X-Amz-Signature=');
    expect(presigned).toMatchObject({ method: 'PUT', headers: { 'content-type': 'image/png' }, key: expect.stringMatching(/^uploads\/[0-9a-f-]{36}\/hero\.png$/) });
    expect(await bucketKeys(site.siteId)).toEqual([presigned.key]);

    const registered = await admin(site, 'POST', '/files', { key: presigned.key, title: 'Hero', tags: ['hero'] });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    expect(registered.body.data).toMatchObject({ key: presigned.key, filename: 'hero.png', type: 'image/png', width: 60, height: 40, title: 'Hero', source: 'upload' });
    const listed = await admin(site, 'GET', `/files?filter[tags][_json_contains]=${encodeURIComponent('["hero"]')}`);
    expect(listed.body.data.map((file: { id: string }) => file.id)).toEqual([registered.body.data.id]);

    const original = await get(site, `/assets/${registered.body.data.id}`);
    expect(original.status).toBe(200);
    expect(await sharp(original.bytes).metadata()).toMatchObject({ format: 'png', width: 60, height: 40 });
    const derivative = await get(site, `/assets/${registered.body.data.id}?width=30&format=webp`);
    expect(derivative.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(await sharp(derivative.bytes).metadata()).toMatchObject({ format: 'webp', width: 30, height: 20 });

    expect((await admin(site, 'DELETE', `/files/${registered.body.data.id}`)).status).toBe(204);
    expect((await bucketKeys(site.siteId)).filter((key) => !key.includes('.derivatives/'))).toEqual([]);
  });

  it('accepts a clean SVG sent straight to S3', async () => {
    const site = await createTestSite(service, 's3');
    const { key } = await putToBucket(site, 'logo.svg', 'image/svg+xml', CLEAN_SVG);
    const registered = await admin(site, 'POST', '/files', { key });
    expect([registered.status, registered.body.data?.type]).toEqual([201, 'image/svg+xml']);
  });

  it.each([
    ['a PNG with a tEXt chunk holding <script>', 'text.png', 'image/png', pngWithScriptText, 'embedded_script'],
    ['a PNG with an ELF binary appended', 'elf.png', 'image/png', pngWithElfAppended, 'trailing_payload'],
    ['MZ bytes named .png', 'mz.png', 'image/png', async () => MZ, 'executable'],
    ['an SVG with onload', 'onload.svg', 'image/svg+xml', async () => SVG_WITH_ONLOAD, 'svg_active_content'],
  ])('refuses %s sent straight to S3 at registration, and deletes it from the bucket', async (_name, filename, contentType, bytes, reason) => {
    const site = await createTestSite(service, 's3');
    const { key } = await putToBucket(site, filename, contentType, await bytes());
    expect(await bucketKeys(site.siteId)).toEqual([key]);
    const refused = await admin(site, 'POST', '/files', { key });
    expect([refused.status, onlyError(refused).code, onlyError(refused).extensions.reason]).toEqual([422, 'UPLOAD_REJECTED', reason]);
    expect(await bucketKeys(site.siteId)).toEqual([]);
    expect((await admin(site, 'GET', '/files')).body.meta.total).toBe(0);
    const again = await admin(site, 'POST', '/files', { key });
    expect(again.status).toBe(404);
  });

  it('refuses an object over the site cap at registration with 413 and deletes it (a presigned PUT cannot cap its size)', async () => {
    const site = await createTestSite(service, 's3');
    expect((await admin(site, 'PUT', '/uploads/config', { maxBytes: 1_000 })).status).toBe(200);
    const { key } = await putToBucket(site, 'big.txt', 'text/plain', 'a'.repeat(1_001));
    const refused = await admin(site, 'POST', '/files', { key });
    expect([refused.status, onlyError(refused).code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect(await bucketKeys(site.siteId)).toEqual([]);
  });

  it("does not reach another site's objects", async () => {
    const siteA = await createTestSite(service, 's3');
    const siteB = await createTestSite(service, 's3');
    const { key } = await putToBucket(siteA, 'a.png', 'image/png', await pngBytes());
    expect((await admin(siteB, 'POST', '/files', { key })).status).toBe(404);
    expect(await bucketKeys(siteA.siteId)).toEqual([key]);
  });
});

describe('media with S3 storage', () => {
  it('uploads, downloads, transforms and deletes like local storage', async () => {
    const site = await createTestSite(service, 's3');
    const created = await sendRaw(service, 'POST', '/media/photo.png', { site: site.siteId, token: site.adminToken, contentType: 'image/png', body: await pngBytes(80, 60) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const file = created.body.data;
    expect(await bucketKeys(site.siteId)).toEqual(['media/photo.png']);

    const original = await get(site, '/media/photo.png');
    expect(original.status).toBe(200);
    expect(original.headers.get('content-disposition')).toBe('attachment; filename="photo.png"');
    expect(original.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await sharp(original.bytes).metadata()).toMatchObject({ format: 'png', width: 80, height: 60 });

    const redirect = await get(site, '/media/photo.png?width=40&format=webp');
    expect([redirect.status, redirect.headers.get('location')]).toEqual([302, `/api/v1/assets/${file.id}?width=40&format=webp&quality=80`]);
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(site, '/media/photo.png?width=40&format=webp', 'follow')));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    for (const answer of answers) expect(answer.bytes.equals(answers[0]!.bytes)).toBe(true);
    expect(await sharp(answers[0]!.bytes).metadata()).toMatchObject({ format: 'webp', width: 40, height: 30 });
    const derivatives = (await bucketKeys(site.siteId)).filter((key) => key.startsWith('media/photo.png.derivatives/'));
    expect(derivatives).toHaveLength(1);

    const hostile = await sendRaw(service, 'POST', '/media/evil.png', { site: site.siteId, token: site.adminToken, contentType: 'image/png', body: await pngWithScriptText() });
    expect([hostile.status, onlyError(hostile).extensions.reason]).toEqual([422, 'embedded_script']);
    expect(await bucketKeys(site.siteId)).not.toContain('media/evil.png');

    expect((await sendRaw(service, 'DELETE', '/media/photo.png', { site: site.siteId, token: site.adminToken })).status).toBe(204);
    expect((await get(site, '/media/photo.png')).status).toBe(404);
    expect(await bucketKeys(site.siteId)).not.toContain('media/photo.png');
  });
});

describe('two instances', () => {
  it('stops serving a deleted file from the other instance, its derivatives included', async () => {
    const site = await createTestSite(service, 's3');
    const file = (await sendRaw(service, 'POST', '/media/shared.png', { site: site.siteId, token: site.adminToken, contentType: 'image/png', body: await pngBytes(60, 60) })).body.data;
    const fromSecond = (path: string) => sendRaw(secondInstance, 'GET', path, { site: site.siteId, token: site.adminToken });
    expect((await fromSecond(`/assets/${file.id}`)).status).toBe(200);
    expect((await fromSecond(`/assets/${file.id}?width=30`)).status).toBe(200);
    expect((await sendRaw(service, 'DELETE', '/media/shared.png', { site: site.siteId, token: site.adminToken })).status).toBe(204);
    const deadline = Date.now() + 3_000;
    let statuses: number[] = [];
    while (Date.now() < deadline) {
      statuses = [(await fromSecond(`/assets/${file.id}`)).status, (await fromSecond(`/assets/${file.id}?width=30`)).status];
      if (statuses.every((status) => status === 404)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(statuses).toEqual([404, 404]);
  });
});
