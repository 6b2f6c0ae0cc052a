// The SDK's REST client (sdk/src/client.ts) against the real service: its generated types match the
// service's OpenAPI document, sign-in and a refresh when the access token has expired, API keys and
// the site header, errors as SvcError, and Retry-After honoured only where repeating is safe (against
// a small HTTP server of the test's own that answers 503 and 429 on purpose).
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, SignJWT } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { deriveKey } from '../../infra/crypto/secrets.ts';
import { GENERATED_TYPES_PATH, renderOpenApiTypes } from '../../sdk/scripts/openapiTypes.ts';
import { createSvcClient, SvcError, type SessionTokens } from '../../sdk/src/index.ts';
import { createCollection } from '../support/contentModel.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../support/testService.ts';

const service = await startTestServiceForFile();
const origin = new URL(service.url).origin;

/** A client of `site` signed in as its administrator. */
async function adminClient(site: TestSite, extra: Parameters<typeof createSvcClient>[0] extends infer O ? Partial<O> : never = {}) {
  const client = createSvcClient({ baseUrl: origin, site: site.siteId, ...extra });
  await client.auth.login(site.adminEmail, site.adminPassword);
  return client;
}

/** The site's administrator token, expired a minute ago but otherwise as the service issued it. */
function expiredCopy(token: string): Promise<string> {
  const claims = decodeJwt(token);
  const past = Math.floor(Date.now() / 1000) - 60;
  return new SignJWT({ ...claims, iat: past - 900, exp: past })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(deriveKey(service.context.config.SVC_SECRET, 'access-token'));
}

describe('the generated types', () => {
  it('are what openapi-typescript makes of the service’s OpenAPI document today (regenerate with npm run generate in sdk/)', async () => {
    const document = await service.request('GET', '/openapi.json');
    expect(document.status).toBe(200);
    const expected = await renderOpenApiTypes(document.body);
    const committed = readFileSync(new URL(`../../${GENERATED_TYPES_PATH}`, import.meta.url), 'utf8');
    // A plain equality first: a diff of 1.8 MB is no message.
    expect(committed === expected, `${GENERATED_TYPES_PATH} drifted from the OpenAPI document`).toBe(true);
  });
});

describe('REST through the client', () => {
  it('signs in, creates and reads an item, and answers the data typed from the document', async () => {
    const site = await createTestSite(service, 'sdk');
    const client = await adminClient(site);
    await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
    const created = await client.api.POST('/api/v1/items/{collection}', { params: { path: { collection: 'articles' } }, body: { title: 'Hello' } });
    expect(created.response.status).toBe(201);
    const item = created.data!.data as { id: string; title: string };
    const read = await client.api.GET('/api/v1/items/{collection}/{id}', { params: { path: { collection: 'articles', id: item.id } } });
    expect(read.data!.data).toMatchObject({ id: item.id, title: 'Hello' });
    const me = await client.api.GET('/api/v1/auth/me');
    expect(me.data!.data.email).toBe(site.adminEmail);
  });

  it('throws the error envelope as a SvcError with its code, path and status, and the id the request was sent with', async () => {
    const site = await createTestSite(service, 'sdk');
    const client = await adminClient(site);
    await createCollection(service, site, 'articles', [{ field: 'title', type: 'string', required: true }]);
    const refused = await client.api.POST('/api/v1/items/{collection}', { params: { path: { collection: 'articles' } }, body: { title: null } }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SvcError);
    const error = refused as SvcError;
    expect({ status: error.status, code: error.code, path: error.path }).toEqual({ status: 400, code: 'VALIDATION_FAILED', path: ['body', 'title'] });
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    const missing = await client.api.GET('/api/v1/items/{collection}/{id}', { params: { path: { collection: 'articles', id: '0190a0a0-0000-7000-8000-000000000000' } } }).catch((caught: unknown) => caught);
    expect(missing).toMatchObject({ status: 404, code: 'RECORD_NOT_FOUND' });
  });

  it('refreshes an expired session once for requests that expire together, and hands the new tokens to onTokenRefresh', async () => {
    const site = await createTestSite(service, 'sdk');
    const first = await adminClient(site);
    await first.api.GET('/api/v1/auth/me');
    const login = await service.request('POST', '/auth/login', { site: site.siteId, body: { email: site.adminEmail, password: site.adminPassword } });
    const refreshed: SessionTokens[] = [];
    const client = createSvcClient({
      baseUrl: origin,
      site: site.siteId,
      session: { token: await expiredCopy(login.body.data.token), refreshToken: login.body.data.refreshToken },
      onTokenRefresh: (tokens) => {
        refreshed.push(tokens);
      },
    });
    const answers = await Promise.all(Array.from({ length: 5 }, () => client.api.GET('/api/v1/auth/me')));
    expect(answers.map((answer) => answer.data!.data.id)).toEqual(Array(5).fill(site.adminUserId));
    // One rotation: a second refresh with the same token would have been refused as a reuse.
    expect(refreshed).toHaveLength(1);
    expect(refreshed[0]!.refreshToken).not.toBe(login.body.data.refreshToken);
    expect(client.auth.token).toBe(refreshed[0]!.token);
    // The rotated token works, the old one no longer does.
    const reused = await service.request('POST', '/auth/refresh', { site: site.siteId, body: { refreshToken: login.body.data.refreshToken } });
    expect(reused.status).toBe(401);
  });

  it('signs out: the refresh token is revoked and later requests go without credentials', async () => {
    const site = await createTestSite(service, 'sdk');
    const tokens: SessionTokens[] = [];
    const client = await adminClient(site, { onTokenRefresh: (next) => void tokens.push(next) });
    await client.auth.logout();
    expect(client.auth.token).toBeNull();
    const after = await client.api.GET('/api/v1/auth/me').catch((error: unknown) => error);
    expect(after).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    const revoked = await service.request('POST', '/auth/refresh', { site: site.siteId, body: { refreshToken: tokens[0]!.refreshToken } });
    expect(revoked.status).toBe(401);
  });

  it('acts with an API key in its own site, and gets nothing of another site with it', async () => {
    const site = await createTestSite(service, 'sdk');
    const other = await createTestSite(service, 'sdk');
    const admin = await adminClient(site);
    await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
    await createCollection(service, other, 'articles', [{ field: 'title', type: 'string' }]);
    const otherItem = await service.request('POST', '/items/articles', { site: other.siteId, token: other.adminToken, body: { title: 'Not yours' } });
    const adminRole = (await admin.api.GET('/api/v1/roles')).data!.data.find((role) => role.admin)!;
    const key = await admin.api.POST('/api/v1/api-keys', { body: { name: 'sdk test', roleId: adminRole.id } });
    const secret = (key.data!.data as { key: string }).key;
    const keyed = createSvcClient({ baseUrl: origin, site: site.siteId, apiKey: secret });
    expect((await keyed.api.GET('/api/v1/items/{collection}', { params: { path: { collection: 'articles' } } })).data!.data).toEqual([]);
    expect(keyed.auth.token).toBeNull();
    keyed.site = other.siteId;
    const crossing = await keyed.api
      .GET('/api/v1/items/{collection}/{id}', { params: { path: { collection: 'articles', id: otherItem.body.data.id } } })
      .catch((error: unknown) => error);
    expect(crossing).toBeInstanceOf(SvcError);
    expect((crossing as SvcError).status).toBe(401);
  });
});

describe('Retry-After', () => {
  interface Seen {
    method: string;
    at: number;
    headers: IncomingMessage['headers'];
  }
  /** A server that answers `statuses` in turn (the last one from then on), with `retryAfter` on 429 and 503. */
  async function flakyServer(statuses: number[], retryAfter: string): Promise<{ server: Server; base: string; seen: Seen[] }> {
    const seen: Seen[] = [];
    const server = createServer((request, response) => {
      seen.push({ method: request.method!, at: Date.now(), headers: request.headers });
      const status = statuses[Math.min(seen.length - 1, statuses.length - 1)]!;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (status === 429 || status === 503) headers['retry-after'] = retryAfter;
      response.writeHead(status, headers);
      response.end(status < 400 ? JSON.stringify({ data: { status: 'ok' } }) : JSON.stringify({ errors: [{ code: status === 429 ? 'RATE_LIMITED' : 'SERVICE_UNAVAILABLE', message: 'later', path: [], extensions: {} }] }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
    return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
  }
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

  it('repeats a read after the wait the answer names, with the same request id', async () => {
    const { base, seen } = await flakyServer([503, 429, 200], '1');
    const client = createSvcClient({ baseUrl: base, site: 's', apiKey: 'svk_test' });
    const answer = await client.api.GET('/api/v1/utils/health');
    expect(answer.response.status).toBe(200);
    expect(seen).toHaveLength(3);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(950);
    expect(new Set(seen.map((request) => request.headers['x-request-id'])).size).toBe(1);
    expect(seen.every((request) => request.headers.authorization === 'Bearer svk_test' && request.headers['x-svc-site'] === 's')).toBe(true);
  });

  it('does not repeat a write without If-Match, repeats one with it, and gives up on a wait past its bound', async () => {
    const post = await flakyServer([503, 200], '0');
    const client = createSvcClient({ baseUrl: post.base, site: 's' });
    const refused = await client.api.POST('/api/v1/items/{collection}', { params: { path: { collection: 'a' } }, body: {} }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(post.seen).toHaveLength(1);

    const patch = await flakyServer([503, 200], '0');
    const conditional = createSvcClient({ baseUrl: patch.base, site: 's' });
    await conditional.api.PATCH('/api/v1/items/{collection}/{id}', { params: { path: { collection: 'a', id: 'b' } }, headers: { 'if-match': '"3"' }, body: {} });
    expect(patch.seen.map((request) => request.headers['if-match'])).toEqual(['"3"', '"3"']);

    const slow = await flakyServer([429, 200], '3600');
    const bounded = createSvcClient({ baseUrl: slow.base, site: 's', retry: { maxDelayMs: 5_000 } });
    expect(await bounded.api.GET('/api/v1/utils/health').catch((error: unknown) => error)).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(slow.seen).toHaveLength(1);
  });
});
