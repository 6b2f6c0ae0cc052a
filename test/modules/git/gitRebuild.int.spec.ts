// The git integrations read model gives the same rows when rebuilt from the log: integrations created,
// renamed, re-tokened, secret-rotated and disconnected; accepted deliveries; gitops intent keys.
import { afterAll, describe, expect, it } from 'vitest';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { gitIntegrationsProjection } from '../../../projections/gitIntegrationsProjection.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { githubDelivery, githubPullRequestPayload, startGitHostServer } from '../../support/gitHostServers.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';

const host = await startGitHostServer();
afterAll(() => host.close());
const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url, SVC_GIT_GITHUB_API_URL: host.github.baseUrl });

describe('git integrations read model', () => {
  it('rebuilds to the same rows', async () => {
    const site = await createTestSite(service, 'git-rebuild');
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await service.request(method, path, { site: site.siteId, token: site.adminToken, body });
      expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
      return response.body?.data;
    };
    host.github.addRepo('acme/kept', { token: 'ghp_kept_token_0123456789' });
    host.github.setBranch('acme/kept', 'main', '5'.repeat(40));
    host.github.setFile('acme/kept', '5'.repeat(40), 'svc.intents.json', JSON.stringify({ intents: [{ key: 'a', title: 'A' }, { key: 'b', title: 'B' }] }));
    const kept = await call('POST', '/integrations/git', { provider: 'github', repoFullName: 'acme/kept', token: 'ghp_kept_token_0123456789' });
    await call('PATCH', `/integrations/git/${kept.id}`, { displayName: 'Kept', sync_config: { preview: false, branch: 'main' }, token: 'ghp_kept_token_0123456789' });
    const rotated = await call('POST', `/integrations/git/${kept.id}/rotate-secret`);
    const delivery = githubDelivery(rotated.webhookSecret, 'pull_request', githubPullRequestPayload({ repo: 'acme/kept', number: 1, action: 'opened', headSha: '6'.repeat(40) }));
    const received = await service.request('POST', `/integrations/git/webhook/github/${site.siteId}/${kept.id}`, { headers: delivery.headers, rawBody: delivery.body });
    expect(received.status).toBe(200);
    await call('POST', `/integrations/git/${kept.id}/gitops/sync`, {});
    const gone = await call('POST', '/integrations/git', { provider: 'gitlab', repoFullName: 'acme/gone', token: 'glpat-gone' });
    await call('DELETE', `/integrations/git/${gone.id}`);
    await call('POST', '/integrations/git', { provider: 'gitlab', repoFullName: 'acme/third', authMethod: 'app' });
    const rows = (query: SqlFragment) => database.owner.query(query).then((found) => found.map((row) => JSON.stringify(row)));
    await expectRebuildToGiveSameRows({
      service,
      owner: database.owner,
      projections: [gitIntegrationsProjection],
      tablesWithRows: ['git_integrations', 'git_webhook_deliveries', 'git_gitops_intents'],
      snapshot: async () => ({
        git_integrations: await rows(sql`SELECT * FROM git_integrations WHERE site_id = ${site.siteId} ORDER BY id`),
        git_webhook_deliveries: await rows(sql`SELECT * FROM git_webhook_deliveries WHERE site_id = ${site.siteId} ORDER BY delivery_id`),
        git_gitops_intents: await rows(sql`SELECT * FROM git_gitops_intents WHERE site_id = ${site.siteId} ORDER BY key`),
      }),
    });
  });
});
