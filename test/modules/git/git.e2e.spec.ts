// Git integrations end to end: real HTTP and PostgreSQL, the real @octokit/rest and @gitbeaker/rest
// clients talking to a local server that speaks GitHub's and GitLab's REST APIs, and webhook
// deliveries signed as the providers sign them. Tokens and webhook secrets are sealed, write-only and
// never answered or logged.
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { createCollection } from '../../support/contentModel.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import {
  githubDelivery,
  githubPullRequestPayload,
  githubWorkflowRunPayload,
  gitlabDelivery,
  gitlabMergeRequestPayload,
  gitlabPipelinePayload,
  startGitHostServer,
} from '../../support/gitHostServers.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { until } from '../cdc/support.ts';

const host = await startGitHostServer();
afterAll(() => host.close());
const OAUTH = { clientId: 'svc-client', clientSecret: 'svc-client-secret-0123456789' };
const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({
  DATABASE_URL: database.url,
  SVC_GIT_GITHUB_API_URL: host.github.baseUrl,
  SVC_GIT_GITHUB_URL: host.origin,
  SVC_GIT_GITHUB_CLIENT_ID: OAUTH.clientId,
  SVC_GIT_GITHUB_CLIENT_SECRET: OAUTH.clientSecret,
  SVC_GIT_GITLAB_URL: host.gitlab.host,
  SVC_GIT_TIMEOUT_MS: '5000',
});
const owner = database.owner;

/** Every answer of this file. */
const answers: string[] = [];
/** Every token and webhook secret this file handed the service. */
const secrets: string[] = [];

async function call(site: TestSite, method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  const response = await service.request(method, path, { site: site.siteId, token: site.adminToken, body, ...(headers ? { headers } : {}) });
  answers.push(JSON.stringify(response.body));
  return response;
}

let repoCounter = 0;
function githubRepo(): { fullName: string; token: string } {
  const fullName = `acme/site-${process.pid}-${++repoCounter}`;
  const token = `ghp_${fullName.replace(/\W/g, '')}_${'x'.repeat(20)}`;
  host.github.addRepo(fullName, { token });
  secrets.push(token);
  return { fullName, token };
}
function gitlabProject(): { fullName: string; token: string } {
  const fullName = `acme/web/site-${process.pid}-${++repoCounter}`;
  const token = `glpat-${fullName.replace(/\W/g, '')}`;
  host.gitlab.addProject(fullName, { token });
  secrets.push(token);
  return { fullName, token };
}

async function connect(site: TestSite, body: Record<string, unknown>) {
  const created = await call(site, 'POST', '/integrations/git', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  secrets.push(created.body.data.webhookSecret);
  return created.body.data as { id: string; webhookSecret: string; webhookUrl: string };
}

/** Sends a delivery to the receiver's path (public: no site header, no token). */
async function deliver(path: string, delivery: { headers: Record<string, string>; body: string }) {
  const response = await service.request('POST', path, { headers: delivery.headers, rawBody: delivery.body });
  answers.push(JSON.stringify(response.body));
  return response;
}
const receiverPath = (provider: string, siteId: string, id: string) => `/integrations/git/webhook/${provider}/${siteId}/${id}`;

const manifest = (collections: string[]) =>
  JSON.stringify({
    version: 'svc.config@v1',
    collections: collections.map((name) => ({ name })),
    fields: collections.map((collection) => ({ collection, field: 'title', type: 'string' })),
  });

describe('git integrations', () => {
  it('connects, lists, reads, updates and disconnects; tokens are never answered', async () => {
    const site = await createTestSite(service, 'git');
    const repo = githubRepo();
    const created = await connect(site, { provider: 'github', repoFullName: repo.fullName, token: repo.token, displayName: 'Site repo', sync_config: { preview: true } });
    expect(created).toMatchObject({
      provider: 'github',
      repoFullName: repo.fullName,
      displayName: 'Site repo',
      authMethod: 'pat',
      hasToken: true,
      status: 'active',
      sync_config: { preview: true, manifestPath: 'svc.config.json', intentsPath: 'svc.intents.json', branch: null },
    });
    expect(created.webhookSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(created.webhookUrl).toContain(`/api/v1/integrations/git/webhook/github/${site.siteId}/${created.id}`);
    const read = await call(site, 'GET', `/integrations/git/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).not.toHaveProperty('webhookSecret');
    expect(read.body.data).not.toHaveProperty('token');
    const list = await call(site, 'GET', '/integrations/git');
    expect(list.body.meta.total).toBe(1);

    const changed = await call(site, 'PATCH', `/integrations/git/${created.id}`, { displayName: 'Renamed', status: 'paused', sync_config: { manifestPath: 'cms/manifest.json' } });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ displayName: 'Renamed', status: 'paused', sync_config: { preview: true, manifestPath: 'cms/manifest.json' } });
    const newToken = `ghp_rotated_${'y'.repeat(30)}`;
    secrets.push(newToken);
    host.github.grantToken(repo.fullName, newToken);
    expect((await call(site, 'PATCH', `/integrations/git/${created.id}`, { token: newToken })).status).toBe(200);
    // The old token's sealed value is destroyed: one sealed token and one secret remain.
    const [sealed] = await owner.query<{ count: number }>(sql`SELECT count(*)::int AS count FROM sensitive_values WHERE site_id = ${site.siteId} AND collection = '$git'`);
    expect(sealed!.count).toBe(2);

    expect((await call(site, 'DELETE', `/integrations/git/${created.id}`)).status).toBe(204);
    expect((await call(site, 'GET', `/integrations/git/${created.id}`)).status).toBe(404);
    const [left] = await owner.query<{ count: number }>(sql`SELECT count(*)::int AS count FROM sensitive_values WHERE site_id = ${site.siteId} AND collection = '$git'`);
    expect(left!.count).toBe(0);
  });

  it('refuses bad bodies with VALIDATION_ERROR and a path, a duplicate repository with 409, and writes nothing', async () => {
    const site = await createTestSite(service, 'git');
    const repo = githubRepo();
    for (const [body, path] of [
      [{ provider: 'bitbucket', repoFullName: repo.fullName, token: 't' }, ['body', 'provider']],
      [{ provider: 'github', repoFullName: 'no-slash', token: 't' }, ['body', 'repoFullName']],
      [{ provider: 'github', repoFullName: 'acme/../x', token: 't' }, ['body', 'repoFullName']],
      [{ provider: 'github', repoFullName: repo.fullName }, ['body', 'token']],
      [{ provider: 'github', repoFullName: repo.fullName, token: 'has space' }, ['body', 'token']],
      [{ provider: 'github', repoFullName: repo.fullName, token: 't', sync_config: { manifestPath: '../etc/passwd' } }, ['body', 'sync_config', 'manifestPath']],
      [{ provider: 'github', repoFullName: repo.fullName, token: 't', sync_config: { unknown: true } }, ['body', 'sync_config']],
      [{ provider: 'github', repoFullName: repo.fullName, token: 't', extra: 1 }, ['body']],
    ] as const) {
      const refused = await call(site, 'POST', '/integrations/git', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.errors[0].code).toBe('VALIDATION_ERROR');
      expect(refused.body.errors[0].path).toEqual(path);
    }
    const [none] = await owner.query<{ count: number }>(sql`SELECT count(*)::int AS count FROM events WHERE site_id = ${site.siteId} AND type LIKE 'git_%'`);
    expect(none!.count).toBe(0);

    await connect(site, { provider: 'github', repoFullName: repo.fullName, token: repo.token });
    const duplicate = await call(site, 'POST', '/integrations/git', { provider: 'github', repoFullName: repo.fullName.toUpperCase(), token: repo.token });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors[0].code).toBe('CONFLICT');
    // The same path on the other provider is another repository.
    host.gitlab.addProject(repo.fullName, { token: repo.token });
    await connect(site, { provider: 'gitlab', repoFullName: repo.fullName, token: repo.token });
    const patch = await call(site, 'PATCH', `/integrations/git/${(await call(site, 'GET', '/integrations/git')).body.data[0].id}`, { status: 'gone' });
    expect(patch.status).toBe(400);
    expect(patch.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', path: ['body', 'status'] });
  });

  it('needs a site administrator, and never shows or changes another site’s integrations', async () => {
    const site = await createTestSite(service, 'git');
    const other = await createTestSite(service, 'git');
    const repo = githubRepo();
    const { id } = await connect(site, { provider: 'github', repoFullName: repo.fullName, token: repo.token });
    expect((await service.request('GET', '/integrations/git', { site: site.siteId })).status).toBe(401);
    await call(site, 'POST', '/users', { email: `m@${site.siteId}.test`, password: 'correct horse battery staple' });
    const login = await service.request('POST', '/auth/login', { site: site.siteId, body: { email: `m@${site.siteId}.test`, password: 'correct horse battery staple' } });
    expect((await service.request('GET', '/integrations/git', { site: site.siteId, token: login.body.data.token })).status).toBe(403);
    expect((await service.request('POST', '/integrations/git', { site: site.siteId, token: login.body.data.token, body: { provider: 'github', repoFullName: 'a/b', token: 't' } })).status).toBe(403);
    for (const [method, path, body] of [
      ['GET', `/integrations/git/${id}`, undefined],
      ['PATCH', `/integrations/git/${id}`, { displayName: 'Taken' }],
      ['POST', `/integrations/git/${id}/rotate-secret`, undefined],
      ['GET', `/integrations/git/${id}/oauth/authorize`, undefined],
      ['GET', `/integrations/git/${id}/pull-requests`, undefined],
      ['POST', `/integrations/git/${id}/pull-requests/refresh`, undefined],
      ['GET', `/integrations/git/${id}/pull-requests/1/ci`, undefined],
      ['POST', `/integrations/git/${id}/pull-requests/1/validate`, undefined],
      ['GET', `/integrations/git/${id}/ci-runs/1/logs`, undefined],
      ['POST', `/integrations/git/${id}/gitops/sync`, {}],
      ['GET', `/integrations/git/${id}/provenance?collection=a&itemId=b`, undefined],
      ['DELETE', `/integrations/git/${id}`, undefined],
    ] as const) {
      expect((await call(other, method, path, body)).status, `${method} ${path}`).toBe(404);
    }
    expect((await call(other, 'GET', '/integrations/git')).body.meta.total).toBe(0);
    expect((await call(site, 'GET', `/integrations/git/${id}`)).body.data.displayName).toBe(repo.fullName);
    expect((await call(site, 'GET', '/integrations/git/not-a-uuid')).status).toBe(404);
    expect(host.github.requests.length).toBe(0);
  });

  it('verifies GitHub deliveries, handles a delivery id once, and makes and tears down a preview site', async () => {
    const site = await createTestSite(service, 'gh');
    const repo = githubRepo();
    const { id, webhookSecret } = await connect(site, { provider: 'github', repoFullName: repo.fullName, token: repo.token, sync_config: { preview: true } });
    const head = 'a'.repeat(40);
    host.github.setFile(repo.fullName, head, 'svc.config.json', manifest(['posts', 'authors']));
    const path = receiverPath('github', site.siteId, id);
    const opened = githubPullRequestPayload({ repo: repo.fullName, number: 7, action: 'opened', headSha: head });

    // Unsigned, wrongly signed, or signed with another secret: 401, nothing recorded.
    const unsigned = githubDelivery(webhookSecret, 'pull_request', opened);
    delete unsigned.headers['x-hub-signature-256'];
    expect((await deliver(path, unsigned)).status).toBe(401);
    expect((await deliver(path, githubDelivery('not-the-secret', 'pull_request', opened))).status).toBe(401);
    const tampered = githubDelivery(webhookSecret, 'pull_request', opened);
    expect((await deliver(path, { ...tampered, body: tampered.body.replace('"opened"', '"closed"') })).status).toBe(401);
    expect((await deliver(receiverPath('gitlab', site.siteId, id), githubDelivery(webhookSecret, 'pull_request', opened))).status).toBe(401);

    const delivery = githubDelivery(webhookSecret, 'pull_request', opened, 'delivery-1');
    const first = await deliver(path, delivery);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toEqual({ deliveryId: 'delivery-1', duplicate: false, outcome: 'preview_synced' });
    const previewId = `${site.siteId}__pr-7`;
    const previewCollections = await owner.query<{ name: string }>(sql`SELECT name FROM collections WHERE site_id = ${previewId} AND deleted_at IS NULL ORDER BY name`);
    expect(previewCollections.map((row) => row.name)).toEqual(['authors', 'posts']);
    // Served like any site: the delivery route answers for it (no page yet: the same 404 as a miss).
    expect((await service.request('GET', `/deliver/page/${previewId}/home`)).status).toBe(404);
    const pulls = await call(site, 'GET', `/integrations/git/${id}/pull-requests`);
    expect(pulls.body.data).toEqual([expect.objectContaining({ number: 7, state: 'open', headSha: head, previewSiteId: previewId })]);

    // A replay: 200, the first outcome, no second effect.
    const replay = await deliver(path, delivery);
    expect(replay.body.data).toEqual({ deliveryId: 'delivery-1', duplicate: true, outcome: 'preview_synced' });
    const [received] = await owner.query<{ count: number }>(sql`SELECT count(*)::int AS count FROM events WHERE site_id = ${site.siteId} AND type = 'git_webhook.received'`);
    expect(received!.count).toBe(1);

    // A push to the pull request brings the preview to its new manifest.
    const next = 'b'.repeat(40);
    host.github.setFile(repo.fullName, next, 'svc.config.json', manifest(['posts']));
    const synced = await deliver(path, githubDelivery(webhookSecret, 'pull_request', githubPullRequestPayload({ repo: repo.fullName, number: 7, action: 'synchronize', headSha: next })));
    expect(synced.body.data.outcome).toBe('preview_synced');
    expect((await owner.query(sql`SELECT name FROM collections WHERE site_id = ${previewId} AND deleted_at IS NULL`)).map((row) => row.name)).toEqual(['posts']);

    // A pull request whose manifest is missing gets no preview, and says so.
    const missing = await deliver(path, githubDelivery(webhookSecret, 'pull_request', githubPullRequestPayload({ repo: repo.fullName, number: 8, action: 'opened', headSha: 'c'.repeat(40) })));
    expect(missing.body.data.outcome).toBe('preview_failed');

    // Merged: the preview site and its collections go.
    const merged = await deliver(path, githubDelivery(webhookSecret, 'pull_request', githubPullRequestPayload({ repo: repo.fullName, number: 7, action: 'closed', headSha: next, merged: true })));
    expect(merged.body.data.outcome).toBe('preview_closed');
    const [gone] = await owner.query<{ deleted: boolean }>(sql`SELECT deleted_at IS NOT NULL AS deleted FROM sites WHERE id = ${previewId}`);
    expect(gone!.deleted).toBe(true);
    expect(await owner.query(sql`SELECT 1 FROM collections WHERE site_id = ${previewId} AND deleted_at IS NULL`)).toEqual([]);
    expect((await service.request('GET', `/deliver/page/${previewId}/home`)).status).toBe(404);
  });

  it('refuses a delivery signed for another site’s integration, a bad payload, and verifies again after the secret rotates', async () => {
    const site = await createTestSite(service, 'gh');
    const other = await createTestSite(service, 'gh');
    const repo = githubRepo();
    const mine = await connect(site, { provider: 'github', repoFullName: repo.fullName, token: repo.token });
    const theirs = await connect(other, { provider: 'github', repoFullName: repo.fullName, token: repo.token });
    const payload = githubPullRequestPayload({ repo: repo.fullName, number: 3, action: 'opened', headSha: 'd'.repeat(40) });
    // Signed with site A's secret, sent to site B's integration, or to site A's id under site B.
    expect((await deliver(receiverPath('github', other.siteId, theirs.id), githubDelivery(mine.webhookSecret, 'pull_request', payload))).status).toBe(401);
    expect((await deliver(receiverPath('github', other.siteId, mine.id), githubDelivery(mine.webhookSecret, 'pull_request', payload))).status).toBe(401);
    expect((await deliver(receiverPath('github', 'no-such-site', mine.id), githubDelivery(mine.webhookSecret, 'pull_request', payload))).status).toBe(401);
    expect((await deliver(receiverPath('github', site.siteId, 'not-a-uuid'), githubDelivery(mine.webhookSecret, 'pull_request', payload))).status).toBe(401);

    const path = receiverPath('github', site.siteId, mine.id);
    const noId = githubDelivery(mine.webhookSecret, 'pull_request', payload);
    delete noId.headers['x-github-delivery'];
    const refused = await deliver(path, noId);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', path: ['headers', 'x-github-delivery'] });
    const bad = await deliver(path, githubDelivery(mine.webhookSecret, 'pull_request', { action: 'opened', pull_request: { number: 'x' } }));
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path.slice(0, 3)).toEqual(['body', 'pull_request', 'number']);
    const ignored = await deliver(path, githubDelivery(mine.webhookSecret, 'push', { ref: 'refs/heads/main' }));
    expect(ignored.body.data.outcome).toBe('ignored');

    const rotated = await call(site, 'POST', `/integrations/git/${mine.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    secrets.push(rotated.body.data.webhookSecret);
    expect(rotated.body.data.webhookSecret).not.toBe(mine.webhookSecret);
    expect((await deliver(path, githubDelivery(mine.webhookSecret, 'pull_request', payload))).status).toBe(401);
    expect((await deliver(path, githubDelivery(rotated.body.data.webhookSecret, 'pull_request', payload))).status).toBe(200);
  });

  it('verifies GitLab deliveries by X-Gitlab-Token, previews merge requests, and records a failed pipeline as an incident and git_ci_failed', async () => {
    const site = await createTestSite(service, 'gl');
    const project = gitlabProject();
    const { id, webhookSecret } = await connect(site, { provider: 'gitlab', repoFullName: project.fullName, token: project.token, sync_config: { preview: true } });
    const head = 'e'.repeat(40);
    host.gitlab.setFile(project.fullName, head, 'svc.config.json', manifest(['pages']));
    const path = receiverPath('gitlab', site.siteId, id);
    const opened = gitlabMergeRequestPayload({ project: project.fullName, iid: 4, action: 'open', lastCommitSha: head });
    expect((await deliver(path, gitlabDelivery('wrong-token', 'Merge Request Hook', opened))).status).toBe(401);
    const noToken = gitlabDelivery(webhookSecret, 'Merge Request Hook', opened);
    delete noToken.headers['x-gitlab-token'];
    expect((await deliver(path, noToken)).status).toBe(401);
    const answer = await deliver(path, gitlabDelivery(webhookSecret, 'Merge Request Hook', opened));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data.outcome).toBe('preview_synced');
    expect((await owner.query(sql`SELECT name FROM collections WHERE site_id = ${`${site.siteId}__pr-4`} AND deleted_at IS NULL`)).map((row) => row.name)).toEqual(['pages']);

    const failed = gitlabDelivery(webhookSecret, 'Pipeline Hook', gitlabPipelinePayload({ project: project.fullName, pipelineId: 99, sha: head, mergeRequestIid: 4 }), 'pipeline-99');
    const recorded = await deliver(path, failed);
    expect(recorded.body.data).toEqual({ deliveryId: 'pipeline-99', duplicate: false, outcome: 'ci_failure' });
    expect((await deliver(path, failed)).body.data.duplicate).toBe(true);
    const incidents = await call(site, 'GET', '/agent/incidents');
    expect(incidents.body.data).toEqual([expect.objectContaining({ role: 'git-sync', severity: 'warning', status: 'open' })]);
    const audit = await until(
      async () => (await call(site, 'GET', '/audit?filter[action][_eq]=git_ci_failed')).body.data as { details: Record<string, unknown> }[],
      (entries) => entries.length > 0,
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]!.details).toMatchObject({ integrationId: id, runId: '99', pullRequest: 4, conclusion: 'failure' });

    const closed = await deliver(path, gitlabDelivery(webhookSecret, 'Merge Request Hook', gitlabMergeRequestPayload({ project: project.fullName, iid: 4, action: 'merge', lastCommitSha: head })));
    expect(closed.body.data.outcome).toBe('preview_closed');
  });

  it('a paused integration records deliveries without acting on them', async () => {
    const site = await createTestSite(service, 'gh');
    const repo = githubRepo();
    const { id, webhookSecret } = await connect(site, { provider: 'github', repoFullName: repo.fullName, token: repo.token, sync_config: { preview: true } });
    await call(site, 'PATCH', `/integrations/git/${id}`, { status: 'paused' });
    const run = githubWorkflowRunPayload({ repo: repo.fullName, runId: 5, headSha: 'f'.repeat(40) });
    const answer = await deliver(receiverPath('github', site.siteId, id), githubDelivery(webhookSecret, 'workflow_run', run));
    expect(answer.body.data.outcome).toBe('ignored_paused');
    expect((await call(site, 'GET', '/agent/incidents')).body.data).toEqual([]);
  });

  it('refreshes pull requests, lists CI runs, fetches and caches a finished run’s log, and validates a manifest with a commit status', async () => {
    const site = await createTestSite(service, 'gh');
    await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
    const repo = githubRepo();
    const { id } = await connect(site, { provider: 'github', repoFullName: repo.fullName, token: repo.token });
    const good = '1'.repeat(40);
    const broken = '2'.repeat(40);
    host.github.addPull(repo.fullName, { number: 1, headSha: good, title: 'Add tags' });
    host.github.addPull(repo.fullName, { number: 2, headSha: broken, title: 'Break things', state: 'closed' });
    host.github.setFile(repo.fullName, good, 'svc.config.json', manifest(['articles', 'tags']));
    host.github.setFile(repo.fullName, broken, 'svc.config.json', JSON.stringify({ version: 'svc.config@v1', fields: [{ collection: 'nowhere', field: 'x', type: 'string' }] }));
    host.github.addRun(repo.fullName, { id: 31, headSha: good, name: 'ci', status: 'completed', conclusion: 'success' }, [
      { id: 311, name: 'build', status: 'completed', conclusion: 'success', log: 'compiling…\nok' },
      { id: 312, name: 'test', status: 'completed', conclusion: 'success', log: 'all tests passed' },
    ]);

    expect((await call(site, 'GET', `/integrations/git/${id}/pull-requests`)).body.data).toEqual([]);
    const refreshed = await call(site, 'POST', `/integrations/git/${id}/pull-requests/refresh`);
    expect(refreshed.body.data).toEqual({ fetched: 2 });
    const pulls = await call(site, 'GET', `/integrations/git/${id}/pull-requests`);
    expect(pulls.body.meta.total).toBe(2);
    expect(pulls.body.data.map((pull: { number: number; state: string }) => [pull.number, pull.state]).sort()).toEqual([
      [1, 'open'],
      [2, 'closed'],
    ]);

    const runs = await call(site, 'GET', `/integrations/git/${id}/pull-requests/1/ci`);
    expect(runs.body.data).toEqual([expect.objectContaining({ id: '31', name: 'ci', conclusion: 'success', commit: good })]);
    expect((await call(site, 'GET', `/integrations/git/${id}/pull-requests/99/ci`)).status).toBe(404);
    const log = await call(site, 'GET', `/integrations/git/${id}/ci-runs/31/logs`);
    expect(log.body.data).toMatchObject({ runId: '31', truncated: false, complete: true, cached: false });
    expect(log.body.data.log).toContain('== build ==\ncompiling…\nok');
    expect(log.body.data.log).toContain('all tests passed');
    const before = host.github.requests.length;
    expect((await call(site, 'GET', `/integrations/git/${id}/ci-runs/31/logs`)).body.data.cached).toBe(true);
    expect(host.github.requests.length).toBe(before);

    const valid = await call(site, 'POST', `/integrations/git/${id}/pull-requests/1/validate`);
    expect(valid.status, JSON.stringify(valid.body)).toBe(200);
    expect(valid.body.data).toMatchObject({ pullRequest: 1, commit: good, valid: true, status: { state: 'success', context: 'svc/content-validation' } });
    const invalid = await call(site, 'POST', `/integrations/git/${id}/pull-requests/2/validate`);
    expect(invalid.body.data).toMatchObject({ valid: false, status: { state: 'failure', context: 'svc/content-validation' } });
    expect(invalid.body.data.errors[0]).toMatchObject({ code: 'DANGLING_REFERENCE' });
    expect(host.github.statuses(repo.fullName).map((status) => [status.sha, status.state, status.context])).toEqual([
      [good, 'success', 'svc/content-validation'],
      [broken, 'failure', 'svc/content-validation'],
    ]);
    // Validation is a dry run: the site's schema did not change.
    expect((await owner.query(sql`SELECT name FROM collections WHERE site_id = ${site.siteId} AND deleted_at IS NULL`)).map((row) => row.name)).toEqual(['articles']);
  });

  it('answers GIT_PROVIDER_FAILED when the provider refuses the token', async () => {
    const site = await createTestSite(service, 'gh');
    const repo = githubRepo();
    const { id } = await connect(site, { provider: 'github', repoFullName: repo.fullName, token: 'ghp_wrong_token_for_this_repo' });
    const refused = await call(site, 'POST', `/integrations/git/${id}/pull-requests/refresh`);
    expect(refused.status).toBe(502);
    expect(refused.body.errors[0]).toMatchObject({ code: 'GIT_PROVIDER_FAILED', extensions: { providerStatus: 401 } });
  });

  it('exchanges an OAuth code once, bound to its single-use state', async () => {
    const site = await createTestSite(service, 'gh');
    const repo = githubRepo();
    const { id } = await connect(site, { provider: 'github', repoFullName: repo.fullName, authMethod: 'app' });
    const authorize = await call(site, 'GET', `/integrations/git/${id}/oauth/authorize`);
    expect(authorize.status).toBe(200);
    const url = new URL(authorize.body.data.authorizeUrl);
    expect(url.origin + url.pathname).toBe(`${host.origin}/login/oauth/authorize`);
    expect(url.searchParams.get('client_id')).toBe(OAUTH.clientId);
    const state = url.searchParams.get('state')!;
    expect(state.startsWith(`${site.siteId}.`)).toBe(true);
    const granted = `gho_granted_${'z'.repeat(30)}`;
    secrets.push(granted);
    host.github.addOAuthCode('code-1', granted, { ...OAUTH, redirectUri: url.searchParams.get('redirect_uri')! });
    host.github.grantToken(repo.fullName, granted);

    const wrongProvider = await service.request('GET', `/integrations/git/oauth/gitlab/callback?state=${encodeURIComponent(state)}&code=code-1`);
    expect(wrongProvider.status).toBe(400);
    // The state was spent by that refusal: issue another.
    const again = new URL((await call(site, 'GET', `/integrations/git/${id}/oauth/authorize`)).body.data.authorizeUrl).searchParams.get('state')!;
    const callback = await service.request('GET', `/integrations/git/oauth/github/callback?state=${encodeURIComponent(again)}&code=code-1`);
    expect(callback.status, JSON.stringify(callback.body)).toBe(200);
    expect(callback.body.data).toEqual({ integrationId: id, authMethod: 'app' });
    const reused = await service.request('GET', `/integrations/git/oauth/github/callback?state=${encodeURIComponent(again)}&code=code-1`);
    expect(reused.status).toBe(400);
    expect(reused.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', path: ['query', 'state'] });
    expect((await service.request('GET', '/integrations/git/oauth/github/callback?state=forged&code=x')).status).toBe(400);
    const read = await call(site, 'GET', `/integrations/git/${id}`);
    expect(read.body.data).toMatchObject({ authMethod: 'app', hasToken: true });
    // The granted token now reaches the repository.
    expect((await call(site, 'POST', `/integrations/git/${id}/pull-requests/refresh`)).status).toBe(200);
    expect(host.github.requests.some((request) => host.github.tokenOf(request) === granted)).toBe(true);

    const gitlab = gitlabProject();
    const other = await connect(site, { provider: 'gitlab', repoFullName: gitlab.fullName, authMethod: 'app' });
    const notConfigured = await call(site, 'GET', `/integrations/git/${other.id}/oauth/authorize`);
    expect(notConfigured.status).toBe(409);
    expect(notConfigured.body.errors[0].code).toBe('GIT_OAUTH_NOT_CONFIGURED');
  });

  it('reconciles the intents file into content intents, and answers which commit changed an item', async () => {
    const site = await createTestSite(service, 'gh');
    await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
    const repo = githubRepo();
    const { id } = await connect(site, { provider: 'github', repoFullName: repo.fullName, token: repo.token });
    const first = '3'.repeat(40);
    const second = '4'.repeat(40);
    host.github.setBranch(repo.fullName, 'main', first);
    const intents = (list: { key: string; title: string }[]) => JSON.stringify({ intents: list });
    host.github.setFile(repo.fullName, first, 'svc.intents.json', intents([{ key: 'launch', title: 'Launch the site' }, { key: 'seo', title: 'Fix SEO' }]));
    const synced = await call(site, 'POST', `/integrations/git/${id}/gitops/sync`, {});
    expect(synced.status, JSON.stringify(synced.body)).toBe(200);
    expect(synced.body.data).toEqual({ commit: first, path: 'svc.intents.json', created: ['launch', 'seo'], updated: [], closed: [], unchanged: [] });
    host.github.setBranch(repo.fullName, 'main', second);
    host.github.setFile(repo.fullName, second, 'svc.intents.json', intents([{ key: 'launch', title: 'Launch the new site' }]));
    const resynced = await call(site, 'POST', `/integrations/git/${id}/gitops/sync`, {});
    expect(resynced.body.data).toMatchObject({ commit: second, created: [], updated: ['launch'], closed: ['seo'] });
    const listed = await call(site, 'GET', '/agent/intents');
    const byTitle = Object.fromEntries((listed.body.data as { title: string; status: string }[]).map((intent) => [intent.title, intent.status]));
    expect(byTitle).toEqual({ 'Launch the new site': 'open', 'Fix SEO': 'closed' });
    const unchanged = await call(site, 'POST', `/integrations/git/${id}/gitops/sync`, { ref: 'main' });
    expect(unchanged.body.data).toMatchObject({ created: [], updated: [], closed: [], unchanged: ['launch'] });

    host.github.setFile(repo.fullName, second, 'svc.intents.json', JSON.stringify({ intents: [{ key: 'bad key', title: 'x' }] }));
    const invalid = await call(site, 'POST', `/integrations/git/${id}/gitops/sync`, {});
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', path: ['repository', 'svc.intents.json', 'intents', 0, 'key'] });
    const unknownRef = await call(site, 'POST', `/integrations/git/${id}/gitops/sync`, { ref: 'no-such-branch' });
    expect(unknownRef.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', path: ['body', 'ref'] });

    // A CI job writes with the commit it built: provenance names it, and the pull request whose head it is.
    host.github.addPull(repo.fullName, { number: 12, headSha: second, title: 'Content' });
    await call(site, 'POST', `/integrations/git/${id}/pull-requests/refresh`);
    const item = await call(site, 'POST', '/items/articles', { title: 'From CI' }, { 'x-svc-git-commit': second, 'x-svc-git-integration': id });
    expect(item.status).toBe(201);
    await call(site, 'PATCH', `/items/articles/${item.body.data.id}`, { title: 'By hand' });
    const provenance = await call(site, 'GET', `/integrations/git/${id}/provenance?collection=articles&itemId=${item.body.data.id}`);
    expect(provenance.body.data).toEqual([expect.objectContaining({ type: 'item.created', commit: second, pullRequest: 12, integrationId: id, version: 1 })]);
    const badHeader = await call(site, 'POST', '/items/articles', { title: 'x' }, { 'x-svc-git-commit': 'not-a-sha' });
    expect(badHeader.status).toBe(400);
    expect(badHeader.body.errors[0].path).toEqual(['headers', 'x-svc-git-commit']);
  });

  it('never answers, logs or records a token or webhook secret in plain form', async () => {
    const site = await createTestSite(service, 'gh');
    const repo = githubRepo();
    const seen: string[] = [];
    const answered = async (method: string, path: string, body?: unknown) => {
      const response = await call(site, method, path, body);
      seen.push(JSON.stringify(response.body));
      return response;
    };
    const created = await answered('POST', '/integrations/git', { provider: 'github', repoFullName: repo.fullName, token: repo.token, sync_config: { preview: true } });
    const { id } = created.body.data as { id: string };
    const newToken = `ghp_second_${'q'.repeat(30)}`;
    await answered('PATCH', `/integrations/git/${id}`, { token: newToken });
    const rotated = await answered('POST', `/integrations/git/${id}/rotate-secret`);
    await answered('GET', `/integrations/git/${id}`);
    await answered('GET', '/integrations/git');
    await answered('GET', `/audit`);
    const secretsHere = [repo.token, newToken, created.body.data.webhookSecret as string, rotated.body.data.webhookSecret as string];
    const events = await owner.query<{ text: string }>(sql`SELECT data::text || metadata::text AS text FROM events WHERE site_id = ${site.siteId}`);
    const rows = await owner.query<{ text: string }>(sql`SELECT row_to_json(g)::text AS text FROM git_integrations g WHERE site_id = ${site.siteId}`);
    const sealed = await owner.query<{ text: string }>(sql`SELECT row_to_json(v)::text AS text FROM sensitive_values v WHERE site_id = ${site.siteId}`);
    expect(sealed.length).toBe(2);
    const shown = [...seen.slice(0, 1).map((text) => text.replace(created.body.data.webhookSecret, '')), ...seen.slice(1).map((text) => text.replace(rotated.body.data.webhookSecret, ''))];
    for (const secret of secretsHere) {
      for (const text of [...shown, ...events.map((row) => row.text), ...rows.map((row) => row.text), ...sealed.map((row) => row.text)]) expect(text).not.toContain(secret);
    }
  });
});
