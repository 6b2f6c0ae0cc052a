// Every area of the API through the SDK's typed REST client, against the real service: a happy path
// each (a write read back where the area writes without an outside service, else its list or status
// read). The paths, parameters and bodies below are checked by the compiler against the generated
// OpenAPI types, so this file also fails to compile when the document and the SDK drift apart.
import { describe, expect, it } from 'vitest';
import { createSvcClient, type SvcClient } from '../../sdk/src/index.ts';
import { INSTANCE_TOKEN, createTestSite, startTestServiceForFile } from '../support/testService.ts';

const service = await startTestServiceForFile();
const origin = new URL(service.url).origin;

async function adminOfNewSite(): Promise<SvcClient> {
  const site = await createTestSite(service, 'sdk');
  const client = createSvcClient({ baseUrl: origin, site: site.siteId });
  await client.auth.login(site.adminEmail, site.adminPassword);
  await client.api.POST('/api/v1/collections', { body: { name: 'articles', fields: [{ field: 'title', type: 'string' }] } });
  return client;
}

describe('every area through the SDK', () => {
  it('content: schema, items, revisions, versions, releases, search, pages', { timeout: 60_000 }, async () => {
    const client = await adminOfNewSite();
    const collections = (await client.api.GET('/api/v1/collections')).data!.data as { name: string }[];
    expect(collections.map((collection) => collection.name)).toContain('articles');
    expect((await client.api.GET('/api/v1/relations')).data!.data).toEqual([]);

    const item = await client.items('articles').create({ title: 'First' });
    await client.items('articles').update(item.data.id, { title: 'Second' }, { ifMatch: item.version });
    const item_ = { collection: 'articles', id: item.data.id };
    expect((await client.api.GET('/api/v1/items/{collection}/{id}/revisions', { params: { path: item_ } })).data!.data).toHaveLength(2);

    await client.api.POST('/api/v1/items/{collection}/{id}/versions', { params: { path: item_ }, body: { key: 'draft', name: 'Draft' } });
    const versions = (await client.api.GET('/api/v1/items/{collection}/{id}/versions', { params: { path: item_ } })).data!.data as { key: string }[];
    expect(versions.map((version) => version.key)).toEqual(['draft']);

    const release = await client.api.POST('/api/v1/releases', { body: { name: 'Launch' } });
    const releaseId = (release.data!.data as { id: string }).id;
    expect((await client.api.GET('/api/v1/releases/{id}', { params: { path: { id: releaseId } } })).data!.data).toMatchObject({ id: releaseId, name: 'Launch' });

    const search = await client.api.GET('/api/v1/search', { params: { query: { q: 'Second' } } });
    expect(search.response.status).toBe(200);

    await client.api.POST('/api/v1/pages', { body: { slug: 'home', title: 'Home' } });
    expect(((await client.api.GET('/api/v1/pages')).data!.data as { slug: string }[]).map((page) => page.slug)).toContain('home');
  });

  it('files: a presigned upload, registered as a file, read back', { timeout: 60_000 }, async () => {
    const client = await adminOfNewSite();
    const presigned = (await client.api.POST('/api/v1/files/presigned-url', { body: { filename: 'hello.txt', type: 'text/plain' } })).data!.data;
    // The signed URL is the upload's credential: it is sent as given, outside the client's pipeline.
    const uploaded = await fetch(new URL(presigned.url, origin), { method: presigned.method, headers: presigned.headers, body: 'hello from the sdk' });
    expect(uploaded.status).toBeLessThan(300);
    const file = await client.api.POST('/api/v1/files', { body: { key: presigned.key, title: 'Hello' } });
    const fileId = (file.data!.data as { id: string }).id;
    expect((await client.api.GET('/api/v1/files/{id}', { params: { path: { id: fileId } } })).data!.data).toMatchObject({ id: fileId, title: 'Hello' });
    expect((await client.api.GET('/api/v1/uploads/config')).response.status).toBe(200);
  });

  it('access: roles, policies, users, teams, presets, permissions, API keys', { timeout: 60_000 }, async () => {
    const client = await adminOfNewSite();
    const role = (await client.api.POST('/api/v1/roles', { body: { name: 'Editor' } })).data!.data;
    const policy = (await client.api.POST('/api/v1/policies', { body: { name: 'Read articles' } })).data!.data as { id: string };
    await client.api.POST('/api/v1/policies/{id}/permissions', { params: { path: { id: policy.id } }, body: { collection: 'articles', action: 'read' } });
    await client.api.POST('/api/v1/policies/{id}/attach', { params: { path: { id: policy.id } }, body: { roleId: role.id } });
    const user = (await client.api.POST('/api/v1/users', { body: { email: `editor-${crypto.randomUUID()}@sdk.test`, password: 'a long enough password', roleId: role.id } })).data!.data as { id: string };
    expect(((await client.api.GET('/api/v1/users')).data!.data as { id: string }[]).map((entry) => entry.id)).toContain(user.id);
    await client.api.POST('/api/v1/teams', { body: { name: 'Newsroom' } });
    expect((await client.api.GET('/api/v1/teams')).data!.data).toHaveLength(1);
    await client.api.POST('/api/v1/presets', { body: { collection: 'articles', layout: 'tabular' } });
    expect((await client.api.GET('/api/v1/presets')).data!.data).toHaveLength(1);
    expect((await client.api.GET('/api/v1/permissions/me')).response.status).toBe(200);
    expect((await client.api.GET('/api/v1/api-keys')).data!.data).toEqual([]);
  });

  it('automation and insight: flows, translation memory, dashboards, reports, email, agents, AI', { timeout: 60_000 }, async () => {
    const client = await adminOfNewSite();
    const flow = (await client.api.POST('/api/v1/flows', {
      body: { name: 'Hello', trigger: 'manual', status: 'active', graph: { nodes: [{ id: 'say', operation: 'log', options: { message: 'hi' } }], edges: [] } },
    })).data!.data as { id: string };
    const run = await client.api.POST('/api/v1/flows/{id}/run', { params: { path: { id: flow.id } }, body: {} });
    expect(run.response.status).toBe(202);
    await client.api.POST('/api/v1/tm', { body: { sourceLang: 'en', targetLang: 'fr', sourceText: 'Hello', targetText: 'Bonjour' } });
    expect((await client.api.GET('/api/v1/tm')).data!.data).toHaveLength(1);
    await client.api.POST('/api/v1/dashboards', { body: { name: 'Traffic' } });
    expect((await client.api.GET('/api/v1/dashboards')).data!.data).toHaveLength(1);
    for (const path of ['/api/v1/reports', '/api/v1/email/capabilities', '/api/v1/agent/roles', '/api/v1/ai/conversations'] as const) {
      expect((await client.api.GET(path)).response.status, path).toBe(200);
    }
  });

  it('operations: settings, site, config, audit, account, privacy, editorial, extensions, integrations, push, pageviews, issuers, health, instance', { timeout: 60_000 }, async () => {
    const client = await adminOfNewSite();
    await client.api.PATCH('/api/v1/settings', { body: { 'studio.theme': 'dark' } });
    expect((await client.api.GET('/api/v1/settings')).data!.data).toMatchObject({ 'studio.theme': 'dark' });
    const verified = await client.api.GET('/api/v1/audit/verify');
    expect(verified.response.status).toBe(200);
    for (const path of [
      '/api/v1/site',
      '/api/v1/config/export',
      '/api/v1/audit',
      '/api/v1/me/sessions',
      '/api/v1/me/consents',
      '/api/v1/editorial/reviews',
      '/api/v1/extensions',
      '/api/v1/integrations/git',
      '/api/v1/cloud-sync/pipelines',
      '/api/v1/push/status',
      '/api/v1/pageviews/stats',
      '/api/v1/admin/auth/issuers',
      '/api/v1/utils/health',
    ] as const) {
      expect((await client.api.GET(path)).response.status, path).toBe(200);
    }
    const instance = createSvcClient({ baseUrl: origin, apiKey: INSTANCE_TOKEN });
    expect(((await instance.api.GET('/api/v1/instance/sites')).data!.data as { id: string }[]).length).toBeGreaterThan(0);
  });
});
