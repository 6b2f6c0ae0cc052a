// The git webhook receiver end to end: signatures (GitHub's HMAC, GitLab's token), one effect per
// delivery id, preview sites per pull request, CI failures as incidents and audit entries.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import {
  githubDelivery,
  githubPullRequestPayload,
  githubWorkflowRunPayload,
  gitlabDelivery,
  gitlabMergeRequestPayload,
  gitlabPipelinePayload,
} from '../../support/gitHostServers.ts';
import { createTestSite, INSTANCE_TOKEN } from '../../support/testService.ts';
import { until } from '../cdc/support.ts';
import { manifest, receiverPath, startGitTestbed } from './support.ts';

const { host, service, owner, call, connect, deliver, githubRepo, gitlabProject } = await startGitTestbed();

describe('git integrations', () => {
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

    // A site of the preview's id that this integration did not make is never touched.
    const foreign = `${site.siteId}__pr-9`;
    const made = await service.request('POST', '/instance/sites', { token: INSTANCE_TOKEN, body: { id: foreign, adminEmail: "owner@example.test", adminPassword: 'correct horse battery staple' } });
    expect(made.status).toBe(201);
    host.github.setFile(repo.fullName, '9'.repeat(40), 'svc.config.json', manifest(['hijacked']));
    const refusedPreview = await deliver(path, githubDelivery(webhookSecret, 'pull_request', githubPullRequestPayload({ repo: repo.fullName, number: 9, action: 'opened', headSha: '9'.repeat(40) })));
    expect(refusedPreview.body.data.outcome).toBe('preview_skipped');
    expect(await owner.query(sql`SELECT 1 FROM collections WHERE site_id = ${foreign}`)).toEqual([]);
    await deliver(path, githubDelivery(webhookSecret, 'pull_request', githubPullRequestPayload({ repo: repo.fullName, number: 9, action: 'closed', headSha: '9'.repeat(40) })));
    expect(await owner.query(sql`SELECT 1 FROM sites WHERE id = ${foreign} AND deleted_at IS NULL`)).toHaveLength(1);

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

  it('acts once on concurrent copies of a delivery, never previews a fork, and bounds what a payload may say', async () => {
    const site = await createTestSite(service, 'gh');
    const repo = githubRepo();
    const { id, webhookSecret } = await connect(site, { provider: 'github', repoFullName: repo.fullName, token: repo.token, sync_config: { preview: true } });
    const head = '7'.repeat(40);
    host.github.setFile(repo.fullName, head, 'svc.config.json', manifest(['posts']));
    const path = receiverPath('github', site.siteId, id);
    const delivery = githubDelivery(webhookSecret, 'pull_request', githubPullRequestPayload({ repo: repo.fullName, number: 21, action: 'opened', headSha: head }), 'same-delivery');
    const reads = () => host.github.requests.filter((request) => request.path.includes('/contents/')).length;
    const before = reads();
    const answers = await Promise.all(Array.from({ length: 6 }, () => deliver(path, delivery)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(answers.filter((answer) => !answer.body.data.duplicate)).toHaveLength(1);
    expect(reads() - before).toBe(1);
    const [received] = await owner.query<{ count: number }>(sql`SELECT count(*)::int AS count FROM events WHERE site_id = ${site.siteId} AND type = 'git_webhook.received'`);
    expect(received!.count).toBe(1);

    const fork = githubPullRequestPayload({ repo: repo.fullName, number: 22, action: 'opened', headSha: head });
    (fork.pull_request as { head: { repo: unknown } }).head.repo = { full_name: 'mallory/fork', fork: true };
    expect((await deliver(path, githubDelivery(webhookSecret, 'pull_request', fork))).body.data.outcome).toBe('preview_skipped');
    expect(await owner.query(sql`SELECT 1 FROM sites WHERE id = ${`${site.siteId}__pr-22`}`)).toEqual([]);

    for (const [change, where] of [
      [{ number: 3_000_000_000 }, ['body', 'pull_request', 'number']],
      [{ created_at: 'yesterday' }, ['body', 'pull_request', 'created_at']],
      [{ title: 'x'.repeat(5000) }, ['body', 'pull_request', 'title']],
    ] as const) {
      const payload = githubPullRequestPayload({ repo: repo.fullName, number: 23, action: 'opened', headSha: head });
      Object.assign(payload.pull_request as object, change);
      const refused = await deliver(path, githubDelivery(webhookSecret, 'pull_request', payload));
      expect(refused.status, JSON.stringify(change)).toBe(400);
      expect(refused.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', path: where });
    }
    // What changes nothing is answered, not recorded (the two recorded: the first delivery and the fork's).
    expect((await deliver(path, githubDelivery(webhookSecret, 'ping', { zen: 'hi' }))).body.data.outcome).toBe('ignored');
    const [after] = await owner.query<{ count: number }>(sql`SELECT count(*)::int AS count FROM events WHERE site_id = ${site.siteId} AND type = 'git_webhook.received'`);
    expect(after!.count).toBe(2);
  });

  it('a paused integration answers deliveries without acting on them', async () => {
    const site = await createTestSite(service, 'gh');
    const repo = githubRepo();
    const { id, webhookSecret } = await connect(site, { provider: 'github', repoFullName: repo.fullName, token: repo.token, sync_config: { preview: true } });
    await call(site, 'PATCH', `/integrations/git/${id}`, { status: 'paused' });
    const run = githubWorkflowRunPayload({ repo: repo.fullName, runId: 5, headSha: 'f'.repeat(40) });
    const answer = await deliver(receiverPath('github', site.siteId, id), githubDelivery(webhookSecret, 'workflow_run', run));
    expect(answer.body.data.outcome).toBe('ignored_paused');
    expect((await call(site, 'GET', '/agent/incidents')).body.data).toEqual([]);
  });
});
