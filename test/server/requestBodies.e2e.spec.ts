// Request bodies as browsers and HTTP clients send them: an empty body with the JSON content type is
// no body (taken where the body is optional, the validation error where it is needed); a body of
// another content type than JSON (text/plain is what fetch sends for a string) is 415
// UNSUPPORTED_MEDIA_TYPE naming application/json, except on the routes that take it (the pageview
// beacon); a missing value is "Required" wherever zod reports it, a wrong one keeps its message.
import { describe, expect, it } from 'vitest';
import { sql } from '../../infra/postgres/sql.ts';
import { createCollection } from '../support/contentModel.ts';
import { openOwnerDatabaseForFile } from '../support/databases.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../support/testService.ts';

const service = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();

const as = (site: TestSite) => ({ site: site.siteId, token: site.adminToken });

async function eventCount(siteId: string): Promise<number> {
  const [row] = await owner.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM events WHERE site_id = ${siteId}`);
  return row!.n;
}

function expectError(response: { status: number; body: any }, status: number, code: string, path: (string | number)[], message?: string | RegExp): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.errors[0], JSON.stringify(response.body)).toMatchObject({ code, path });
  if (message !== undefined) expect(response.body.errors[0].message).toMatch(message);
}

describe('an empty body with Content-Type: application/json', () => {
  it('is no body: POST /releases/:id/publish publishes', async () => {
    const site = await createTestSite(service);
    await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
    const item = await service.request('POST', '/items/articles', { ...as(site), body: { title: 'One', status: 'draft' } });
    const release = await service.request('POST', '/releases', {
      ...as(site),
      body: { name: 'Launch', addItems: [{ collection: 'articles', itemId: item.body.data.id, targetStatus: 'published' }] },
    });
    expect(release.status, JSON.stringify(release.body)).toBe(201);
    const published = await service.request('POST', `/releases/${release.body.data.id}/publish`, { ...as(site), rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect(published.body.data.status).toBe('published');
    // Whitespace alone is no body either.
    const again = await service.request('POST', `/releases/${release.body.data.id}/publish`, { ...as(site), rawBody: ' \n', headers: { 'content-type': 'application/json' } });
    expectError(again, 409, 'ALREADY_PUBLISHED', []);
  });

  it('still answers a validation error where the body is needed, writing nothing', async () => {
    const site = await createTestSite(service);
    const before = await eventCount(site.siteId);
    const empty = await service.request('POST', '/teams', { ...as(site), rawBody: '', headers: { 'content-type': 'application/json' } });
    expectError(empty, 400, 'VALIDATION_FAILED', ['body'], /^body: Required$/);
    const none = await service.request('POST', '/teams', as(site));
    expectError(none, 400, 'VALIDATION_FAILED', ['body'], /^body: Required$/);
    // Malformed JSON is still malformed.
    expectError(await service.request('POST', '/teams', { ...as(site), rawBody: '{"name":' }), 400, 'VALIDATION_FAILED', ['body'], /not valid JSON/);
    expect(await eventCount(site.siteId)).toBe(before);
  });
});

describe('a body that is not JSON', () => {
  it('is 415 UNSUPPORTED_MEDIA_TYPE naming application/json, whatever the type, writing nothing', async () => {
    const site = await createTestSite(service);
    const before = await eventCount(site.siteId);
    const json = JSON.stringify({ name: 'Sent as text' });
    for (const type of ['text/plain;charset=UTF-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const response = await service.request('POST', '/teams', { ...as(site), rawBody: json, headers: { 'content-type': type } });
      expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE', ['body'], /takes application\/json/);
      expect(response.body.errors[0].extensions).toEqual({ expected: ['application/json'], received: type.split(';')[0] });
    }
    // A PATCH too, and before anything about the site's data is told.
    const patch = await service.request('PATCH', '/settings', { ...as(site), rawBody: '{"a":1}', headers: { 'content-type': 'text/plain' } });
    expectError(patch, 415, 'UNSUPPORTED_MEDIA_TYPE', ['body']);
    expect(await eventCount(site.siteId)).toBe(before);
    expect((await service.request('GET', '/teams', as(site))).body.data).toEqual([]);
  });

  it('keeps the routes that take text working: the pageview beacon counts a text/plain body', async () => {
    const site = await createTestSite(service);
    const hit = await fetch(`${service.url}/api/v1/pageviews/${site.siteId}/hit`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36' },
      body: JSON.stringify({ path: '/from-text' }),
    });
    expect(hit.status).toBe(204);
    await service.request('POST', '/pageviews/flush', { token: 'test-instance-token-0123456789' });
    const stats = await service.request('GET', '/pageviews/stats?path=/from-text', as(site));
    expect(stats.status, JSON.stringify(stats.body)).toBe(200);
    expect(JSON.stringify(stats.body.data)).toMatch(/"views":1/);
  });
});

describe('a missing value', () => {
  it('is "Required" at its path, an enum included; a present but wrong value keeps its message', async () => {
    const site = await createTestSite(service);
    await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
    const before = await eventCount(site.siteId);
    const noKind = await service.request('POST', '/relations', { ...as(site), body: { collection: 'articles', field: 'author', related: 'articles' } });
    expectError(noKind, 400, 'VALIDATION_FAILED', ['body', 'kind'], /^body\.kind: Required$/);
    const wrongKind = await service.request('POST', '/relations', { ...as(site), body: { kind: 'sideways', collection: 'articles', field: 'author' } });
    expectError(wrongKind, 400, 'VALIDATION_FAILED', ['body', 'kind'], /Invalid option: expected one of/);
    const noName = await service.request('POST', '/teams', { ...as(site), body: {} });
    expectError(noName, 400, 'VALIDATION_FAILED', ['body', 'name'], /^body\.name: Required$/);
    const wrongName = await service.request('POST', '/teams', { ...as(site), body: { name: 42 } });
    expectError(wrongName, 400, 'VALIDATION_FAILED', ['body', 'name'], /expected string, received number/);
    // The area's own message where it words the missing value itself.
    const noValue = await service.request('PUT', '/settings/x', { ...as(site), body: {} });
    expect(noValue.status).toBe(400);
    expect(await eventCount(site.siteId)).toBe(before);
  });
});
