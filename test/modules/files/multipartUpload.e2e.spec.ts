// POST /files with a multipart form (curl -F file=@photo.png): one `file` part, optional `title`,
// `tags` (repeated) and `folder` fields, over real HTTP with bodies built by undici's FormData (and
// by hand where a client would not send them), and with the real curl binary. Every refusal answers
// the spec's envelope with its path and leaves nothing behind: no record, no object, no temporary file.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { createMember, grant, withHelpers } from '../access/support.ts';
import { filePart, jpegBytes, onlyError, photoBytes, pngBytes, sendForm, sendRaw, sha256, storedKeys, type RawResponse } from './support.ts';

const service = await startTestServiceForFile();
const CURL = '/usr/bin/curl';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'svc-files-form-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const admin = (site: TestSite, method: string, path: string, body?: unknown) =>
  service.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) });
const upload = (site: TestSite, form: FormData, token: string | null = site.adminToken) => sendForm(service, '/files', form, { site: site.siteId, token });

/** A form with `bytes` as its file part (named `part`) and the given text fields, in that order. */
function formOf(bytes: Buffer | string, filename: string, type: string, fields: [string, string][] = [], part = 'file'): FormData {
  const form = new FormData();
  form.append(part, filePart(bytes, type), filename);
  for (const [name, value] of fields) form.append(name, value);
  return form;
}

function expectRefusal(response: Pick<RawResponse, 'status' | 'body'>, status: number, code: string, path?: (string | number)[]) {
  const error = onlyError(response);
  expect([response.status, error.code], JSON.stringify(response.body)).toEqual([status, code]);
  if (path) expect(error.path).toEqual(path);
  return error;
}

/**
 * Streams a form whose file part is `total` bytes of zeros, chunk by chunk, and stops sending once the
 * service answers: the answer, and how many bytes had been sent by then. The service closes the
 * connection after a refusal without reading the rest: a client still writing may see the connection
 * cut (EPIPE, ECONNRESET) before it reads the answer, which then answers `status: null`.
 */
function streamForm(site: TestSite, total: number): Promise<{ status: number | null; body: any; sent: number }> {
  const boundary = 'svc-stream-boundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const request = httpRequest(
      `${service.url}/api/v1/files`,
      { method: 'POST', agent: false, headers: { 'x-svc-site': site.siteId, authorization: `Bearer ${site.adminToken}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' } },
      (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          request.destroy();
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), sent });
        });
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) return;
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') resolve({ status: null, body: null, sent });
      else reject(error);
    });
    request.write(head);
    const chunk = Buffer.alloc(64 * 1024);
    const writeMore = () => {
      while (sent < total && !answered) {
        sent += chunk.length;
        if (!request.write(chunk)) return void request.once('drain', writeMore);
      }
      if (!answered) request.end(tail);
    };
    writeMore();
  });
}

/** No record, no stored object, and no temporary file left by the upload. */
async function expectNothingKept(site: TestSite) {
  expect((await admin(site, 'GET', '/files')).body.meta.total).toBe(0);
  expect(await storedKeys(service, site.siteId)).toEqual([]);
  expect(await readdir(join(service.context.config.dataDir, 'tmp', 'uploads')).catch(() => [])).toEqual([]);
}

describe('a multipart upload to POST /files', () => {
  it('stores the file and makes its record in one call, with its title, tags and folder', async () => {
    const site = await createTestSite(service, 'form');
    const png = await pngBytes(40, 30);
    const sent = await upload(site, formOf(png, 'Hero Image.png', 'image/png', [['title', 'Hero'], ['tags', 'hero'], ['tags', 'home'], ['folder', 'banners']]));
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body.data).toMatchObject({
      key: expect.stringMatching(/^uploads\/[0-9a-f-]{36}\/Hero-Image\.png$/),
      filename: 'Hero Image.png',
      title: 'Hero',
      type: 'image/png',
      size: png.length,
      tags: ['hero', 'home'],
      folder: 'banners',
      width: 40,
      height: 30,
      source: 'upload',
      uploadedBy: site.adminUserId,
    });
    expect((await admin(site, 'GET', `/files/${sent.body.data.id}`)).body.data).toEqual(sent.body.data);
    const listed = await admin(site, 'GET', '/files?filter[folder][_eq]=banners');
    expect(listed.body.data.map((file: { id: string }) => file.id)).toEqual([sent.body.data.id]);
    const asset = await sendRaw(service, 'GET', `/assets/${sent.body.data.id}`, { site: site.siteId, token: site.adminToken });
    expect(sha256(asset.bytes)).toBe(sha256(png));
    expect(await storedKeys(service, site.siteId)).toEqual([sent.body.data.key]);
  });

  it('takes the fields before the file as well as after it, and none at all', async () => {
    const site = await createTestSite(service, 'form');
    const form = new FormData();
    form.append('title', 'First');
    form.append('tags', 'early');
    form.append('file', filePart(await jpegBytes(), 'image/jpeg'), 'a.jpg');
    const sent = await upload(site, form);
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body.data).toMatchObject({ title: 'First', tags: ['early'], folder: null, type: 'image/jpeg' });
    const bare = await upload(site, formOf(await jpegBytes(), 'b.jpg', 'image/jpeg'));
    expect(bare.body.data).toMatchObject({ title: null, tags: [], folder: null });
  });

  it('refuses a form without a file part, with two, or with the file in a part named otherwise, at its path', async () => {
    const site = await createTestSite(service, 'form');
    const png = await pngBytes();
    const none = new FormData();
    none.append('title', 'No file');
    expectRefusal(await upload(site, none), 400, 'VALIDATION_FAILED', ['body', 'file']);

    const two = formOf(png, 'a.png', 'image/png');
    two.append('file', filePart(png, 'image/png'), 'b.png');
    expectRefusal(await upload(site, two), 400, 'VALIDATION_FAILED', ['body', 'file']);

    expectRefusal(await upload(site, formOf(png, 'a.png', 'image/png', [], 'upload')), 400, 'VALIDATION_FAILED', ['body', 'upload']);
    const textFile = new FormData();
    textFile.append('file', 'not a file');
    expectRefusal(await upload(site, textFile), 400, 'VALIDATION_FAILED', ['body', 'file']);
    await expectNothingKept(site);
  });

  it('refuses unknown fields, values too long, a field given twice and a bad file name, at their paths', async () => {
    const site = await createTestSite(service, 'form');
    const png = await pngBytes();
    const cases: [[string, string][], (string | number)[]][] = [
      [[['owner', 'me']], ['body', 'owner']],
      [[['title', 'x'.repeat(501)]], ['body', 'title']],
      [[['title', 'y'.repeat(5000)]], ['body', 'title']],
      [[['folder', 'f'.repeat(501)]], ['body', 'folder']],
      [[['tags', 'ok'], ['tags', 't'.repeat(101)]], ['body', 'tags', 1]],
      [[['tags', '   ']], ['body', 'tags', 0]],
      [[['title', 'one'], ['title', 'two']], ['body', 'title']],
      [[['title', '']], ['body', 'title']],
    ];
    for (const [fields, path] of cases) expectRefusal(await upload(site, formOf(png, 'a.png', 'image/png', fields)), 400, 'VALIDATION_FAILED', path);
    const tooManyTags = formOf(png, 'a.png', 'image/png', Array.from({ length: 101 }, (_, index) => ['tags', `tag-${index}`] as [string, string]));
    expectRefusal(await upload(site, tooManyTags), 400, 'VALIDATION_FAILED', ['body', 'tags']);
    expectRefusal(await upload(site, formOf(png, 'bad\u0001name.png', 'image/png')), 400, 'VALIDATION_FAILED', ['body', 'file', 'filename']);
    await expectNothingKept(site);
  });

  it('refuses a malformed multipart body with 400, never a 500', async () => {
    const site = await createTestSite(service, 'form');
    const boundary = 'svc-test-boundary';
    const truncated = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n${'x'.repeat(100)}`;
    const sent = await sendRaw(service, 'POST', '/files', { site: site.siteId, token: site.adminToken, contentType: `multipart/form-data; boundary=${boundary}`, body: truncated });
    expectRefusal(sent, 400, 'VALIDATION_FAILED');
    const noBoundary = await sendRaw(service, 'POST', '/files', { site: site.siteId, token: site.adminToken, contentType: 'multipart/form-data', body: 'whatever' });
    expectRefusal(noBoundary, 400, 'VALIDATION_FAILED');
    await expectNothingKept(site);
  });

  it('runs the upload guard: HTML disguised as a PNG, an executable, a polyglot are refused and nothing is kept', async () => {
    const site = await createTestSite(service, 'form');
    const html = '<!doctype html><html><body><script>alert(document.cookie)</script></body></html>';
    const disguised = expectRefusal(await upload(site, formOf(html, 'cat.png', 'image/png')), 422, 'UPLOAD_REJECTED', ['body', 'file']);
    expect(disguised.extensions.reason).toBe('type_mismatch');
    const declaredHtml = expectRefusal(await upload(site, formOf(html, 'page.html', 'text/html')), 415, 'UNSUPPORTED_MEDIA_TYPE', ['body', 'file']);
    expect(declaredHtml.extensions.reason).toBe('type_not_verifiable');
    const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]), Buffer.alloc(120, 0x90)]);
    expect(expectRefusal(await upload(site, formOf(elf, 'tool.png', 'image/png')), 422, 'UPLOAD_REJECTED').extensions.reason).toBe('executable');
    const polyglot = Buffer.concat([await pngBytes(), Buffer.from('<script>alert(1)</script>')]);
    expect(expectRefusal(await upload(site, formOf(polyglot, 'poly.png', 'image/png')), 422, 'UPLOAD_REJECTED').extensions.reason).toBe('trailing_payload');
    await expectNothingKept(site);
  });

  it("refuses a file over the site's cap with 413 PAYLOAD_TOO_LARGE: no record, no object, no temporary file", async () => {
    const site = await createTestSite(service, 'form');
    expect((await admin(site, 'PUT', '/uploads/config', { maxBytes: 2_000 })).status).toBe(200);
    const refused = await upload(site, formOf(Buffer.concat([await pngBytes(), Buffer.alloc(8_000)]), 'large.png', 'image/png', [['title', 'Large']]));
    const error = expectRefusal(refused, 413, 'PAYLOAD_TOO_LARGE', ['body', 'file']);
    expect(error.extensions.maxBytes).toBe(2_000);
    expect(refused.headers.get('connection')).toBe('close');
    await expectNothingKept(site);
    // Exactly at the cap is taken.
    const small = await pngBytes();
    expect((await admin(site, 'PUT', '/uploads/config', { maxBytes: small.length })).status).toBe(200);
    expect((await upload(site, formOf(small, 'small.png', 'image/png'))).status).toBe(201);
  });

  it('streams the file part: 256 MiB sent against a 1 MiB cap is answered 413 long before its end', async () => {
    const site = await createTestSite(service, 'form');
    expect((await admin(site, 'PUT', '/uploads/config', { maxBytes: 1024 * 1024 })).status).toBe(200);
    const total = 256 * 1024 * 1024;
    const answer = await streamForm(site, total);
    if (answer.status !== null) expect([answer.status, answer.body.errors[0].code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    // The service refused while the client was still sending: it read a little past the cap, not the body.
    expect(answer.sent).toBeLessThan(total / 4);
    await expectNothingKept(site);
  });
});

describe('who may upload a form', () => {
  it('refuses anonymous callers (401) and members without media:create (403), and takes one who holds it', async () => {
    const site = withHelpers(service, await createTestSite(service, 'form'));
    const png = await pngBytes();
    expectRefusal(await upload(site, formOf(png, 'a.png', 'image/png'), null), 401, 'UNAUTHENTICATED');
    const member = await createMember(service, site);
    expectRefusal(await upload(site, formOf(png, 'a.png', 'image/png'), member.token), 403, 'PERMISSION_DENIED');
    await expectNothingKept(site);
    await grant(site, { userId: member.userId }, [{ collection: null, action: 'media:create' }]);
    const taken = await upload(site, formOf(png, 'a.png', 'image/png'), member.token);
    expect([taken.status, taken.body.data?.uploadedBy]).toEqual([201, member.userId]);
  });

  it("never writes into another site: a token of one site is refused on another, and folders stay the site's own", async () => {
    const mine = await createTestSite(service, 'form');
    const theirs = await createTestSite(service, 'form');
    const png = await pngBytes();
    const theirFile = await upload(theirs, formOf(png, 'theirs.png', 'image/png', [['folder', 'shared-name']]));
    expect(theirFile.status).toBe(201);

    const crossed = await sendForm(service, '/files', formOf(png, 'a.png', 'image/png', [['folder', 'shared-name']]), { site: theirs.siteId, token: mine.adminToken });
    expect([401, 403]).toContain(crossed.status);
    expect((await admin(theirs, 'GET', '/files')).body.meta.total).toBe(1);

    // A folder is a label of the site's own files: the same name in my site files my file only.
    const myFile = await upload(mine, formOf(png, 'mine.png', 'image/png', [['folder', 'shared-name']]));
    expect(myFile.status).toBe(201);
    const mineListed = await admin(mine, 'GET', '/files?filter[folder][_eq]=shared-name');
    expect([mineListed.body.meta.total, mineListed.body.data[0].id]).toEqual([1, myFile.body.data.id]);
    const theirsListed = await admin(theirs, 'GET', '/files?filter[folder][_eq]=shared-name');
    expect([theirsListed.body.meta.total, theirsListed.body.data[0].id]).toEqual([1, theirFile.body.data.id]);
    expect((await admin(mine, 'GET', `/files/${theirFile.body.data.id}`)).status).toBe(404);
  });
});

describe('the JSON registration on the same route', () => {
  it('still answers its own validation errors at their paths, and 415 for a body that is neither', async () => {
    const site = await createTestSite(service, 'form');
    expectRefusal(await admin(site, 'POST', '/files', { key: 'uploads/x/a.png', owner: 'me' }), 400, 'VALIDATION_FAILED');
    expectRefusal(await admin(site, 'POST', '/files', { key: 42 }), 400, 'VALIDATION_FAILED', ['body', 'key']);
    const xml = await sendRaw(service, 'POST', '/files', { site: site.siteId, token: site.adminToken, contentType: 'application/xml', body: '<file/>' });
    expect(xml.status).toBe(415);
  });
});

describe.skipIf(!existsSync(CURL))('curl -F', () => {
  it('uploads a photo with curl -F file=@photo.jpg and its fields, byte for byte', async () => {
    const site = await createTestSite(service, 'form');
    const photo = await photoBytes('jpeg');
    const path = join(scratch, 'photo.jpg');
    await writeFile(path, photo);
    const { stdout } = await promisify(execFile)(CURL, [
      '--silent',
      '--show-error',
      '-H', `X-Svc-Site: ${site.siteId}`,
      '-H', `Authorization: Bearer ${site.adminToken}`,
      '-F', `file=@${path}`,
      '-F', 'title=From curl',
      '-F', 'tags=cli',
      '-w', '\n%{http_code}',
      `${service.url}/api/v1/files`,
    ]);
    const [body, status] = [stdout.slice(0, stdout.lastIndexOf('\n')), stdout.slice(stdout.lastIndexOf('\n') + 1)];
    expect(status, body).toBe('201');
    const file = JSON.parse(body).data;
    expect(file).toMatchObject({ filename: 'photo.jpg', title: 'From curl', tags: ['cli'], type: 'image/jpeg', size: photo.length });
    const asset = await sendRaw(service, 'GET', `/assets/${file.id}`, { site: site.siteId, token: site.adminToken });
    expect(sha256(asset.bytes)).toBe(sha256(photo));
  });
});
