// The git-host stand-in (test/support/gitHostServers.ts) against the real client libraries: every
// endpoint the git integration uses, called through @octokit/rest and @gitbeaker/rest, so the server
// is proven to answer what those libraries send.
import { createHmac } from 'node:crypto';
import { GitbeakerRequestError, Gitlab } from '@gitbeaker/rest';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GitHostServer,
  githubDelivery,
  githubPullRequestPayload,
  githubWorkflowRunPayload,
  gitlabDelivery,
  gitlabMergeRequestPayload,
  gitlabPipelinePayload,
  startGitHostServer,
} from '../../support/gitHostServers.ts';

const SHA_A = 'a'.repeat(40);
const SHA_B = 'b'.repeat(40);

let server: GitHostServer;

/** Octokit logs every failed request to console.error: kept quiet here. */
const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

function octokitFor(auth?: string): Octokit {
  return new Octokit({ baseUrl: server.github.baseUrl, auth, log: quiet });
}

beforeAll(async () => {
  server = await startGitHostServer();
});

afterAll(async () => {
  await server?.close();
});

/** Awaits a rejection and hands back the error. */
async function rejection(promise: Promise<unknown>): Promise<any> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (reason: unknown) => reason,
  );
}

async function gitlabStatus(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(GitbeakerRequestError);
  return { status: (error as GitbeakerRequestError).cause!.response.status, message: (error as Error).message };
}

describe('GitHub through @octokit/rest', () => {
  const repo = 'acme/site';
  const owner = 'acme';
  const name = 'site';
  const token = 'ghp_site_token';
  let octokit: Octokit;

  beforeAll(() => {
    const { github } = server;
    github.addRepo(repo, { token, defaultBranch: 'main' });
    github.addRepo('acme/other', { token: 'ghp_other_token' });
    for (let number = 1; number <= 5; number += 1) {
      github.addPull(repo, { number, headSha: `${number}`.repeat(40), title: `PR ${number}`, author: 'dev', headRef: `feature-${number}`, createdAt: `2024-05-0${number}T10:00:00.000Z` });
    }
    github.updatePull(repo, 4, { state: 'closed' });
    github.updatePull(repo, 5, { merged: true, mergedAt: '2024-06-01T00:00:00Z' });
    github.setFile(repo, SHA_A, 'content/cms.config.json', '{"models":["post"]}\n');
    github.setFile(repo, 'main', 'content/cms.config.json', '{"models":[]}\n');
    github.setFile(repo, 'main', 'big.txt', 'x'.repeat(200));
    github.addRun(repo, { id: 11, name: 'CI', headSha: SHA_A, headBranch: 'feature-1', conclusion: 'failure' }, [
      { id: 101, name: 'build', conclusion: 'success', log: 'build ok\n' },
      { id: 102, name: 'test', conclusion: 'failure', log: '2024-05-01T10:00:00Z FAIL test/a.spec.ts\nError: expected 1 to be 2\n' },
    ]);
    github.addRun(repo, { id: 12, name: 'Lint', headSha: SHA_A, conclusion: 'success' }, []);
    github.addRun(repo, { id: 13, name: 'CI', headSha: SHA_B, conclusion: 'success' }, []);
    octokit = octokitFor(token);
  });

  it('gets a repository, with `token <t>` recorded and the token readable through tokenOf()', async () => {
    const before = server.github.requests.length;
    const { data } = await octokit.rest.repos.get({ owner, repo: name });
    expect(data).toMatchObject({ full_name: repo, default_branch: 'main', private: true });
    expect(typeof data.id).toBe('number');
    const request = server.github.requests[before]!;
    expect(request).toEqual({ method: 'GET', path: '/repos/acme/site', query: {}, auth: 'token', status: 200 });
    expect(JSON.stringify(request)).not.toContain(token);
    expect(server.github.tokenOf(request)).toBe(token);
  });

  it('lists pull requests over several pages with Link headers, which octokit.paginate follows', async () => {
    const first = await octokit.rest.pulls.list({ owner, repo: name, state: 'all', per_page: 2 });
    expect(first.data.map((pull) => pull.number)).toEqual([5, 4]);
    expect(first.headers.link).toMatch(/<http:\/\/127\.0\.0\.1:\d+\/repos\/acme\/site\/pulls\?state=all&per_page=2&page=2>; rel="next", <[^>]+page=3>; rel="last"/);

    const before = server.github.requests.length;
    const all = await octokit.paginate(octokit.rest.pulls.list, { owner, repo: name, state: 'all', per_page: 2 });
    expect(all.map((pull) => pull.number)).toEqual([5, 4, 3, 2, 1]);
    expect(server.github.requests.slice(before).map((request) => request.query.page ?? '1')).toEqual(['1', '2', '3']);

    const merged = all.find((pull) => pull.number === 5)!;
    expect(merged).toMatchObject({ state: 'closed', merged_at: '2024-06-01T00:00:00Z', draft: false });
    const open = all.find((pull) => pull.number === 1)!;
    expect(open).toMatchObject({
      title: 'PR 1',
      state: 'open',
      merged_at: null,
      user: { login: 'dev' },
      head: { sha: '1'.repeat(40), ref: 'feature-1' },
      base: { ref: 'main' },
      created_at: '2024-05-01T10:00:00Z',
    });
    expect(open.html_url).toContain('/acme/site/pull/1');
    expect(all.find((pull) => pull.number === 4)).toMatchObject({ state: 'closed', merged_at: null });

    // GitHub's default state is open.
    const { data: openOnly } = await octokit.rest.pulls.list({ owner, repo: name });
    expect(openOnly.map((pull) => pull.number)).toEqual([3, 2, 1]);
    expect((await octokit.rest.pulls.list({ owner, repo: name, state: 'closed' })).data.map((pull) => pull.number)).toEqual([5, 4]);
  });

  it('gets one pull request, and answers 404 Not Found for a missing one', async () => {
    const { data } = await octokit.rest.pulls.get({ owner, repo: name, pull_number: 5 });
    expect(data).toMatchObject({ number: 5, merged: true, state: 'closed', head: { sha: '5'.repeat(40) } });
    const error = await rejection(octokit.rest.pulls.get({ owner, repo: name, pull_number: 99 }));
    expect(error.status).toBe(404);
    expect(error.response.data.message).toBe('Not Found');
  });

  it('gets file contents at a sha or a branch, base64 in lines; 404 when absent at that ref', async () => {
    const before = server.github.requests.length;
    const { data } = await octokit.rest.repos.getContent({ owner, repo: name, path: 'content/cms.config.json', ref: SHA_A });
    // octokit encodes the slashes of the path.
    expect(server.github.requests[before]!.path).toBe('/repos/acme/site/contents/content%2Fcms.config.json');
    expect(server.github.requests[before]!.query).toEqual({ ref: SHA_A });
    if (Array.isArray(data) || data.type !== 'file') throw new Error('expected a file');
    expect(data).toMatchObject({ type: 'file', encoding: 'base64', path: 'content/cms.config.json', name: 'cms.config.json', size: 20 });
    expect(data.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(Buffer.from(data.content, 'base64').toString('utf8')).toBe('{"models":["post"]}\n');

    const onMain = await octokit.rest.repos.getContent({ owner, repo: name, path: 'content/cms.config.json' });
    expect(Buffer.from((onMain.data as { content: string }).content, 'base64').toString('utf8')).toBe('{"models":[]}\n');

    const big = await octokit.rest.repos.getContent({ owner, repo: name, path: 'big.txt', ref: 'main' });
    const content = (big.data as { content: string }).content;
    expect(content.split('\n').length).toBeGreaterThan(2);
    expect(Buffer.from(content, 'base64').toString('utf8')).toBe('x'.repeat(200));

    // The raw media type answers the text itself.
    const raw = await octokit.rest.repos.getContent({ owner, repo: name, path: 'content/cms.config.json', ref: SHA_A, mediaType: { format: 'raw' } });
    expect(raw.data).toBe('{"models":["post"]}\n');

    expect((await rejection(octokit.rest.repos.getContent({ owner, repo: name, path: 'content/cms.config.json', ref: SHA_B }))).status).toBe(404);
    expect((await rejection(octokit.rest.repos.getContent({ owner, repo: name, path: 'missing.json' }))).status).toBe(404);
  });

  it('creates commit statuses (201) and records them; an invalid state is 422', async () => {
    const response = await octokit.rest.repos.createCommitStatus({
      owner,
      repo: name,
      sha: SHA_A,
      state: 'failure',
      context: 'cms/content',
      description: '2 entries invalid',
      target_url: 'https://cms.example.com/checks/1',
    });
    expect(response.status).toBe(201);
    expect(response.data).toMatchObject({ state: 'failure', context: 'cms/content', description: '2 entries invalid', target_url: 'https://cms.example.com/checks/1' });
    await octokit.rest.repos.createCommitStatus({ owner, repo: name, sha: SHA_B, state: 'pending' });
    expect(server.github.statuses(repo)).toMatchObject([
      { sha: SHA_A, state: 'failure', context: 'cms/content', description: '2 entries invalid', targetUrl: 'https://cms.example.com/checks/1' },
      { sha: SHA_B, state: 'pending', context: 'default', description: null, targetUrl: null },
    ]);
    const error = await rejection(octokit.rest.repos.createCommitStatus({ owner, repo: name, sha: SHA_A, state: 'bogus' as 'error' }));
    expect(error.status).toBe(422);
  });

  it('lists workflow runs by head sha (paginated) and the jobs of a run', async () => {
    const { data } = await octokit.rest.actions.listWorkflowRunsForRepo({ owner, repo: name, head_sha: SHA_A });
    expect(data.total_count).toBe(2);
    expect(data.workflow_runs.map((run) => run.id)).toEqual([12, 11]);
    expect(data.workflow_runs[1]).toMatchObject({ name: 'CI', status: 'completed', conclusion: 'failure', head_sha: SHA_A, run_attempt: 1 });
    expect(data.workflow_runs[1]!.html_url).toContain('/acme/site/actions/runs/11');

    const runs = await octokit.paginate(octokit.rest.actions.listWorkflowRunsForRepo, { owner, repo: name, per_page: 1 });
    expect(runs.map((run) => run.id)).toEqual([13, 12, 11]);

    const jobs = await octokit.rest.actions.listJobsForWorkflowRun({ owner, repo: name, run_id: 11 });
    expect(jobs.data.total_count).toBe(2);
    expect(jobs.data.jobs).toMatchObject([
      { id: 101, name: 'build', status: 'completed', conclusion: 'success' },
      { id: 102, name: 'test', status: 'completed', conclusion: 'failure' },
    ]);
    expect(jobs.data.jobs[0]!.started_at).toMatch(/Z$/);
    expect((await rejection(octokit.rest.actions.listJobsForWorkflowRun({ owner, repo: name, run_id: 999 }))).status).toBe(404);
  });

  it("downloads a job's log through the 302 redirect, which octokit follows and hands back as text", async () => {
    const before = server.github.requests.length;
    const response = await octokit.rest.actions.downloadJobLogsForWorkflowRun({ owner, repo: name, job_id: 102 });
    expect(response.status).toBe(200);
    expect(response.data).toBe('2024-05-01T10:00:00Z FAIL test/a.spec.ts\nError: expected 1 to be 2\n');
    expect(response.url).toMatch(/\/_blob\/github\/job-logs\/102\?sig=[0-9a-f]+$/);
    expect(server.github.requests.slice(before).map((request) => request.status)).toEqual([302]);
    expect((await rejection(octokit.rest.actions.downloadJobLogsForWorkflowRun({ owner, repo: name, job_id: 999 }))).status).toBe(404);

    // Without following redirects, the Location is there to read.
    const manual = await octokit.request('GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs', { owner, repo: name, job_id: 101, request: { redirect: 'manual' } });
    expect(manual.status).toBe(302);
    expect(manual.headers.location).toMatch(/\/_blob\/github\/job-logs\/101\?sig=/);
    const blob = await fetch(manual.headers.location!);
    expect(await blob.text()).toBe('build ok\n');
    expect((await fetch(manual.headers.location!.replace(/sig=\w+/, 'sig=forged'))).status).toBe(403);
  });

  it('answers 401 Bad credentials to an unknown, missing or revoked token, and 404 to a token without access', async () => {
    const bad = await rejection(octokitFor('nope').rest.repos.get({ owner, repo: name }));
    expect(bad.status).toBe(401);
    expect(bad.response.data.message).toBe('Bad credentials');
    const anonymous = await rejection(octokitFor().rest.pulls.list({ owner, repo: name }));
    expect(anonymous.status).toBe(401);
    expect(server.github.requests.at(-1)).toMatchObject({ auth: null, status: 401 });
    const other = await rejection(octokitFor('ghp_other_token').rest.repos.get({ owner, repo: name }));
    expect(other.status).toBe(404);

    server.github.addRepo('acme/revoked', { token: 'ghp_soon_revoked' });
    const client = octokitFor('ghp_soon_revoked');
    await client.rest.repos.get({ owner, repo: 'revoked' });
    server.github.revokeToken('ghp_soon_revoked');
    expect((await rejection(client.rest.repos.get({ owner, repo: 'revoked' }))).status).toBe(401);

    // `Bearer <t>` works as well.
    const bearer = await fetch(`${server.github.baseUrl}/repos/acme/site`, { headers: { authorization: `Bearer ${token}` } });
    expect(bearer.status).toBe(200);
    expect(server.github.requests.at(-1)!.auth).toBe('bearer');
  });

  it('fails the next requests on demand', async () => {
    server.github.failNext(1, 503);
    expect((await rejection(octokit.rest.repos.get({ owner, repo: name }))).status).toBe(503);
    expect((await octokit.rest.repos.get({ owner, repo: name })).status).toBe(200);
  });

  it('exchanges an OAuth code once, checking the client, for a token the API then takes', async () => {
    const { github } = server;
    github.addRepo('acme/oauth', { token: 'gho_from_oauth' });
    github.addOAuthCode('code-1', 'gho_from_oauth', { clientId: 'Iv1.client', clientSecret: 'shh', redirectUri: 'https://cms.example.com/callback' });
    const exchange = (body: Record<string, string>, json = false) =>
      fetch(github.oauthTokenUrl, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
        body: json ? JSON.stringify(body) : new URLSearchParams(body).toString(),
      });
    const wrongSecret = await exchange({ client_id: 'Iv1.client', client_secret: 'wrong', code: 'code-1' });
    expect(wrongSecret.status).toBe(200);
    expect(await wrongSecret.json()).toMatchObject({ error: 'incorrect_client_credentials' });
    const wrongRedirect = await exchange({ client_id: 'Iv1.client', client_secret: 'shh', code: 'code-1', redirect_uri: 'https://evil.example.com/' });
    expect(await wrongRedirect.json()).toMatchObject({ error: 'redirect_uri_mismatch' });

    const granted = await exchange({ client_id: 'Iv1.client', client_secret: 'shh', code: 'code-1', redirect_uri: 'https://cms.example.com/callback' }, true);
    expect(granted.status).toBe(200);
    expect(await granted.json()).toEqual({ access_token: 'gho_from_oauth', token_type: 'bearer', scope: 'repo' });
    const again = await exchange({ client_id: 'Iv1.client', client_secret: 'shh', code: 'code-1' });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ error: 'bad_verification_code' });

    const { data } = await octokitFor('gho_from_oauth').rest.repos.get({ owner: 'acme', repo: 'oauth' });
    expect(data.full_name).toBe('acme/oauth');

    // Without Accept: application/json, GitHub answers form-encoded.
    github.addOAuthCode('code-2', 'gho_form', { clientId: 'Iv1.client', clientSecret: 'shh' });
    const form = await fetch(github.oauthTokenUrl, { method: 'POST', body: new URLSearchParams({ client_id: 'Iv1.client', client_secret: 'shh', code: 'code-2' }) });
    expect(new URLSearchParams(await form.text()).get('access_token')).toBe('gho_form');
  });
});

describe('GitLab through @gitbeaker/rest', () => {
  const project = 'acme/web-site';
  const token = 'glpat-site-token';
  let gitlab: InstanceType<typeof Gitlab>;

  beforeAll(() => {
    const host = server.gitlab;
    host.addProject(project, { token, id: 42 });
    host.addProject('acme/other', { token: 'glpat-other' });
    const states = ['opened', 'opened', 'closed', 'merged', 'opened'] as const;
    for (let iid = 1; iid <= 5; iid += 1) {
      host.addMergeRequest(project, { iid, sha: `${iid}`.repeat(40), title: `MR ${iid}`, state: states[iid - 1], author: 'dev', sourceBranch: `feature-${iid}`, targetBranch: 'main' });
    }
    host.setFile(project, SHA_A, 'content/cms.config.json', '{"models":["post"]}\n');
    host.setFile(project, 'main', 'content/cms.config.json', '{"models":[]}\n');
    host.addPipeline(project, { id: 700, sha: SHA_A, ref: 'feature-1', status: 'failed' }, [
      { id: 7001, name: 'build', stage: 'build', status: 'success', log: 'built\n' },
      { id: 7002, name: 'test', stage: 'test', status: 'failed', log: '\u001b[31mFAIL\u001b[0m test/a.spec.ts\n' },
    ]);
    host.addPipeline(project, { id: 701, sha: SHA_B, ref: 'feature-2', status: 'success' });
    gitlab = new Gitlab({ host: host.host, token });
  });

  it('shows a project by its encoded path (or numeric id), sending PRIVATE-TOKEN', async () => {
    const before = server.gitlab.requests.length;
    const data = await gitlab.Projects.show(project);
    expect(data).toMatchObject({ id: 42, path_with_namespace: project, default_branch: 'main' });
    const request = server.gitlab.requests[before]!;
    expect(request).toEqual({ method: 'GET', path: '/api/v4/projects/acme%2Fweb-site', query: {}, auth: 'private-token', status: 200 });
    expect(server.gitlab.tokenOf(request)).toBe(token);
    expect((await gitlab.Projects.show(42)).path_with_namespace).toBe(project);
  });

  it('lists merge requests over several pages, which gitbeaker follows through the Link header', async () => {
    const before = server.gitlab.requests.length;
    // gitbeaker 43 types `state` without 'all' (GitLab's default, as here when left out): a cast sends it.
    const all = await gitlab.MergeRequests.all({ projectId: project, state: 'all' as 'opened', perPage: 2 });
    expect(all.map((mr) => mr.iid)).toEqual([5, 4, 3, 2, 1]);
    expect(server.gitlab.requests.slice(before).map((request) => request.query)).toEqual([
      { state: 'all', per_page: '2' },
      { state: 'all', per_page: '2', page: '2' },
      { state: 'all', per_page: '2', page: '3' },
    ]);
    expect((await gitlab.MergeRequests.all({ projectId: project, perPage: 2 })).map((mr) => mr.iid)).toEqual([5, 4, 3, 2, 1]);
    expect(all.find((mr) => mr.iid === 1)).toMatchObject({
      title: 'MR 1',
      state: 'opened',
      draft: false,
      author: { username: 'dev' },
      sha: '1'.repeat(40),
      source_branch: 'feature-1',
      target_branch: 'main',
    });
    expect(all.find((mr) => mr.iid === 1)!.web_url).toContain('/acme/web-site/-/merge_requests/1');

    const expanded = await gitlab.MergeRequests.all({ projectId: project, perPage: 2, page: 1, showExpanded: true });
    expect(expanded.data.map((mr) => mr.iid)).toEqual([5, 4]);
    expect(expanded.paginationInfo).toEqual({ total: 5, next: 2, current: 1, previous: null, perPage: 2, totalPages: 3 });

    expect((await gitlab.MergeRequests.all({ projectId: project, state: 'merged' })).map((mr) => mr.iid)).toEqual([4]);
    // Without per_page GitLab pages by 20: one request.
    const count = server.gitlab.requests.length;
    expect((await gitlab.MergeRequests.all({ projectId: project })).length).toBe(5);
    expect(server.gitlab.requests.length).toBe(count + 1);
  });

  it('shows one merge request, and answers 404 for a missing one', async () => {
    expect(await gitlab.MergeRequests.show(project, 4)).toMatchObject({ iid: 4, state: 'merged', sha: '4'.repeat(40) });
    expect((await gitlabStatus(gitlab.MergeRequests.show(project, 99))).status).toBe(404);
  });

  it('shows a raw file at a ref, with the file path encoded; 404 File Not Found when absent', async () => {
    const before = server.gitlab.requests.length;
    expect(await gitlab.RepositoryFiles.showRaw(project, 'content/cms.config.json', SHA_A)).toBe('{"models":["post"]}\n');
    expect(server.gitlab.requests[before]).toMatchObject({ path: '/api/v4/projects/acme%2Fweb-site/repository/files/content%2Fcms.config.json/raw', query: { ref: SHA_A } });
    expect(await gitlab.RepositoryFiles.showRaw(project, 'content/cms.config.json', 'main')).toBe('{"models":[]}\n');
    const missing = await gitlabStatus(gitlab.RepositoryFiles.showRaw(project, 'content/cms.config.json', SHA_B));
    expect(missing).toEqual({ status: 404, message: '404 File Not Found' });
    const file = await gitlab.RepositoryFiles.show(project, 'content/cms.config.json', SHA_A);
    expect(Buffer.from(file.content, 'base64').toString('utf8')).toBe('{"models":["post"]}\n');
  });

  it('creates commit statuses (201) and records them', async () => {
    const created = await gitlab.Commits.editStatus(project, SHA_A, 'failed', { name: 'cms/content', description: '2 entries invalid', targetUrl: 'https://cms.example.com/checks/1' });
    expect(created).toMatchObject({ sha: SHA_A, status: 'failed', name: 'cms/content', target_url: 'https://cms.example.com/checks/1' });
    expect(server.gitlab.requests.at(-1)).toMatchObject({ method: 'POST', path: '/api/v4/projects/acme%2Fweb-site/statuses/' + SHA_A, status: 201 });
    expect(server.gitlab.statuses(project)).toMatchObject([{ sha: SHA_A, state: 'failed', name: 'cms/content', description: '2 entries invalid', targetUrl: 'https://cms.example.com/checks/1' }]);
    expect((await gitlabStatus(gitlab.Commits.editStatus(project, SHA_A, 'bogus' as 'failed'))).status).toBe(400);
  });

  it('lists pipelines by sha, the jobs of a pipeline, and a job trace as text', async () => {
    const pipelines = await gitlab.Pipelines.all(project, { sha: SHA_A });
    expect(pipelines).toHaveLength(1);
    expect(pipelines[0]).toMatchObject({ id: 700, status: 'failed', sha: SHA_A, ref: 'feature-1' });
    expect(pipelines[0]!.web_url).toContain('/-/pipelines/700');
    expect((await gitlab.Pipelines.all(project)).map((pipeline) => pipeline.id)).toEqual([701, 700]);

    const jobs = await gitlab.Jobs.all(project, { pipelineId: 700 });
    expect(jobs).toMatchObject([
      { id: 7002, name: 'test', status: 'failed' },
      { id: 7001, name: 'build', status: 'success' },
    ]);
    expect(jobs[0]!.started_at).toMatch(/Z$/);
    expect(server.gitlab.requests.at(-1)!.path).toBe('/api/v4/projects/acme%2Fweb-site/pipelines/700/jobs');

    expect(await gitlab.Jobs.showLog(project, 7002)).toBe('\u001b[31mFAIL\u001b[0m test/a.spec.ts\n');
    expect((await gitlabStatus(gitlab.Jobs.showLog(project, 9999))).status).toBe(404);
  });

  it('answers 401 to an unknown token, 404 Project Not Found to one without access, and takes OAuth Bearer tokens', async () => {
    expect(await gitlabStatus(new Gitlab({ host: server.gitlab.host, token: 'nope' }).Projects.show(project))).toEqual({ status: 401, message: '401 Unauthorized' });
    expect(await gitlabStatus(new Gitlab({ host: server.gitlab.host, token: 'glpat-other' }).Projects.show(project))).toEqual({ status: 404, message: '404 Project Not Found' });
    const anonymous = await fetch(`${server.gitlab.host}/api/v4/projects/${encodeURIComponent(project)}`);
    expect(anonymous.status).toBe(401);

    const bearer = new Gitlab({ host: server.gitlab.host, oauthToken: token });
    expect((await bearer.Projects.show(project)).id).toBe(42);
    expect(server.gitlab.requests.at(-1)!.auth).toBe('bearer');
  });

  it('exchanges an OAuth code once (invalid_grant after), and refreshes to a new token with the same projects', async () => {
    const host = server.gitlab;
    host.addProject('acme/oauth', { token: 'gl-oauth-token' });
    host.addOAuthCode('gl-code', 'gl-oauth-token', { clientId: 'app-id', clientSecret: 'app-secret', redirectUri: 'https://cms.example.com/callback' });
    const exchange = (body: Record<string, string>) => fetch(host.oauthTokenUrl, { method: 'POST', headers: { accept: 'application/json' }, body: new URLSearchParams(body) });
    const grant = { grant_type: 'authorization_code', client_id: 'app-id', client_secret: 'app-secret', code: 'gl-code', redirect_uri: 'https://cms.example.com/callback' };

    const badClient = await exchange({ ...grant, client_secret: 'wrong' });
    expect(badClient.status).toBe(401);
    expect(await badClient.json()).toMatchObject({ error: 'invalid_client' });
    const badRedirect = await exchange({ ...grant, redirect_uri: 'https://evil.example.com/' });
    expect(badRedirect.status).toBe(400);
    expect(await badRedirect.json()).toMatchObject({ error: 'invalid_grant' });

    const granted = await exchange(grant);
    expect(granted.status).toBe(200);
    const body = (await granted.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ access_token: 'gl-oauth-token', token_type: 'Bearer', scope: 'api', expires_in: 7200 });
    expect(typeof body.refresh_token).toBe('string');
    expect(typeof body.created_at).toBe('number');
    const again = await exchange(grant);
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' });

    // JSON bodies are taken too.
    const refreshed = await fetch(host.oauthTokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: 'app-id', client_secret: 'app-secret' }),
    });
    expect(refreshed.status).toBe(200);
    const next = (await refreshed.json()) as { access_token: string };
    expect(next.access_token).not.toBe('gl-oauth-token');
    expect((await new Gitlab({ host: host.host, oauthToken: next.access_token }).Projects.show('acme/oauth')).path_with_namespace).toBe('acme/oauth');
    const reused = await exchange({ grant_type: 'refresh_token', refresh_token: String(body.refresh_token), client_id: 'app-id', client_secret: 'app-secret' });
    expect(reused.status).toBe(400);
  });
});

describe('webhook deliveries', () => {
  it('signs a GitHub delivery with HMAC-SHA256 of the exact body', () => {
    const payload = githubPullRequestPayload({ repo: 'acme/site', number: 7, action: 'closed', merged: true, headSha: SHA_A });
    const delivery = githubDelivery('s3cret', 'pull_request', payload, 'delivery-1');
    expect(delivery.body).toBe(JSON.stringify(payload));
    expect(delivery.headers).toMatchObject({
      'x-github-event': 'pull_request',
      'x-github-delivery': 'delivery-1',
      'content-type': 'application/json',
      'x-hub-signature-256': `sha256=${createHmac('sha256', 's3cret').update(delivery.body).digest('hex')}`,
    });
    expect(JSON.parse(delivery.body)).toMatchObject({
      action: 'closed',
      number: 7,
      pull_request: { number: 7, state: 'closed', merged: true, head: { sha: SHA_A } },
      repository: { full_name: 'acme/site' },
    });
    expect(githubPullRequestPayload({ repo: 'acme/site', number: 7, action: 'synchronize', headSha: SHA_B, before: SHA_A })).toMatchObject({
      before: SHA_A,
      after: SHA_B,
      pull_request: { state: 'open', merged: false, merged_at: null },
    });
    expect(githubDelivery('s3cret', 'ping', {}).headers['x-github-delivery']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('builds a failed workflow_run payload', () => {
    expect(githubWorkflowRunPayload({ repo: 'acme/site', runId: 11, headSha: SHA_A, pullNumbers: [7] })).toMatchObject({
      action: 'completed',
      workflow_run: { id: 11, status: 'completed', conclusion: 'failure', head_sha: SHA_A, pull_requests: [{ number: 7 }] },
      repository: { full_name: 'acme/site' },
    });
  });

  it('builds GitLab deliveries with the token and event headers', () => {
    const mr = gitlabMergeRequestPayload({ project: 'acme/web-site', iid: 3, action: 'merge', lastCommitSha: SHA_A, projectId: 42 });
    expect(mr).toMatchObject({ object_kind: 'merge_request', project: { id: 42, path_with_namespace: 'acme/web-site' }, object_attributes: { iid: 3, action: 'merge', state: 'merged', last_commit: { id: SHA_A } } });
    const delivery = gitlabDelivery('hook-token', 'Merge Request Hook', mr, 'uuid-1');
    expect(delivery.headers).toMatchObject({ 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-token': 'hook-token', 'x-gitlab-event-uuid': 'uuid-1', 'content-type': 'application/json' });
    expect(JSON.parse(delivery.body)).toEqual(mr);

    const pipeline = gitlabPipelinePayload({ project: 'acme/web-site', pipelineId: 700, sha: SHA_A, mergeRequestIid: 3 });
    expect(pipeline).toMatchObject({ object_kind: 'pipeline', object_attributes: { id: 700, status: 'failed', sha: SHA_A, source: 'merge_request_event' }, merge_request: { iid: 3 } });
    expect(gitlabPipelinePayload({ project: 'acme/web-site', pipelineId: 701, sha: SHA_B, status: 'success' })).toMatchObject({ merge_request: null });
  });
});
