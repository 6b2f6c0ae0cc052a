// The upload guard on every upload surface over real HTTP (local storage): the signed upload URL,
// POST /media/:key, and the re-inspection of a stored object by POST /files. Hostile bytes are built
// here with sharp; a refusal answers its envelope and leaves nothing behind (no record, no object).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalObjectStorage } from '../../../infra/storage/localStorage.ts';
import { forSite } from '../../../infra/storage/objectStorage.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { createMember, grant, withHelpers } from '../access/support.ts';
import {
  CLEAN_SVG,
  jpegBytes,
  MZ,
  onlyError,
  pngBytes,
  pngWithElfAppended,
  pngWithScriptText,
  sendChunked,
  sendRaw,
  storedKeys,
  SVG_WITH_ONLOAD,
  type RawResponse,
} from './support.ts';

const service = await startTestServiceForFile();

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'svc-files-guard-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const admin = (site: TestSite, method: string, path: string, body?: unknown) =>
  service.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) });

interface Surface {
  name: string;
  /** Sends `bytes` named `filename` with the declared content type through the surface. */
  send(site: TestSite, filename: string, contentType: string, bytes: Buffer | string): Promise<RawResponse>;
}

const surfaces: Surface[] = [
  {
    name: 'PUT /files/upload (the signed URL)',
    async send(site, filename, contentType, bytes) {
      const presigned = await admin(site, 'POST', '/files/presigned-url', { filename, contentType });
      expect(presigned.status, JSON.stringify(presigned.body)).toBe(200);
      return sendRaw(service, 'PUT', presigned.body.data.url, { headers: presigned.body.data.headers, body: bytes });
    },
  },
  {
    name: 'POST /media/:key',
    send: (site, filename, contentType, bytes) => sendRaw(service, 'POST', `/media/${filename}`, { site: site.siteId, token: site.adminToken, contentType, body: bytes }),
  },
  {
    name: 'POST /files (re-inspecting an object stored without the guard)',
    async send(site, filename, contentType, bytes) {
      // Bytes that reached the storage some other way (as a direct S3 upload would): only the registration checks them.
      const key = `uploads/planted-${Math.random().toString(36).slice(2)}/${filename}`;
      const path = join(scratch, filename);
      await writeFile(path, bytes);
      await forSite(createLocalObjectStorage(join(service.context.config.dataDir, 'objects')), site.siteId).putFile(key, path, contentType);
      const registered = await admin(site, 'POST', '/files', { key });
      return { ...registered, bytes: Buffer.alloc(0) };
    },
  },
];

/** No file record, no stored object, and GET /media/<filename> is 404. */
async function expectNothingKept(site: TestSite, filename: string) {
  const listed = await admin(site, 'GET', '/files');
  expect(listed.body.meta.total).toBe(0);
  expect(await storedKeys(service, site.siteId)).toEqual([]);
  expect((await sendRaw(service, 'GET', `/media/${filename}`, { site: site.siteId, token: site.adminToken })).status).toBe(404);
}

function expectRefusal(response: RawResponse, status: number, code: string, reason?: string) {
  const error = onlyError(response);
  expect([response.status, error.code]).toEqual([status, code]);
  if (reason) expect(error.extensions.reason).toBe(reason);
}

describe.each(surfaces)('$name', (surface) => {
  it.each([
    ['a PNG with a tEXt chunk holding <script>', 'text.png', 'image/png', pngWithScriptText, 'embedded_script'],
    ['a PNG with an ELF binary appended', 'elf.png', 'image/png', pngWithElfAppended, 'trailing_payload'],
    ['MZ (PE) bytes named .png', 'mz.png', 'image/png', async () => MZ, 'executable'],
    ['an SVG with an onload handler', 'onload.svg', 'image/svg+xml', async () => SVG_WITH_ONLOAD, 'svg_active_content'],
    ['JPEG bytes declared as image/png', 'photo.png', 'image/png', () => jpegBytes(), 'type_mismatch'],
    ['a name that does not fit the declared type', 'photo.jpg', 'image/png', () => pngBytes(), 'extension_mismatch'],
  ])('refuses %s with 422 UPLOAD_REJECTED and keeps nothing', async (_name, filename, contentType, bytes, reason) => {
    const site = await createTestSite(service, 'guard');
    expectRefusal(await surface.send(site, filename, contentType, await bytes()), 422, 'UPLOAD_REJECTED', reason);
    await expectNothingKept(site, filename);
  });

  it('refuses a type off the allowlist with 415 UNSUPPORTED_MEDIA_TYPE, an extension off it too', async () => {
    const site = await createTestSite(service, 'guard');
    expect((await admin(site, 'PUT', '/uploads/config', { allowedMimeTypes: ['image/png', 'image/svg+xml'], allowedExtensions: ['png', 'svg'] })).status).toBe(200);
    expectRefusal(await surface.send(site, 'photo.jpg', 'image/jpeg', await jpegBytes()), 415, 'UNSUPPORTED_MEDIA_TYPE', 'type_not_allowed');
    expectRefusal(await surface.send(site, 'notes.txt', 'image/png', await pngBytes()), 415, 'UNSUPPORTED_MEDIA_TYPE', 'extension_not_allowed');
    await expectNothingKept(site, 'photo.jpg');
  });

  it('refuses bytes over the site cap with 413 PAYLOAD_TOO_LARGE and keeps nothing', async () => {
    const site = await createTestSite(service, 'guard');
    expect((await admin(site, 'PUT', '/uploads/config', { maxBytes: 10_000 })).status).toBe(200);
    expectRefusal(await surface.send(site, 'big.txt', 'text/plain', 'a'.repeat(10_001)), 413, 'PAYLOAD_TOO_LARGE');
    await expectNothingKept(site, 'big.txt');
  });

  it('accepts a clean SVG', async () => {
    const site = await createTestSite(service, 'guard');
    const accepted = await surface.send(site, 'logo.svg', 'image/svg+xml', CLEAN_SVG);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    expect(accepted.body.data).toMatchObject({ type: 'image/svg+xml' });
    expect(await storedKeys(service, site.siteId)).toHaveLength(1);
  });
});

describe('a chunked body without Content-Length', () => {
  const chunkedTo = async (site: TestSite, surface: 'media' | 'upload', name: string, total: number) => {
    if (surface === 'media') {
      return sendChunked(`${service.url}/api/v1/media/${name}`, { 'x-svc-site': site.siteId, authorization: `Bearer ${site.adminToken}`, 'content-type': 'text/plain' }, total, 997);
    }
    const { url, headers } = (await admin(site, 'POST', '/files/presigned-url', { filename: name, contentType: 'text/plain' })).body.data;
    return sendChunked(url, headers, total, 997, 'PUT');
  };

  it.each(['media', 'upload'] as const)('one byte over the cap is refused with 413 and nothing is stored (%s)', async (surface) => {
    const site = await createTestSite(service, 'guard');
    expect((await admin(site, 'PUT', '/uploads/config', { maxBytes: 20_000 })).status).toBe(200);
    const over = await chunkedTo(site, surface, 'over.txt', 20_001);
    expect([over.status, over.body.errors[0].code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    await expectNothingKept(site, 'over.txt');

    const exact = await chunkedTo(site, surface, 'exact.txt', 20_000);
    expect(exact.status, JSON.stringify(exact.body)).toBe(201);
    expect(exact.body.data).toMatchObject({ type: 'text/plain', size: 20_000 });
  });

  it('a body far over the cap gets 413 and its connection closed, not held open unread', async () => {
    const site = await createTestSite(service, 'guard');
    expect((await admin(site, 'PUT', '/uploads/config', { maxBytes: 1_000 })).status).toBe(200);
    const url = `${service.url}/api/v1/media/huge.txt`;
    const headers = { 'x-svc-site': site.siteId, authorization: `Bearer ${site.adminToken}`, 'content-type': 'text/plain' };
    // The service's end of each connection, to close the one this body went through whatever the outcome.
    const connections: { socket: Socket; port: number | undefined }[] = [];
    const track = (socket: Socket) => connections.push({ socket, port: socket.remotePort });
    service.server.server.on('connection', track);
    let localPort: number | undefined;
    try {
      const refused = await sendChunked(url, headers, 64 * 1024 * 1024, 64 * 1024, 'POST', 3_000);
      localPort = refused.localPort;
      expect(refused.status).toBe(413);
      await expectNothingKept(site, 'huge.txt');
      // The rest of the body is never read: a kept-alive connection would hang the client's upload and the service's shutdown.
      expect.soft(refused.headers.connection).toBe('close');
      expect(refused.closedByServer, 'the service closes the connection after refusing the body').toBe(true);
    } finally {
      service.server.server.off('connection', track);
      for (const { socket, port } of connections) if (port === localPort) socket.destroy();
    }
  });
});

describe('who may upload', () => {
  it('refuses anonymous uploads on every surface with 401, even when the public role holds media:create', async () => {
    const site = withHelpers(service, await createTestSite(service, 'guard'));
    const publicRole = (await site.admin('GET', '/roles')).body.data.find((role: { systemKey: string }) => role.systemKey === 'public');
    await grant(site, { roleId: publicRole.id }, [{ collection: null, action: 'media:create' }, { collection: null, action: 'media:read' }]);
    const png = await pngBytes();

    const media = await sendRaw(service, 'POST', '/media/anon.png', { site: site.siteId, contentType: 'image/png', body: png });
    expectRefusal(media, 401, 'UNAUTHENTICATED');
    const presign = await site.as(null, 'POST', '/files/presigned-url', { filename: 'anon.png', contentType: 'image/png' });
    expect(presign.status).toBe(401);
    const register = await site.as(null, 'POST', '/files', { key: 'uploads/x/anon.png' });
    expect(register.status).toBe(401);
    const { url } = (await site.admin('POST', '/files/presigned-url', { filename: 'anon.png', contentType: 'image/png' })).body.data;
    const unsigned = await sendRaw(service, 'PUT', url.split('?')[0], { site: site.siteId, contentType: 'image/png', body: png });
    expectRefusal(unsigned, 401, 'UNAUTHENTICATED');
    await expectNothingKept(site, 'anon.png');
  });

  it('refuses a member without media:create with 403 on every surface, before reading the bytes', async () => {
    const site = withHelpers(service, await createTestSite(service, 'guard'));
    const member = await createMember(service, site);
    const media = await sendRaw(service, 'POST', '/media/member.png', { site: site.siteId, token: member.token, contentType: 'image/png', body: await pngBytes() });
    expectRefusal(media, 403, 'PERMISSION_DENIED');
    expect((await site.as(member.token, 'POST', '/files/presigned-url', { filename: 'member.png', contentType: 'image/png' })).status).toBe(403);
    expect((await site.as(member.token, 'POST', '/files', { key: 'uploads/x/member.png' })).status).toBe(403);
    await expectNothingKept(site, 'member.png');
  });
});
