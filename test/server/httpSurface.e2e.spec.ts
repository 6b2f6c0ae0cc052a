// What every request meets before a handler: body parsing and limits, site resolution, API version,
// request ids, the error envelope. A refused request writes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../infra/postgres/sql.ts';
import { openOwnerDatabaseForFile } from '../support/databases.ts';
import { createTestSite, INSTANCE_TOKEN, startTestServiceForFile, type TestSite, uniqueSiteId } from '../support/testService.ts';

const service = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();
let site: TestSite;

beforeAll(async () => {
  site = await createTestSite(service, 'http');
});

async function eventCount(siteId: string): Promise<number> {
  const [row] = await owner.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM events WHERE site_id = ${siteId}`);
  return row!.n;
}

/** The spec's error envelope, exactly: one error with code, message, path and extensions. */
function expectEnvelope(body: unknown, code: string, path?: (string | number)[]): void {
  expect(body).toEqual({ errors: [{ code, message: expect.any(String), path: path ?? expect.any(Array), extensions: expect.any(Object) }] });
}

describe('request bodies', () => {
  it('answers malformed JSON with 400 VALIDATION_FAILED on the body, and writes nothing', async () => {
    const before = await eventCount(site.siteId);
    const response = await service.request('POST', '/auth/login', { site: site.siteId, rawBody: '{"email": "a@b.test", "password": ' });
    expect(response.status).toBe(400);
    expectEnvelope(response.body, 'VALIDATION_FAILED', ['body']);
    expect(await eventCount(site.siteId)).toBe(before);
  });

  it('refuses text PostgreSQL cannot store (NUL, a lone surrogate) at its path on any route, and writes nothing', async () => {
    const created = await service.request('POST', '/collections', {
      site: site.siteId,
      token: site.adminToken,
      body: { name: 'notes', fields: [{ field: 'title', type: 'string' }, { field: 'meta', type: 'json' }] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const cases: [string, string, string, (string | number)[], RegExp][] = [
      // JSON allows a lone surrogate as an escape; a pair (an emoji) is fine and is sent beside one.
      ['POST', '/items/notes', '{"title": "\\ud83d\\ude00 \\ud800"}', ['body', 'title'], /lone surrogate/],
      ['POST', '/items/notes', '[{"title": "ok"}, {"meta": {"list": ["x", "\\udfff"]}}]', ['body', 1, 'meta', 'list', 1], /lone surrogate/],
      ['POST', '/items/notes', '{"meta": {"\\ud800key": 1}}', ['body', 'meta', '\ud800key'], /Keys .*lone surrogate/],
      ['POST', '/items/notes', '{"title": "a\\u0000b"}', ['body', 'title'], /NUL/],
      ['PATCH', '/collections/notes', '{"note": "\\udc00"}', ['body', 'note'], /lone surrogate/],
      ['POST', '/fields/notes', '{"field": "extra", "type": "string", "options": {"choices": ["\\ud800"]}}', ['body', 'options', 'choices', 0], /lone surrogate/],
    ];
    for (const [method, path, rawBody, errorPath, message] of cases) {
      const before = await eventCount(site.siteId);
      const response = await service.request(method, path, { site: site.siteId, token: site.adminToken, rawBody });
      expect(response.status, `${method} ${path} ${rawBody}`).toBe(400);
      expectEnvelope(response.body, 'VALIDATION_FAILED', errorPath);
      expect(response.body.errors[0].message).toMatch(message);
      expect(await eventCount(site.siteId)).toBe(before);
    }
    const emoji = await service.request('POST', '/items/notes', { site: site.siteId, token: site.adminToken, rawBody: '{"title": "\\ud83d\\ude00"}' });
    expect(emoji.status, JSON.stringify(emoji.body)).toBe(201);
    expect(emoji.body.data.title).toBe('😀');
  });

  it('answers a request line and headers over 16 KiB with 431 in the envelope', async () => {
    const filter = JSON.stringify({ _or: Array.from({ length: 600 }, (_, index) => ({ title: { _eq: `title ${index}` } })) });
    const response = await service.request('GET', `/items/articles?filter=${encodeURIComponent(filter)}`, { site: site.siteId, token: site.adminToken });
    expect(response.status).toBe(431);
    expectEnvelope(response.body, 'REQUEST_HEADERS_TOO_LARGE', ['headers']);
    // The service goes on answering.
    expect((await service.request('GET', '/no/such/route', { site: site.siteId })).status).toBe(404);
  });

  it('answers wrong types and missing fields with 400 VALIDATION_FAILED naming the field', async () => {
    const before = await eventCount(site.siteId);
    const wrongType = await service.request('POST', '/auth/login', { site: site.siteId, body: { email: 42, password: 'x' } });
    expect(wrongType.status).toBe(400);
    expectEnvelope(wrongType.body, 'VALIDATION_FAILED', ['body', 'email']);
    const missing = await service.request('POST', '/auth/login', { site: site.siteId, body: { email: site.adminEmail } });
    expect(missing.status).toBe(400);
    expectEnvelope(missing.body, 'VALIDATION_FAILED', ['body', 'password']);
    const notAnObject = await service.request('POST', '/auth/login', { site: site.siteId, body: ['a', 'b'] });
    expect(notAnObject.status).toBe(400);
    expectEnvelope(notAnObject.body, 'VALIDATION_FAILED');
    expect(await eventCount(site.siteId)).toBe(before);
  });

  it('answers a body over the 1 MiB limit with 413 in the envelope, and writes nothing', async () => {
    const before = await eventCount(site.siteId);
    const huge = JSON.stringify({ email: site.adminEmail, password: 'x'.repeat(1024 * 1024) });
    const response = await service.request('POST', '/auth/login', { site: site.siteId, rawBody: huge });
    expect(response.status).toBe(413);
    expectEnvelope(response.body, 'PAYLOAD_TOO_LARGE', ['body']);
    expect(await eventCount(site.siteId)).toBe(before);
  });

  it('answers a body that is not JSON with 415 in the envelope', async () => {
    const response = await service.request('POST', '/auth/login', {
      site: site.siteId,
      rawBody: 'email=a@b.test&password=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(415);
    expectEnvelope(response.body, 'UNSUPPORTED_MEDIA_TYPE', ['body']);
  });

  it('creates no site from an instance request with a bad body', async () => {
    const siteId = uniqueSiteId('never');
    const response = await service.request('POST', '/instance/sites', {
      token: INSTANCE_TOKEN,
      body: { id: siteId, adminEmail: 'not-an-email', adminPassword: 'long enough password' },
    });
    expect(response.status).toBe(400);
    expectEnvelope(response.body, 'VALIDATION_FAILED', ['body', 'adminEmail']);
    expect(await eventCount(siteId)).toBe(0);
    expect(await owner.query(sql`SELECT 1 FROM sites WHERE id = ${siteId}`)).toEqual([]);
  });
});

describe('site resolution', () => {
  it('answers an unknown site with 404 SITE_NOT_FOUND, and a malformed site id the same way', async () => {
    for (const siteId of [uniqueSiteId('unknown'), 'Not A Site!']) {
      const response = await service.request('POST', '/auth/login', { site: siteId, body: { email: 'a@b.test', password: 'x' } });
      expect(response.status).toBe(404);
      expectEnvelope(response.body, 'SITE_NOT_FOUND', ['headers', 'x-svc-site']);
    }
  });

  it('answers a site route without X-Svc-Site with 400 VALIDATION_FAILED on the header', async () => {
    const response = await service.request('GET', '/auth/me', { token: site.adminToken });
    expect(response.status).toBe(400);
    expectEnvelope(response.body, 'VALIDATION_FAILED', ['headers', 'x-svc-site']);
  });

  it('answers a route that does not exist with 404 NOT_FOUND in the envelope', async () => {
    const response = await service.request('GET', '/no/such/route', { site: site.siteId });
    expect(response.status).toBe(404);
    expectEnvelope(response.body, 'NOT_FOUND', []);
  });

  it('answers 404 or 405, not 401, for a method and path no route serves when the request carries a token', async () => {
    // An empty name leaves /collections/:name unmatched; the token was checked without a site before.
    // /collections/ is /collections (trailing slashes are ignored), which takes GET and POST: 405.
    const cases = [
      ['PATCH', '/collections/', 405, 'METHOD_NOT_ALLOWED'],
      ['POST', '/fields/', 404, 'NOT_FOUND'],
      ['GET', '/no/such/route', 404, 'NOT_FOUND'],
    ] as const;
    for (const [method, path, status, code] of cases) {
      const response = await service.request(method, path, { site: site.siteId, token: site.adminToken, ...(method === 'GET' ? {} : { body: {} }) });
      expect(response.status, `${method} ${path}`).toBe(status);
      expectEnvelope(response.body, code, []);
    }
    const garbage = await service.request('GET', '/no/such/route', { token: 'not-a-token' });
    expect(garbage.status).toBe(404);
  });
});

describe('API version and request ids', () => {
  it('refuses X-Svc-API-Version 2 with 400 and accepts version 1', async () => {
    const before = await eventCount(site.siteId);
    const refused = await service.request('POST', '/auth/login', {
      site: site.siteId,
      body: { email: site.adminEmail, password: site.adminPassword },
      headers: { 'x-svc-api-version': '2' },
    });
    expect(refused.status).toBe(400);
    expectEnvelope(refused.body, 'VALIDATION_FAILED', ['headers', 'x-svc-api-version']);
    expect(await eventCount(site.siteId)).toBe(before);

    const pinned = await service.request('GET', '/auth/me', { site: site.siteId, token: site.adminToken, headers: { 'x-svc-api-version': '1' } });
    expect(pinned.status).toBe(200);
  });

  it('echoes a well-formed X-Request-Id on success and on error, and makes one up otherwise', async () => {
    const requestId = 'client-chosen-id-0001';
    const ok = await service.request('GET', '/auth/me', { site: site.siteId, token: site.adminToken, headers: { 'x-request-id': requestId } });
    expect(ok.headers.get('x-request-id')).toBe(requestId);
    const failed = await service.request('GET', '/auth/me', { site: site.siteId, headers: { 'x-request-id': requestId } });
    expect(failed.status).toBe(401);
    expect(failed.headers.get('x-request-id')).toBe(requestId);

    const none = await service.request('GET', '/utils/version');
    expect(none.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const malformed = await service.request('GET', '/utils/version', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(malformed.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
