// The git hosting providers, behind one port (docs/integrations.md "Git integration"): GitHub through
// @octokit/rest, GitLab through @gitbeaker/rest, each at a configurable base URL so tests reach a
// local server that speaks their REST APIs. What the integration needs of a repository: its pull
// requests, a file at a commit, a commit status, CI runs and their logs, and the OAuth code exchange.
import type { Gitlab } from '@gitbeaker/rest';
import type { Octokit } from '@octokit/rest';
import { AppError } from '../../domain/shared/appError.ts';

export type GitProviderName = 'github' | 'gitlab';

export interface PullRequestInfo {
  number: number;
  title: string;
  state: 'open' | 'closed' | 'merged';
  draft: boolean;
  author: string | null;
  headSha: string;
  headRef: string;
  baseRef: string;
  url: string;
  openedAt: string;
  changedAt: string;
}

export interface CiRunInfo {
  id: string;
  name: string;
  status: string;
  /** `success`, `failure`, `cancelled`, … once finished; null while it runs. */
  conclusion: string | null;
  commit: string;
  url: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface CommitStatus {
  state: 'pending' | 'success' | 'failure';
  context: string;
  description: string;
}

export interface CiLog {
  log: string;
  truncated: boolean;
  /** Every job had finished: the log will not change. */
  complete: boolean;
}

export interface GitRepository {
  defaultBranch(): Promise<string>;
  /** The commit a branch, tag or sha names, or null when the repository has none. */
  resolveCommit(ref: string): Promise<string | null>;
  pullRequests(limit: number): Promise<PullRequestInfo[]>;
  pullRequest(number: number): Promise<PullRequestInfo | null>;
  /** The file's text at `ref`, or null when the repository has no such file there. */
  readFile(path: string, ref: string): Promise<string | null>;
  postStatus(sha: string, status: CommitStatus): Promise<void>;
  ciRuns(sha: string): Promise<CiRunInfo[]>;
  ciLog(runId: string, maxBytes: number): Promise<CiLog>;
}

export interface GitHostSettings {
  githubApiUrl: string;
  githubWebUrl: string;
  gitlabUrl: string;
  timeoutMs: number;
}

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

function providerFailure(provider: GitProviderName, error: unknown): AppError {
  const status = providerStatusOf(error);
  const reason = status === null ? (error as Error).message : `it answered ${status}`;
  return new AppError('GIT_PROVIDER_FAILED', `The ${provider === 'github' ? 'GitHub' : 'GitLab'} request failed: ${reason}`, {
    extensions: { providerStatus: status },
  });
}

function providerStatusOf(error: unknown): number | null {
  const candidate = error as { status?: unknown; cause?: { response?: { status?: unknown } } };
  if (typeof candidate.status === 'number') return candidate.status;
  const status = candidate.cause?.response?.status;
  return typeof status === 'number' ? status : null;
}

/** Runs a provider call: its failures become GIT_PROVIDER_FAILED, and a 404 answers `onMissing` when given. */
async function call<T>(provider: GitProviderName, work: () => Promise<T>, onMissing?: () => T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError) throw error;
    // GitHub answers 422 for a ref that names no commit.
    const status = providerStatusOf(error);
    if (onMissing && (status === 404 || (provider === 'github' && status === 422))) return onMissing();
    throw providerFailure(provider, error);
  }
}

const cut = (text: string, maxBytes: number) => {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length <= maxBytes ? { text, truncated: false } : { text: bytes.subarray(0, maxBytes).toString('utf8'), truncated: true };
};

/** Appends each job's log under its name until `maxBytes`. */
function joinLogs(jobs: { name: string; log: string }[], maxBytes: number): { log: string; truncated: boolean } {
  let log = '';
  for (const job of jobs) {
    const piece = cut(`== ${job.name} ==\n${job.log}\n`, maxBytes - Buffer.byteLength(log));
    log += piece.text;
    if (piece.truncated) return { log, truncated: true };
  }
  return { log, truncated: false };
}

function timedFetch(timeoutMs: number): typeof fetch {
  return (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) });
}

/** What GitHub says of a pull request, in its REST answers and in its webhook payloads alike. */
export interface GithubPull {
  number: number;
  title: string;
  state: string;
  merged_at?: string | null;
  draft?: boolean | null;
  user?: { login: string } | null;
  head: { sha: string; ref: string };
  base: { ref: string };
  html_url: string;
  created_at: string;
  updated_at: string;
}

export function githubPullOf(pull: GithubPull): PullRequestInfo {
  return {
    number: pull.number,
    title: pull.title,
    state: pull.merged_at ? 'merged' : pull.state === 'open' ? 'open' : 'closed',
    draft: pull.draft ?? false,
    author: pull.user?.login ?? null,
    headSha: pull.head.sha,
    headRef: pull.head.ref,
    baseRef: pull.base.ref,
    url: pull.html_url,
    openedAt: new Date(pull.created_at).toISOString(),
    changedAt: new Date(pull.updated_at).toISOString(),
  };
}

function githubRepository(OctokitClient: typeof Octokit, settings: GitHostSettings, repoFullName: string, token: string | null): GitRepository {
  const [owner, repo] = repoFullName.split('/') as [string, string];
  const octokit = new OctokitClient({ baseUrl: settings.githubApiUrl, request: { fetch: timedFetch(settings.timeoutMs) }, ...(token ? { auth: token } : {}) });
  const github = <T>(work: () => Promise<T>, onMissing?: () => T) => call('github', work, onMissing);
  const pullOf = githubPullOf;
  return {
    defaultBranch: () => github(async () => (await octokit.rest.repos.get({ owner, repo })).data.default_branch),
    resolveCommit: (ref) => github(async () => (await octokit.rest.repos.getCommit({ owner, repo, ref, per_page: 1 })).data.sha, () => null),
    pullRequests: (limit) =>
      github(async () => {
        const pulls: PullRequestInfo[] = [];
        // At most the pages `limit` needs: a provider that keeps answering `next` (with empty pages) is not followed for ever.
        let pages = Math.ceil(limit / Math.min(100, limit));
        for await (const page of octokit.paginate.iterator(octokit.rest.pulls.list, { owner, repo, state: 'all', sort: 'updated', direction: 'desc', per_page: Math.min(100, limit) })) {
          if (pages-- <= 0) return pulls;
          for (const pull of page.data) {
            if (pulls.length >= limit) return pulls;
            pulls.push(pullOf(pull));
          }
        }
        return pulls;
      }),
    pullRequest: (number) => github(async () => pullOf((await octokit.rest.pulls.get({ owner, repo, pull_number: number })).data), () => null),
    readFile: (path, ref) =>
      github(
        async () => {
          // The raw media type: the file's bytes whatever its size (the JSON form leaves files over 1 MB empty).
          const { data } = await octokit.rest.repos.getContent({ owner, repo, path, ref, mediaType: { format: 'raw' } });
          return typeof data === 'string' ? data : null;
        },
        () => null,
      ),
    postStatus: (sha, status) =>
      github(async () => {
        await octokit.rest.repos.createCommitStatus({ owner, repo, sha, state: status.state, context: status.context, description: status.description });
      }),
    ciRuns: (sha) =>
      github(async () =>
        (await octokit.rest.actions.listWorkflowRunsForRepo({ owner, repo, head_sha: sha, per_page: 100 })).data.workflow_runs.map((run) => ({
          id: String(run.id),
          name: run.name ?? `run ${run.id}`,
          status: run.status ?? 'unknown',
          conclusion: run.conclusion ?? null,
          commit: run.head_sha,
          url: run.html_url,
          createdAt: run.created_at,
          updatedAt: run.updated_at,
        })),
      ),
    ciLog: (runId, maxBytes) =>
      github(async () => {
        const { jobs } = (await octokit.rest.actions.listJobsForWorkflowRun({ owner, repo, run_id: Number(runId), per_page: 100 })).data;
        const logs: { name: string; log: string }[] = [];
        for (const job of jobs) {
          const { data } = await octokit.rest.actions.downloadJobLogsForWorkflowRun({ owner, repo, job_id: job.id });
          logs.push({ name: job.name, log: typeof data === 'string' ? data : String(data) });
          if (logs.reduce((sum, entry) => sum + entry.log.length, 0) > maxBytes) break;
        }
        return { ...joinLogs(logs, maxBytes), complete: jobs.every((job) => job.status === 'completed') };
      }),
  };
}

function gitlabRepository(GitlabClient: typeof Gitlab, settings: GitHostSettings, repoFullName: string, token: string | null, authMethod: 'app' | 'pat'): GitRepository {
  const credentials = token === null ? {} : authMethod === 'app' ? { oauthToken: token } : { token };
  const api = new GitlabClient({ host: settings.gitlabUrl, queryTimeout: settings.timeoutMs, ...credentials } as ConstructorParameters<typeof Gitlab>[0]);
  const gitlab = <T>(work: () => Promise<T>, onMissing?: () => T) => call('gitlab', work, onMissing);
  type MergeRequest = { iid: number; title: string; state: string; draft?: boolean; web_url: string; author?: { username?: string } | null; sha: string; source_branch: string; target_branch: string; created_at: string; updated_at: string };
  const pullOf = (mr: MergeRequest): PullRequestInfo => ({
    number: mr.iid,
    title: mr.title,
    state: mr.state === 'merged' ? 'merged' : mr.state === 'opened' ? 'open' : 'closed',
    draft: mr.draft ?? false,
    author: mr.author?.username ?? null,
    headSha: mr.sha,
    headRef: mr.source_branch,
    baseRef: mr.target_branch,
    url: mr.web_url,
    openedAt: mr.created_at,
    changedAt: mr.updated_at,
  });
  const pipelineConclusion = (status: string) => (['success', 'failed', 'canceled', 'skipped'].includes(status) ? (status === 'failed' ? 'failure' : status === 'canceled' ? 'cancelled' : status) : null);
  return {
    defaultBranch: () => gitlab(async () => String((await api.Projects.show(repoFullName)).default_branch)),
    resolveCommit: (ref) => gitlab(async () => String((await api.Commits.show(repoFullName, ref)).id), () => null),
    pullRequests: (limit) =>
      gitlab(async () => {
        const list = (await api.MergeRequests.all({ projectId: repoFullName, orderBy: 'updated_at', sort: 'desc', perPage: Math.min(100, limit), maxPages: Math.ceil(limit / 100) })) as unknown as MergeRequest[];
        return list.slice(0, limit).map(pullOf);
      }),
    pullRequest: (number) => gitlab(async () => pullOf((await api.MergeRequests.show(repoFullName, number)) as unknown as MergeRequest), () => null),
    readFile: (path, ref) =>
      gitlab(
        async () => {
          const raw = await api.RepositoryFiles.showRaw(repoFullName, path, ref);
          return typeof raw === 'string' ? raw : await raw.text();
        },
        () => null,
      ),
    postStatus: (sha, status) =>
      gitlab(async () => {
        await api.Commits.editStatus(repoFullName, sha, status.state === 'failure' ? 'failed' : status.state, { name: status.context, description: status.description });
      }),
    ciRuns: (sha) =>
      gitlab(async () =>
        ((await api.Pipelines.all(repoFullName, { sha, perPage: 100, maxPages: 1 })) as unknown as { id: number; status: string; sha: string; web_url?: string; created_at: string; updated_at: string; ref?: string }[]).map(
          (pipeline) => ({
            id: String(pipeline.id),
            name: `pipeline ${pipeline.id}${pipeline.ref ? ` (${pipeline.ref})` : ''}`,
            status: pipeline.status,
            conclusion: pipelineConclusion(pipeline.status),
            commit: pipeline.sha,
            url: pipeline.web_url ?? null,
            createdAt: pipeline.created_at,
            updatedAt: pipeline.updated_at,
          }),
        ),
      ),
    ciLog: (runId, maxBytes) =>
      gitlab(async () => {
        const jobs = (await api.Jobs.all(repoFullName, { pipelineId: Number(runId), perPage: 100, maxPages: 1 })) as unknown as { id: number; name: string; status: string }[];
        const logs: { name: string; log: string }[] = [];
        for (const job of jobs) {
          logs.push({ name: job.name, log: String(await api.Jobs.showLog(repoFullName, job.id)) });
          if (logs.reduce((sum, entry) => sum + entry.log.length, 0) > maxBytes) break;
        }
        const finished = ['success', 'failed', 'canceled', 'skipped', 'manual'];
        return { ...joinLogs(logs, maxBytes), complete: jobs.every((job) => finished.includes(job.status)) };
      }),
  };
}

/** The repository's client. The provider's library is imported on first use, not at startup: most instances run no git integration. */
export async function gitRepository(settings: GitHostSettings, integration: { provider: GitProviderName; repoFullName: string; authMethod: 'app' | 'pat' }, token: string | null): Promise<GitRepository> {
  return integration.provider === 'github'
    ? githubRepository((await import('@octokit/rest')).Octokit, settings, integration.repoFullName, token)
    : gitlabRepository((await import('@gitbeaker/rest')).Gitlab, settings, integration.repoFullName, token, integration.authMethod);
}

/** Where the provider asks its user to grant access; `state` comes back to the callback. */
export function authorizeUrl(settings: GitHostSettings, provider: GitProviderName, client: OAuthClient, redirectUri: string, state: string): string {
  const url =
    provider === 'github'
      ? new URL('/login/oauth/authorize', settings.githubWebUrl)
      : new URL('/oauth/authorize', settings.gitlabUrl);
  url.searchParams.set('client_id', client.clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('state', state);
  url.searchParams.set('scope', provider === 'github' ? 'repo' : 'api');
  if (provider === 'gitlab') url.searchParams.set('response_type', 'code');
  return url.toString();
}

/** The OAuth code exchange (RFC 6749 §4.1.3): the access token, or GIT_PROVIDER_FAILED. */
export async function exchangeOAuthCode(settings: GitHostSettings, provider: GitProviderName, client: OAuthClient, code: string, redirectUri: string): Promise<string> {
  const url = provider === 'github' ? new URL('/login/oauth/access_token', settings.githubWebUrl) : new URL('/oauth/token', settings.gitlabUrl);
  const body = new URLSearchParams({ client_id: client.clientId, client_secret: client.clientSecret, code, redirect_uri: redirectUri, grant_type: 'authorization_code' });
  return call(provider, async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body,
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
    const answer = (await response.json().catch(() => ({}))) as { access_token?: unknown; error?: unknown };
    if (!response.ok || typeof answer.access_token !== 'string') {
      throw new AppError('GIT_PROVIDER_FAILED', `The code exchange was refused${typeof answer.error === 'string' ? `: ${answer.error}` : ''}`, {
        extensions: { providerStatus: response.status },
      });
    }
    return answer.access_token;
  });
}
