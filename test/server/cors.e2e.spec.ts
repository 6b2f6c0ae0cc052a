// CORS as a browser's requests see it, sent by hand (the browser itself: corsBrowser.e2e.spec.ts):
// the environment's origins and each site's `corsOrigins` setting get their origin back with
// credentials, the public delivery routes `*` without them, any other origin no CORS header at all
// (the request itself served as before); preflights on every API path, with or without a site.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ConfigError, configWarnings, loadConfig } from '../../src/config/config.ts';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from '../../src/server/cors.ts';
import { auditedActions, caller, dataOf, expectRefused } from '../modules/settings/support.ts';
import { createMember } from '../modules/identity/support/identity.ts';
import { createTestSite, startTestServiceForFile, type TestService } from '../support/testService.ts';

const ENV_ORIGIN = 'https://studio.example.org';
const service = await startTestServiceForFile({ SVC_CORS_ORIGINS: `${ENV_ORIGIN}, http://localhost:5173` });
const anyOriginService = await startTestServiceForFile({ SVC_CORS_ORIGINS: '*' });

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
}

/** A request with exactly these headers (fetch would refuse to set Origin or Host). */
function send(target: TestService, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<RawResponse> {
  const url = new URL(`${target.url}/api/v1${path}`);
  const text = body === undefined ? undefined : JSON.stringify(body);
  const all = text === undefined ? headers : { 'content-type': 'application/json', ...headers };
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ hostname: url.hostname, port: url.port, path: url.pathname + url.search, method, headers: all }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = raw;
        try {
          parsed = raw ? JSON.parse(raw) : null;
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: parsed });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(text);
  });
}

const corsHeadersOf = (response: RawResponse) => Object.keys(response.headers).filter((name) => name.startsWith('access-control-'));

function expectCredentialed(response: RawResponse, origin: string): void {
  expect(response.headers['access-control-allow-origin'], JSON.stringify(response.headers)).toBe(origin);
  expect(response.headers['access-control-allow-credentials']).toBe('true');
  expect(response.headers.vary).toMatch(/Origin/);
}

function expectNoCors(response: RawResponse): void {
  expect(corsHeadersOf(response), JSON.stringify(response.headers)).toEqual([]);
}

function preflight(target: TestService, path: string, origin: string, extra: Record<string, string> = {}): Promise<RawResponse> {
  return send(target, 'OPTIONS', path, {
    origin,
    'access-control-request-method': 'PATCH',
    'access-control-request-headers': 'authorization,content-type,x-svc-site',
    ...extra,
  });
}

async function siteWithOrigins(origins: string[]) {
  const site = await createTestSite(service);
  dataOf(await caller(service, site)('PUT', '/settings/corsOrigins', { value: origins }));
  return site;
}

describe('the environment default (SVC_CORS_ORIGINS)', () => {
  it('answers a listed origin with itself and credentials on every route, refusals included, and exposes the API headers', async () => {
    const site = await createTestSite(service);
    const signedIn = await send(service, 'GET', '/auth/me', { origin: ENV_ORIGIN, 'x-svc-site': site.siteId, authorization: `Bearer ${site.adminToken}` });
    expect(signedIn.status).toBe(200);
    expectCredentialed(signedIn, ENV_ORIGIN);
    const exposed = String(signedIn.headers['access-control-expose-headers']).split(', ');
    expect(exposed).toEqual(expect.arrayContaining(['ETag', 'X-Request-Id', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Deprecation', 'Sunset', 'Link']));
    // A 401 is readable by the page: the CORS headers are written before authentication refuses.
    const refused = await send(service, 'GET', '/auth/me', { origin: 'http://localhost:5173', 'x-svc-site': site.siteId });
    expect(refused.status).toBe(401);
    expectCredentialed(refused, 'http://localhost:5173');
    // And on a route without a site.
    expectCredentialed(await send(service, 'GET', '/utils/version', { origin: ENV_ORIGIN }), ENV_ORIGIN);
  });

  it('refuses a bad SVC_CORS_ORIGINS at start and warns about *', () => {
    const base = { NODE_ENV: 'test', SVC_SECRET: 'x'.repeat(40) };
    for (const bad of ['https://app.example.com/', 'https://*.example.com', 'app.example.com', 'ftp://files.example.com', 'https://App.example.com']) {
      expect(() => loadConfig({ ...base, SVC_CORS_ORIGINS: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ ...base, SVC_CORS_ORIGINS: bad }), bad).toThrow(/SVC_CORS_ORIGINS/);
    }
    const listed = loadConfig({ ...base, SVC_CORS_ORIGINS: ' https://a.example.com ,http://localhost:3000,' });
    expect([...listed.SVC_CORS_ORIGINS.origins]).toEqual(['https://a.example.com', 'http://localhost:3000']);
    expect(listed.SVC_CORS_ORIGINS.anyOrigin).toBe(false);
    expect(configWarnings(listed, {})).toEqual([]);
    const any = loadConfig({ ...base, SVC_CORS_ORIGINS: '*' });
    expect(any.SVC_CORS_ORIGINS.anyOrigin).toBe(true);
    expect(configWarnings(any, {})).toEqual([expect.stringMatching(/^SVC_CORS_ORIGINS=\*/)]);
    expect(loadConfig(base).SVC_CORS_ORIGINS).toEqual({ origins: new Set(), anyOrigin: false });
  });

  it('with *, answers any origin with * and never with credentials', async () => {
    const site = await createTestSite(anyOriginService);
    const answer = await send(anyOriginService, 'GET', '/auth/me', { origin: 'https://anyone.example', 'x-svc-site': site.siteId, authorization: `Bearer ${site.adminToken}` });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
    const check = await preflight(anyOriginService, '/settings', 'https://anyone.example');
    expect([check.status, check.headers['access-control-allow-origin'], check.headers['access-control-allow-credentials']]).toEqual([204, '*', undefined]);
  });
});

describe("a site's corsOrigins setting", () => {
  it('gives a listed origin itself with credentials on that site only; another origin gets no CORS header and the same answer', async () => {
    const site = await siteWithOrigins(['https://app.example.com']);
    const other = await createTestSite(service);
    const headers = { 'x-svc-site': site.siteId, authorization: `Bearer ${site.adminToken}` };

    const allowed = await send(service, 'GET', '/auth/me', { ...headers, origin: 'https://app.example.com' });
    expect(allowed.status).toBe(200);
    expectCredentialed(allowed, 'https://app.example.com');

    const stranger = await send(service, 'GET', '/auth/me', { ...headers, origin: 'https://evil.example.com' });
    expect(stranger.status).toBe(200);
    expect(stranger.body).toEqual(allowed.body);
    expectNoCors(stranger);
    expect(stranger.headers.vary).toMatch(/Origin/);

    // Tenancy: the origin this site lists is nobody on another site.
    const elsewhere = await send(service, 'GET', '/auth/me', { origin: 'https://app.example.com', 'x-svc-site': other.siteId, authorization: `Bearer ${other.adminToken}` });
    expect(elsewhere.status).toBe(200);
    expectNoCors(elsewhere);
    // A site that does not exist lists nothing.
    const unknownSite = await send(service, 'GET', '/auth/me', { origin: 'https://app.example.com', 'x-svc-site': 'no-such-site-here' });
    expect(unknownSite.status).toBe(404);
    expectNoCors(unknownSite);
  });

  it('holds on GraphQL as on REST: its own answers never widen the list', async () => {
    const site = await siteWithOrigins(['https://gql.example.com']);
    const headers = { 'x-svc-site': site.siteId, authorization: `Bearer ${site.adminToken}` };
    const query = { query: '{ __typename }' };
    const allowed = await send(service, 'POST', '/graphql', { ...headers, origin: 'https://gql.example.com' }, query);
    expect(allowed.status).toBe(200);
    expectCredentialed(allowed, 'https://gql.example.com');
    const stranger = await send(service, 'POST', '/graphql', { ...headers, origin: 'https://evil.example.com' }, query);
    expect(stranger.status).toBe(200);
    expectNoCors(stranger);
  });

  it('holds a change on the very next request: added, then removed', async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    const ask = () => send(service, 'GET', '/utils/version', { origin: 'https://late.example.com', 'x-svc-site': site.siteId });
    expectNoCors(await ask());
    expectNoCors(await preflight(service, '/settings', 'https://late.example.com'));
    dataOf(await admin('PATCH', '/settings', { corsOrigins: ['https://late.example.com'] }));
    expectCredentialed(await ask(), 'https://late.example.com');
    expectCredentialed(await preflight(service, '/settings', 'https://late.example.com'), 'https://late.example.com');
    dataOf(await admin('PATCH', '/settings', { corsOrigins: null }));
    expectNoCors(await ask());
    expectNoCors(await preflight(service, '/settings', 'https://late.example.com'));
  });

  it('refuses origins that are not exact (a path, a wildcard, *, another scheme, upper case), writing nothing, and is for administrators only', async () => {
    const site = await createTestSite(service);
    const admin = caller(service, site);
    const cases: [unknown, (string | number)[]][] = [
      [['https://ok.example.com', 'https://app.example.com/'], ['body', 'value', 1]],
      [['https://*.example.com'], ['body', 'value', 0]],
      [['*'], ['body', 'value', 0]],
      [['ftp://files.example.com'], ['body', 'value', 0]],
      [['https://App.example.com'], ['body', 'value', 0]],
      [['null'], ['body', 'value', 0]],
      ['https://app.example.com', ['body', 'value']],
      [[42], ['body', 'value', 0]],
    ];
    const eventsBefore = await auditedActions(service, site, 'setting.');
    for (const [value, path] of cases) {
      expectRefused(await admin('PUT', '/settings/corsOrigins', { value }), 400, 'VALIDATION_FAILED', path);
    }
    const star = await admin('PUT', '/settings/corsOrigins', { value: ['*'] });
    expect(star.body.errors[0].message).toMatch(/exact origins/);
    const withPath = await admin('PUT', '/settings/corsOrigins', { value: ['https://app.example.com/'] });
    expect(withPath.body.errors[0].message).toMatch(/"https:\/\/app\.example\.com"/);
    expectRefused(await admin('PATCH', '/settings', { corsOrigins: ['https://a.example.com/x'] }), 400, 'VALIDATION_FAILED', ['body', 'corsOrigins', 0]);
    expect(dataOf(await admin('GET', '/settings/corsOrigins'))).toEqual({ key: 'corsOrigins', value: [], isDefault: true });
    expect(await auditedActions(service, site, 'setting.')).toEqual(eventsBefore);

    const member = await createMember(service, site);
    expectRefused(await caller(service, site, member.token)('PUT', '/settings/corsOrigins', { value: ['https://m.example.com'] }), 403, 'PERMISSION_DENIED');
    expectNoCors(await send(service, 'GET', '/utils/version', { origin: 'https://m.example.com', 'x-svc-site': site.siteId }));
    dataOf(await admin('PUT', '/settings/corsOrigins', { value: ['https://app.example.com', 'http://localhost:8080', 'http://[::1]:3000'] }));
    expect(await auditedActions(service, site, 'setting.')).toEqual(['setting.set', ...eventsBefore]);
  });
});

describe('preflights', () => {
  it('answers an allowed preflight with the methods, the spec headers and a max age, before any authentication', async () => {
    await siteWithOrigins(['https://pre.example.com']);
    const answer = await preflight(service, '/items/articles/6f1c1b7e-0000-4000-8000-000000000000', 'https://pre.example.com');
    expect(answer.status).toBe(204);
    expectCredentialed(answer, 'https://pre.example.com');
    expect(String(answer.headers['access-control-allow-methods']).split(', ')).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']));
    const allowedHeaders = String(answer.headers['access-control-allow-headers']).split(', ');
    expect(allowedHeaders).toEqual(expect.arrayContaining(['X-Svc-Site', 'X-Svc-Draft', 'X-Svc-Locale', 'X-Svc-API-Version', 'X-Svc-Refresh', 'If-Match', 'Authorization', 'Content-Type', 'X-Request-Id']));
    expect(allowedHeaders).toEqual(CORS_ALLOWED_HEADERS);
    expect(String(answer.headers['access-control-expose-headers']).split(', ')).toEqual(CORS_EXPOSED_HEADERS);
    expect(answer.headers['access-control-max-age']).toBe('600');
  });

  it('answers a preflight it does not allow with 204 and no CORS header (never 404 or 405), and an unknown path with 404', async () => {
    await createTestSite(service);
    for (const path of ['/settings', '/collections', '/items/articles', '/auth/login']) {
      const answer = await preflight(service, path, 'https://evil.example.com');
      expect(answer.status, path).toBe(204);
      expectNoCors(answer);
      expect(answer.headers.allow, path).toMatch(/OPTIONS$/);
    }
    const plain = await send(service, 'OPTIONS', '/collections', {});
    expect([plain.status, plain.headers.allow]).toEqual([204, 'GET, HEAD, POST, OPTIONS']);
    const nowhere = await preflight(service, '/no/such/route', 'https://evil.example.com');
    expect([nowhere.status, nowhere.body.errors[0].code]).toEqual([404, 'NOT_FOUND']);
    // A method a path does not take is still 405, and a path no route serves still 404.
    expect((await send(service, 'DELETE', '/collections', {})).status).toBe(405);
    expect((await send(service, 'GET', '/no/such/route', {})).status).toBe(404);
  });

  it("uses the site its Host names: that site's list only", async () => {
    const site = await siteWithOrigins(['https://by-host.example.com']);
    await siteWithOrigins(['https://other-site.example.com']);
    const domain = `api.${site.siteId}.example.com`;
    dataOf(await caller(service, site)('PATCH', '/site', { domain }));
    expectCredentialed(await preflight(service, '/settings', 'https://by-host.example.com', { host: domain }), 'https://by-host.example.com');
    // Another site lists this origin, but the Host names this site, which does not.
    expectNoCors(await preflight(service, '/settings', 'https://other-site.example.com', { host: domain }));
    // Without a site in the Host, any site listing the origin lets the preflight through.
    expectCredentialed(await preflight(service, '/settings', 'https://other-site.example.com'), 'https://other-site.example.com');
  });
});

describe('public delivery', () => {
  it('answers any origin with * and no credentials, on answers, misses and preflights', async () => {
    const site = await siteWithOrigins(['https://app.example.com']);
    for (const origin of ['https://anyone.example.net', 'https://app.example.com', ENV_ORIGIN]) {
      const menu = await send(service, 'GET', '/deliver/menu/main', { origin, 'x-svc-site': site.siteId });
      expect(menu.headers['access-control-allow-origin'], origin).toBe('*');
      expect(menu.headers['access-control-allow-credentials'], origin).toBeUndefined();
      const items = await send(service, 'GET', `/deliver/items/articles`, { origin, 'x-svc-site': site.siteId });
      expect(items.status).toBe(404);
      expect(items.headers['access-control-allow-origin']).toBe('*');
    }
    const check = await send(service, 'OPTIONS', `/deliver/page/${site.siteId}/home`, {
      origin: 'https://anyone.example.net',
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'x-svc-site',
    });
    expect([check.status, check.headers['access-control-allow-origin'], check.headers['access-control-allow-credentials']]).toEqual([204, '*', undefined]);
    expect(check.headers['access-control-allow-methods']).toBe('GET, HEAD');
  });
});
