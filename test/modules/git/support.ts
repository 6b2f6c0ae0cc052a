// The git integration tests' common ground: a local GitHub/GitLab server, a service on a database of
// the file's own pointed at it, and helpers that connect repositories and send signed deliveries.
import { afterAll, expect } from 'vitest';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { startGitHostServer } from '../../support/gitHostServers.ts';
import { startTestServiceForFile, type TestSite } from '../../support/testService.ts';

export const OAUTH = { clientId: 'svc-client', clientSecret: 'svc-client-secret-0123456789' };

export const receiverPath = (provider: string, siteId: string, id: string) => `/integrations/git/webhook/${provider}/${siteId}/${id}`;

/** A config manifest with the given collections, each with a title. */
export const manifest = (collections: string[]) =>
  JSON.stringify({
    version: 'svc.config@v1',
    collections: collections.map((name) => ({ name })),
    fields: collections.map((collection) => ({ collection, field: 'title', type: 'string' })),
  });

/** Call at a test file's top level, with await. */
export async function startGitTestbed() {
  const host = await startGitHostServer();
  afterAll(() => host.close());
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
  let repoCounter = 0;

  async function call(site: TestSite, method: string, path: string, body?: unknown, headers?: Record<string, string>) {
    return service.request(method, path, { site: site.siteId, token: site.adminToken, body, ...(headers ? { headers } : {}) });
  }

  return {
    host,
    service,
    owner: database.owner,
    call,
    githubRepo(): { fullName: string; token: string } {
      const fullName = `acme/site-${process.pid}-${++repoCounter}`;
      const token = `ghp_${fullName.replace(/\W/g, '')}_${'x'.repeat(20)}`;
      host.github.addRepo(fullName, { token });
      return { fullName, token };
    },
    gitlabProject(): { fullName: string; token: string } {
      const fullName = `acme/web/site-${process.pid}-${++repoCounter}`;
      const token = `glpat-${fullName.replace(/\W/g, '')}`;
      host.gitlab.addProject(fullName, { token });
      return { fullName, token };
    },
    async connect(site: TestSite, body: Record<string, unknown>) {
      const created = await call(site, 'POST', '/integrations/git', body);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.data as { id: string; webhookSecret: string; webhookUrl: string };
    },
    /** Sends a delivery to the receiver's path (public: no site header, no token). */
    deliver(path: string, delivery: { headers: Record<string, string>; body: string }) {
      return service.request('POST', path, { headers: delivery.headers, rawBody: delivery.body });
    },
  };
}
