// Git integrations end to end: connecting repositories (validation, tenancy, authorization), OAuth
// with a single-use state, and secrets that are never answered, logged or stored in plain form. Real
// HTTP and PostgreSQL; the real @octokit/rest and @gitbeaker/rest clients talk to a local server.
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { createTestSite } from '../../support/testService.ts';
import { OAUTH, startGitTestbed } from './support.ts';

const { host, service, owner, call, connect, githubRepo, gitlabProject } = await startGitTestbed();

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

  it('answers GIT_PROVIDER_FAILED when the provider refuses the token', async () => {
    const site = await createTestSite(service, 'gh');
    const repo = githubRepo();
    const { id } = await connect(site, { provider: 'github', repoFullName: repo.fullName, token: 'ghp_wrong_token_for_this_repo' });
    const refused = await call(site, 'POST', `/integrations/git/${id}/pull-requests/refresh`);
    expect(refused.status).toBe(502);
    expect(refused.body.errors[0]).toMatchObject({ code: 'GIT_PROVIDER_FAILED', extensions: { providerStatus: 401 } });
  });

  it('exchanges an OAuth code once, bound to its single-use state and to the browser that asked for it', async () => {
    const site = await createTestSite(service, 'gh');
    const repo = githubRepo();
    const { id } = await connect(site, { provider: 'github', repoFullName: repo.fullName, authMethod: 'app' });
    const authorizeOnce = async () => {
      const answer = await call(site, 'GET', `/integrations/git/${id}/oauth/authorize`);
      expect(answer.status).toBe(200);
      const setCookie = answer.headers.get('set-cookie')!;
      expect(setCookie).toMatch(/^svc_git_oauth=[\w-]+;.*HttpOnly/i);
      expect(setCookie).toMatch(/SameSite=Lax/i);
      return { url: new URL(answer.body.data.authorizeUrl), cookie: setCookie.split(';')[0]! };
    };
    const { url, cookie } = await authorizeOnce();
    expect(url.origin + url.pathname).toBe(`${host.origin}/login/oauth/authorize`);
    expect(url.searchParams.get('client_id')).toBe(OAUTH.clientId);
    const state = url.searchParams.get('state')!;
    expect(state.startsWith(`${site.siteId}.`)).toBe(true);
    const granted = `gho_granted_${'z'.repeat(30)}`;
    host.github.addOAuthCode('code-1', granted, { ...OAUTH, redirectUri: url.searchParams.get('redirect_uri')! });
    host.github.grantToken(repo.fullName, granted);
    const callback = (provider: string, stateText: string, headers: Record<string, string> = {}) =>
      service.request('GET', `/integrations/git/oauth/${provider}/callback?state=${encodeURIComponent(stateText)}&code=code-1`, { headers });

    // The other provider's callback spends the state: issue another.
    expect((await callback('gitlab', state, { cookie })).status).toBe(400);
    // A state handed to another browser (no cookie: a victim's consent) is refused, and spent.
    const handed = await authorizeOnce();
    const victim = await callback('github', handed.url.searchParams.get('state')!);
    expect(victim.status).toBe(400);
    expect(victim.body.errors[0]).toMatchObject({ code: 'VALIDATION_ERROR', path: ['query', 'state'] });
    expect((await callback('github', handed.url.searchParams.get('state')!, { cookie: handed.cookie })).status).toBe(400);
    // The browser that asked, with its cookie: the code is exchanged once.
    const mine = await authorizeOnce();
    expect((await callback('github', mine.url.searchParams.get('state')!, { cookie: cookie })).status).toBe(400);
    const again = await authorizeOnce();
    const exchanged = await callback('github', again.url.searchParams.get('state')!, { cookie: again.cookie });
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    expect(exchanged.body.data).toEqual({ integrationId: id, authMethod: 'app' });
    const reused = await callback('github', again.url.searchParams.get('state')!, { cookie: again.cookie });
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
