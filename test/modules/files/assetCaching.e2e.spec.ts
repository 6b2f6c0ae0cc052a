// Shared caches and private files (issue #27, finding 6) over real HTTP: an asset and its derivatives
// are `public` only while the site's public role may read media; otherwise `private`, so a CDN never
// hands a file anonymous visitors may not read to anyone who asks. The max-ages are unchanged.
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { grant, withHelpers, type AccessSite } from '../access/support.ts';
import { pngBytes, sendRaw } from './support.ts';

const service = await startTestServiceForFile();

const DERIVATIVE_PUBLIC = 'public, max-age=31536000, immutable';
const DERIVATIVE_PRIVATE = 'private, max-age=31536000, immutable';
const ORIGINAL_PUBLIC = 'public, max-age=300';
const ORIGINAL_PRIVATE = 'private, max-age=300';

async function siteWithImage(): Promise<{ site: AccessSite; id: string }> {
  const site = withHelpers(service, await createTestSite(service, 'cache'));
  const created = await sendRaw(service, 'POST', '/media/photo.png', { site: site.siteId, token: site.adminToken, contentType: 'image/png', body: await pngBytes(400, 300) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { site, id: created.body.data.id };
}

async function grantPublicRead(site: AccessSite): Promise<string> {
  const publicRole = (await site.admin('GET', '/roles')).body.data.find((role: { systemKey: string }) => role.systemKey === 'public');
  return grant(site, { roleId: publicRole.id }, [{ collection: null, action: 'media:read' }]);
}

const cacheControl = async (site: AccessSite, path: string, token: string | null, headers: Record<string, string> = {}) => {
  const answer = await sendRaw(service, 'GET', path, { site: site.siteId, token, headers });
  return [answer.status, answer.headers.get('cache-control')];
};

describe('Cache-Control of assets', () => {
  it('answers private for a derivative and an original the public role may not read', async () => {
    const { site, id } = await siteWithImage();
    const derivative = `/assets/${id}?width=200&format=webp`;
    expect((await sendRaw(service, 'GET', derivative, { site: site.siteId })).status, 'anonymous').toBe(403);
    // First render, then the copy held in memory, then the stored copy's revalidation.
    expect(await cacheControl(site, derivative, site.adminToken)).toEqual([200, DERIVATIVE_PRIVATE]);
    const again = await sendRaw(service, 'GET', derivative, { site: site.siteId, token: site.adminToken });
    expect([again.status, again.headers.get('cache-control')]).toEqual([200, DERIVATIVE_PRIVATE]);
    expect(await cacheControl(site, derivative, site.adminToken, { 'if-none-match': again.headers.get('etag')! })).toEqual([304, DERIVATIVE_PRIVATE]);
    expect(await cacheControl(site, `/assets/${id}`, site.adminToken)).toEqual([200, ORIGINAL_PRIVATE]);
    expect(await cacheControl(site, '/media/photo.png', site.adminToken)).toEqual([200, ORIGINAL_PRIVATE]);
  });

  it('answers public, for every caller, once the public role may read media', async () => {
    const { site, id } = await siteWithImage();
    await grantPublicRead(site);
    const derivative = `/assets/${id}?width=200&format=webp`;
    expect(await cacheControl(site, derivative, null)).toEqual([200, DERIVATIVE_PUBLIC]);
    expect(await cacheControl(site, derivative, site.adminToken)).toEqual([200, DERIVATIVE_PUBLIC]);
    expect(await cacheControl(site, `/assets/${id}`, null)).toEqual([200, ORIGINAL_PUBLIC]);
    expect(await cacheControl(site, `/assets/${id}`, site.adminToken)).toEqual([200, ORIGINAL_PUBLIC]);
    expect(await cacheControl(site, '/media/photo.png', null)).toEqual([200, ORIGINAL_PUBLIC]);
  });

  it('goes back to private when the public role loses media:read', async () => {
    const { site, id } = await siteWithImage();
    const policyId = await grantPublicRead(site);
    const derivative = `/assets/${id}?width=120`;
    expect(await cacheControl(site, derivative, null)).toEqual([200, DERIVATIVE_PUBLIC]);
    expect((await site.admin('DELETE', `/policies/${policyId}`)).status).toBe(204);
    expect((await sendRaw(service, 'GET', derivative, { site: site.siteId })).status).toBe(403);
    expect(await cacheControl(site, derivative, site.adminToken)).toEqual([200, DERIVATIVE_PRIVATE]);
    expect(await cacheControl(site, `/assets/${id}`, site.adminToken)).toEqual([200, ORIGINAL_PRIVATE]);
  });
});
