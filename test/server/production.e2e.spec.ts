// What only production runs (NODE_ENV=production): GraphiQL, its assets and the API reference page
// are not served, GraphQL introspection is refused, a trusted issuer's key URLs must be https, and
// the refresh cookie is Secure. Each request is also sent to a service outside production, which
// answers it the other way: the checks below could fail, and they tell the two modes apart.
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile, type TestResponse, type TestService, type TestSite } from '../support/testService.ts';

// Production needs SVC_SECRET, which every test service is given; nothing else is required.
const production = await startTestServiceForFile({ NODE_ENV: 'production' });
const development = await startTestServiceForFile();

const issuer = {
  issuer: 'https://idp.example.test/realms/acme',
  jwksUri: 'https://idp.example.test/realms/acme/certs',
  audience: 'svc-acme',
  algorithms: ['RS256'],
};

function admin(service: TestService, site: TestSite, method: string, path: string, body?: unknown): Promise<TestResponse> {
  return service.request(method, path, { site: site.siteId, token: site.adminToken, body });
}

function expectError(response: TestResponse, status: number, code: string, path: unknown[]): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.errors).toEqual([expect.objectContaining({ code, path })]);
}

/** The refresh cookie an answer sets, split into its attributes (lower-cased names). */
function refreshCookie(response: TestResponse): { value: string; attributes: Map<string, string> } {
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith('svc_refresh='));
  expect(cookie, JSON.stringify(response.headers.getSetCookie())).toBeDefined();
  const [pair, ...rest] = cookie!.split(';').map((part) => part.trim());
  const attributes = new Map(rest.map((part) => [part.split('=')[0]!.toLowerCase(), part.split('=').slice(1).join('=')] as const));
  return { value: pair!.slice('svc_refresh='.length), attributes };
}

describe('GraphiQL, introspection and the API reference', () => {
  it('serves neither the GraphiQL page nor its assets in production', async () => {
    const page = await development.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(String(page.body)).toContain('<title>Svc GraphiQL</title>');
    const asset = /href="(\/api\/v1\/graphql\/assets\/[0-9.]+\/graphiql\.css)"/.exec(String(page.body))?.[1];
    expect(asset, String(page.body)).toBeDefined();
    expect((await fetch(`${development.url}${asset}`)).status).toBe(200);

    const refused = await production.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(refused.status).toBe(200);
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.stringify(refused.body)).not.toContain('GraphiQL');
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION', status: 400 });
    const assetThere = await fetch(`${production.url}${asset}`);
    expect(assetThere.status).toBe(404);
  });

  it('refuses __schema and __type with VALIDATION in production, over POST and GET, and still answers __typename', async () => {
    const [inProduction, inDevelopment] = [await createTestSite(production, 'prod'), await createTestSite(development, 'dev')];
    // Each query, and the introspection fields it names (one error each: `queryType` is a field of __Schema).
    const queries: [string, string[]][] = [
      ['{ __schema { queryType { name } } }', ['__schema', 'queryType']],
      ['{ __type(name: "Query") { name } }', ['__type']],
    ];
    for (const [query, fields] of queries) {
      const answered = await admin(development, inDevelopment, 'POST', '/graphql', { query });
      expect(answered.status).toBe(200);
      expect(answered.body.errors, JSON.stringify(answered.body)).toBeUndefined();
      expect(JSON.stringify(answered.body.data)).toContain('"name":"Query"');

      const viaPost = await admin(production, inProduction, 'POST', '/graphql', { query });
      const viaGet = await admin(production, inProduction, 'GET', `/graphql?query=${encodeURIComponent(query)}`);
      for (const refused of [viaPost, viaGet]) {
        expect(refused.status).toBe(200);
        expect(refused.body.data ?? null, JSON.stringify(refused.body)).toBeNull();
        expect(refused.body.errors).toEqual(
          fields.map((field) =>
            expect.objectContaining({
              message: `GraphQL introspection has been disabled, but the requested query contained the field "${field}".`,
              extensions: { code: 'VALIDATION', status: 400 },
            }),
          ),
        );
      }
    }
    const typename = await admin(production, inProduction, 'POST', '/graphql', { query: '{ __typename }' });
    expect(typename.body).toEqual({ data: { __typename: 'Query' } });
  });

  it('serves the API reference page outside production only, and the OpenAPI document in both', async () => {
    const reference = await fetch(`${development.url}/api/v1/reference`);
    expect(reference.status).toBe(200);
    expect(await reference.text()).toMatch(/swagger/i);
    const refused = await production.request('GET', '/reference');
    expect([refused.status, refused.body.errors[0].code]).toEqual([404, 'NOT_FOUND']);
    const document = await production.request('GET', '/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.openapi).toMatch(/^3\.1/);
  });
});

describe('trusted issuers', () => {
  it('takes only https key URLs in production, on create and on update, and stores nothing refused', async () => {
    const [inProduction, inDevelopment] = [await createTestSite(production, 'prod'), await createTestSite(development, 'dev')];
    const plainJwks = { ...issuer, jwksUri: 'http://idp.example.test/realms/acme/certs' };
    const plainDiscovery = { ...issuer, jwksUri: null, discoveryUrl: 'http://idp.example.test/realms/acme/.well-known/openid-configuration' };

    // Outside production plain http is taken.
    expect((await admin(development, inDevelopment, 'POST', '/admin/auth/issuers', plainJwks)).status).toBe(201);
    expect((await admin(development, inDevelopment, 'POST', '/admin/auth/issuers', { ...plainDiscovery, issuer: 'https://other.example.test' })).status).toBe(201);

    expectError(await admin(production, inProduction, 'POST', '/admin/auth/issuers', plainJwks), 422, 'VALIDATION_FAILED', ['body', 'jwksUri']);
    expectError(await admin(production, inProduction, 'POST', '/admin/auth/issuers', plainDiscovery), 422, 'VALIDATION_FAILED', ['body', 'discoveryUrl']);
    expect((await admin(production, inProduction, 'GET', '/admin/auth/issuers')).body.data).toEqual([]);

    const created = await admin(production, inProduction, 'POST', '/admin/auth/issuers', issuer);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const path = `/admin/auth/issuers/${created.body.data.id}`;
    expectError(await admin(production, inProduction, 'PATCH', path, { jwksUri: 'http://idp.example.test/realms/acme/certs' }), 422, 'VALIDATION_FAILED', ['body', 'jwksUri']);
    expectError(await admin(production, inProduction, 'PATCH', path, { jwksUri: null, discoveryUrl: plainDiscovery.discoveryUrl }), 422, 'VALIDATION_FAILED', ['body', 'discoveryUrl']);
    expect((await admin(production, inProduction, 'GET', path)).body.data).toEqual(created.body.data);
  });
});

describe('the refresh cookie', () => {
  it('is Secure in production (and not outside it), on sign-in and on every rotation', async () => {
    const [inProduction, inDevelopment] = [await createTestSite(production, 'prod'), await createTestSite(development, 'dev')];
    const signIn = (service: TestService, site: TestSite) =>
      service.request('POST', '/auth/login', { site: site.siteId, body: { email: site.adminEmail, password: site.adminPassword } });

    const outside = refreshCookie(await signIn(development, inDevelopment));
    expect(outside.attributes.has('secure')).toBe(false);
    expect(outside.attributes.has('httponly')).toBe(true);

    const signedIn = await signIn(production, inProduction);
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    const first = refreshCookie(signedIn);
    expect(first.attributes.has('secure')).toBe(true);
    expect(first.attributes.has('httponly')).toBe(true);
    expect(first.attributes.get('path')).toBe('/api/v1/auth');
    expect(first.value).toBe(encodeURIComponent(signedIn.body.data.refreshToken));

    // A cookie-sourced refresh (a browser's): the rotated cookie is Secure too.
    const refreshed = await production.request('POST', '/auth/refresh', {
      site: inProduction.siteId,
      headers: { cookie: `svc_refresh=${first.value}`, 'x-svc-refresh': '1' },
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    const rotated = refreshCookie(refreshed);
    expect(rotated.value).not.toBe(first.value);
    expect(rotated.attributes.has('secure')).toBe(true);
    expect(rotated.attributes.has('httponly')).toBe(true);
  });
});
