// A git integration's repository end to end: pull requests, CI runs and logs, manifest validation with
// a commit status, gitops intents, and provenance of items written with X-Svc-Git-* headers.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { createCollection } from '../../support/contentModel.ts';
import { createTestSite } from '../../support/testService.ts';
import { manifest, startGitTestbed } from './support.ts';

const { host, service, owner, call, connect, githubRepo } = await startGitTestbed();

describe('git integrations', () => {
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
    expect(provenance.body.data).toEqual([expect.objectContaining({ type: 'item.created', commit: second, pullRequest: 12, integrationId: id, version: 1, source: 'declared' })]);
    const badHeader = await call(site, 'POST', '/items/articles', { title: 'x' }, { 'x-svc-git-commit': 'not-a-sha' });
    expect(badHeader.status).toBe(400);
    expect(badHeader.body.errors[0].path).toEqual(['headers', 'x-svc-git-commit']);
  });
});
