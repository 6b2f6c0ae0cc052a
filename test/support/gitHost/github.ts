// The GitHub stand-in of test/support/gitHostServers.ts: the REST API and the OAuth token endpoint.
//
// Protocol details kept from the real service (checked against octokit 22):
// - GitHub: `Authorization: token <t>` or `Bearer <t>` (octokit sends `token <t>`, lower-case);
//   an unknown token is 401 Bad credentials, a known token without access to the repo is 404 (as
//   GitHub answers for a private repo). Lists page with `per_page`/`page` (30 by default, at most
//   100) and a `Link` header with absolute URLs (rel next/prev/first/last) when there is more than
//   one page; octokit.paginate follows rel="next". `contents/{path}` takes the path with its
//   slashes as is or encoded (octokit sends `a%2Fb.md`); the content is base64 in lines of 60
//   characters, as GitHub sends it. A job's log answers 302 to an unauthenticated URL on the same
//   server (on GitHub a signed blob-storage URL), which fetch follows; octokit returns the text.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { createAccess, createFailureInjector, createRecorder, gitBlobSha, githubBase64, githubTime, linkHeader, paginate, paramsOf, segmentsOf } from './common.ts';
import type { OAuthCode, Reply } from './common.ts';
import type { GitHubHost, GitHubJobInput, GitHubPullInput, GitHubRunInput, GitHubStatus } from './githubTypes.ts';

interface GitHubRepo {
  id: number;
  fullName: string;
  defaultBranch: string;
  private: boolean;
  pulls: Map<number, GitHubPullInput>;
  files: Map<string, string>;
  runs: Map<number, { run: GitHubRunInput; jobs: GitHubJobInput[] }>;
  statuses: GitHubStatus[];
}

const GITHUB_DOCS = 'https://docs.github.com/rest';
const GITHUB_STATUS_STATES = new Set(['error', 'failure', 'pending', 'success']);
const LOG_PATH = /^\/_blob\/github\/job-logs\/(\d+)$/;

function githubError(status: number, message: string): Reply {
  return { status, json: { message, documentation_url: GITHUB_DOCS, status: String(status) } };
}

export function createGitHub(origin: () => string) {
  const repos = new Map<string, GitHubRepo>();
  const access = createAccess();
  const recorder = createRecorder();
  const failures = createFailureInjector();
  const codes = new Map<string, OAuthCode>();
  /** Job id → the signature its log URL carries, and the repo it belongs to. */
  const logLinks = new Map<number, { signature: string; repo: string }>();
  let nextRepoId = 100_000;
  let nextStatusId = 1;

  function repoOf(fullName: string): GitHubRepo {
    const repo = repos.get(fullName.toLowerCase());
    if (!repo) throw new Error(`No GitHub repo ${fullName}: addRepo() it first`);
    return repo;
  }

  function repoJson(repo: GitHubRepo) {
    const [owner = '', name = ''] = repo.fullName.split('/');
    return {
      id: repo.id,
      node_id: Buffer.from(`Repository${repo.id}`).toString('base64'),
      name,
      full_name: repo.fullName,
      private: repo.private,
      visibility: repo.private ? 'private' : 'public',
      owner: { login: owner, id: 1, type: 'Organization' },
      html_url: `${origin()}/${repo.fullName}`,
      url: `${origin()}/repos/${repo.fullName}`,
      default_branch: repo.defaultBranch,
      permissions: { admin: false, maintain: false, push: true, triage: true, pull: true },
    };
  }

  function pullJson(repo: GitHubRepo, pull: GitHubPullInput, detailed: boolean) {
    const merged = pull.merged ?? false;
    const state = merged ? 'closed' : (pull.state ?? 'open');
    const createdAt = githubTime(pull.createdAt ?? '2024-01-01T00:00:00Z');
    const updatedAt = githubTime(pull.updatedAt ?? pull.createdAt ?? '2024-01-01T00:00:00Z');
    const [owner = ''] = repo.fullName.split('/');
    const headRef = pull.headRef ?? `branch-${pull.number}`;
    const baseRef = pull.baseRef ?? repo.defaultBranch;
    const small = { id: repo.id, name: repo.fullName.split('/')[1], full_name: repo.fullName };
    return {
      url: `${origin()}/repos/${repo.fullName}/pulls/${pull.number}`,
      id: repo.id * 10_000 + pull.number,
      number: pull.number,
      state,
      locked: false,
      title: pull.title ?? `Pull request ${pull.number}`,
      user: { login: pull.author ?? 'octocat', id: 1, type: 'User' },
      body: null,
      created_at: createdAt,
      updated_at: updatedAt,
      closed_at: state === 'closed' ? updatedAt : null,
      merged_at: merged ? githubTime(pull.mergedAt ?? updatedAt) : null,
      draft: pull.draft ?? false,
      html_url: `${origin()}/${repo.fullName}/pull/${pull.number}`,
      head: { label: `${owner}:${headRef}`, ref: headRef, sha: pull.headSha, repo: small },
      base: { label: `${owner}:${baseRef}`, ref: baseRef, sha: pull.baseSha ?? null, repo: small },
      ...(detailed ? { merged, mergeable: null, comments: 0, commits: 1 } : {}),
    };
  }

  function runJson(repo: GitHubRepo, run: GitHubRunInput) {
    const createdAt = githubTime(run.createdAt ?? '2024-01-01T00:00:00Z');
    const status = run.status ?? 'completed';
    return {
      id: run.id,
      name: run.name ?? 'CI',
      display_title: run.name ?? 'CI',
      head_branch: run.headBranch ?? null,
      head_sha: run.headSha,
      event: run.event ?? 'pull_request',
      status,
      conclusion: run.conclusion === undefined ? (status === 'completed' ? 'success' : null) : run.conclusion,
      workflow_id: 1,
      run_number: run.id,
      run_attempt: run.runAttempt ?? 1,
      html_url: `${origin()}/${repo.fullName}/actions/runs/${run.id}`,
      url: `${origin()}/repos/${repo.fullName}/actions/runs/${run.id}`,
      jobs_url: `${origin()}/repos/${repo.fullName}/actions/runs/${run.id}/jobs`,
      created_at: createdAt,
      updated_at: githubTime(run.updatedAt ?? run.createdAt ?? '2024-01-01T00:00:00Z'),
    };
  }

  function jobJson(repo: GitHubRepo, run: GitHubRunInput, job: GitHubJobInput) {
    const status = job.status ?? 'completed';
    return {
      id: job.id,
      run_id: run.id,
      run_attempt: run.runAttempt ?? 1,
      head_sha: run.headSha,
      name: job.name,
      status,
      conclusion: job.conclusion === undefined ? (status === 'completed' ? 'success' : null) : job.conclusion,
      started_at: githubTime(job.startedAt ?? '2024-01-01T00:00:00Z'),
      completed_at: job.completedAt === null ? null : githubTime(job.completedAt ?? job.startedAt ?? '2024-01-01T00:00:00Z'),
      html_url: `${origin()}/${repo.fullName}/actions/runs/${run.id}/job/${job.id}`,
      url: `${origin()}/repos/${repo.fullName}/actions/jobs/${job.id}`,
      steps: [],
    };
  }

  /** A page of `items`, with GitHub's Link header when there is more than one page. */
  function listReply(request: http.IncomingMessage, url: URL, items: unknown[], wrap?: (page: unknown[], total: number) => unknown): Reply {
    const page = paginate(items, url, 30);
    const rels: { rel: string; page: number }[] = [];
    if (page.page > 1) rels.push({ rel: 'prev', page: Math.min(page.page - 1, page.totalPages) });
    if (page.page < page.totalPages) rels.push({ rel: 'next', page: page.page + 1 }, { rel: 'last', page: page.totalPages });
    if (page.page > 1) rels.push({ rel: 'first', page: 1 });
    const headers: Record<string, string> = rels.length > 0 ? { link: linkHeader(request, url, page, rels) } : {};
    return { status: 200, json: wrap ? wrap(page.items, page.total) : page.items, headers };
  }

  function oauth(request: http.IncomingMessage, url: URL, body: string): Reply {
    const params = paramsOf(request, url, body);
    const wantsJson = (request.headers.accept ?? '').includes('json');
    const answer = (fields: Record<string, string>): Reply =>
      wantsJson ? { status: 200, json: fields } : { status: 200, text: new URLSearchParams(fields).toString(), contentType: 'application/x-www-form-urlencoded; charset=utf-8' };
    const entry = codes.get(params.code ?? '');
    if (!entry) return answer({ error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.', error_uri: `${GITHUB_DOCS}/oauth` });
    if (params.client_id !== entry.clientId || params.client_secret !== entry.clientSecret) {
      return answer({ error: 'incorrect_client_credentials', error_description: 'The client_id and/or client_secret passed are incorrect.', error_uri: `${GITHUB_DOCS}/oauth` });
    }
    if (entry.redirectUri !== undefined && params.redirect_uri !== undefined && params.redirect_uri !== entry.redirectUri) {
      return answer({ error: 'redirect_uri_mismatch', error_description: 'The redirect_uri MUST match the registered callback URL for this application.', error_uri: `${GITHUB_DOCS}/oauth` });
    }
    codes.delete(params.code ?? '');
    access.issue(entry.token);
    return answer({ access_token: entry.token, token_type: 'bearer', scope: entry.scope ?? 'repo' });
  }

  function serveLog(url: URL, jobId: number): Reply {
    const link = logLinks.get(jobId);
    if (!link || url.searchParams.get('sig') !== link.signature) {
      return { status: 403, text: '<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code></Error>', contentType: 'application/xml' };
    }
    for (const { jobs } of repoOf(link.repo).runs.values()) {
      const job = jobs.find((candidate) => candidate.id === jobId);
      if (job?.log !== undefined) return { status: 200, text: job.log, contentType: 'text/plain' };
    }
    return { status: 404, text: 'BlobNotFound', contentType: 'text/plain' };
  }

  function api(request: http.IncomingMessage, url: URL, body: string, repo: GitHubRepo, rest: string[]): Reply {
    const method = request.method ?? 'GET';
    const [first, second, third, fourth] = rest;
    if (method === 'GET' && rest.length === 0) return { status: 200, json: repoJson(repo) };
    if (method === 'GET' && first === 'pulls' && rest.length === 1) {
      const state = url.searchParams.get('state') ?? 'open';
      const pulls = [...repo.pulls.values()]
        .map((pull) => pullJson(repo, pull, false))
        .filter((pull) => state === 'all' || pull.state === state)
        .sort((a, b) => b.number - a.number);
      return listReply(request, url, pulls);
    }
    if (method === 'GET' && first === 'pulls' && rest.length === 2) {
      const pull = repo.pulls.get(Number(second));
      return pull ? { status: 200, json: pullJson(repo, pull, true) } : githubError(404, 'Not Found');
    }
    if (method === 'GET' && first === 'commits' && rest.length === 2) {
      const sha = repo.files.get(`\0branch\0${second}`) ?? (/^[0-9a-f]{7,40}$/.test(second!) ? second : undefined);
      return sha ? { status: 200, json: { sha, commit: { message: `commit ${sha}` } } } : githubError(422, `No commit found for SHA: ${second}`);
    }
    if (method === 'GET' && first === 'contents' && rest.length >= 2) {
      const path = rest.slice(1).join('/');
      const ref = url.searchParams.get('ref') ?? repo.defaultBranch;
      const text = repo.files.get(`${ref}\0${path}`);
      if (text === undefined) return githubError(404, 'Not Found');
      if (/application\/vnd\.github(\.v3)?\.raw/.test(request.headers.accept ?? '')) return { status: 200, text, contentType: 'text/plain; charset=utf-8' };
      const sha = gitBlobSha(text);
      return {
        status: 200,
        json: {
          type: 'file',
          encoding: 'base64',
          size: Buffer.byteLength(text),
          name: path.split('/').pop(),
          path,
          content: githubBase64(text),
          sha,
          url: `${origin()}/repos/${repo.fullName}/contents/${path}?ref=${encodeURIComponent(ref)}`,
          html_url: `${origin()}/${repo.fullName}/blob/${ref}/${path}`,
        },
      };
    }
    if (method === 'POST' && first === 'statuses' && rest.length === 2 && second) {
      const params = paramsOf(request, url, body);
      const state = params.state ?? '';
      if (!GITHUB_STATUS_STATES.has(state)) {
        return { status: 422, json: { message: 'Validation Failed', errors: [{ resource: 'Status', field: 'state', code: 'custom' }], documentation_url: GITHUB_DOCS, status: '422' } };
      }
      const createdAt = githubTime(new Date().toISOString());
      const status: GitHubStatus = { sha: second, state, context: params.context ?? 'default', description: params.description ?? null, targetUrl: params.target_url ?? null, createdAt };
      repo.statuses.push(status);
      const id = nextStatusId++;
      return {
        status: 201,
        json: { id, url: `${origin()}/repos/${repo.fullName}/statuses/${second}`, state, description: status.description, target_url: status.targetUrl, context: status.context, created_at: createdAt, updated_at: createdAt, creator: { login: 'octocat', id: 1 } },
      };
    }
    if (method === 'GET' && first === 'actions' && second === 'runs' && rest.length === 2) {
      const headSha = url.searchParams.get('head_sha');
      const branch = url.searchParams.get('branch');
      const status = url.searchParams.get('status');
      const runs = [...repo.runs.values()]
        .map(({ run }) => runJson(repo, run))
        .filter((run) => (headSha === null || run.head_sha === headSha) && (branch === null || run.head_branch === branch) && (status === null || run.status === status || run.conclusion === status))
        .sort((a, b) => b.id - a.id);
      return listReply(request, url, runs, (page, total) => ({ total_count: total, workflow_runs: page }));
    }
    if (method === 'GET' && first === 'actions' && second === 'runs' && fourth === 'jobs' && rest.length === 4) {
      const entry = repo.runs.get(Number(third));
      if (!entry) return githubError(404, 'Not Found');
      const jobs = entry.jobs.map((job) => jobJson(repo, entry.run, job));
      return listReply(request, url, jobs, (page, total) => ({ total_count: total, jobs: page }));
    }
    if (method === 'GET' && first === 'actions' && second === 'jobs' && fourth === 'logs' && rest.length === 4) {
      const jobId = Number(third);
      const owned = [...repo.runs.values()].some(({ jobs }) => jobs.some((job) => job.id === jobId && job.log !== undefined));
      if (!owned) return githubError(404, 'Not Found');
      const signature = randomBytes(12).toString('hex');
      logLinks.set(jobId, { signature, repo: repo.fullName.toLowerCase() });
      return { status: 302, headers: { location: `http://${request.headers.host ?? '127.0.0.1'}/_blob/github/job-logs/${jobId}?sig=${signature}` } };
    }
    return githubError(404, 'Not Found');
  }

  function handle(request: http.IncomingMessage, url: URL, body: string): Reply {
    const logMatch = LOG_PATH.exec(url.pathname);
    if (request.method === 'GET' && logMatch) return serveLog(url, Number(logMatch[1]));
    const header = request.headers.authorization ?? '';
    const match = /^(token|bearer)\s+(\S+)\s*$/i.exec(header);
    const scheme = match ? (match[1]!.toLowerCase() as 'token' | 'bearer') : null;
    const token = match ? match[2]! : null;
    const entry = recorder.record(request, url, scheme, token);
    const reply = ((): Reply => {
      if (request.method === 'POST' && url.pathname === '/login/oauth/access_token') return oauth(request, url, body);
      const failure = failures.take();
      if (failure !== null) return githubError(failure, 'Injected failure');
      if (token === null || !access.isKnown(token)) return githubError(401, 'Bad credentials');
      const segments = segmentsOf(url.pathname);
      if (!segments || segments[0] !== 'repos' || segments.length < 3) return githubError(404, 'Not Found');
      const repo = repos.get(`${segments[1]}/${segments[2]}`.toLowerCase());
      if (!repo || !access.canRead(repo.fullName.toLowerCase(), token)) return githubError(404, 'Not Found');
      return api(request, url, body, repo, segments.slice(3));
    })();
    entry.status = reply.status;
    reply.headers = {
      'x-github-request-id': randomBytes(8).toString('hex').toUpperCase(),
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
      'x-ratelimit-resource': 'core',
      ...reply.headers,
    };
    return reply;
  }

  const host: GitHubHost = {
    baseUrl: '',
    oauthTokenUrl: '',
    addRepo(fullName, options = {}) {
      const key = fullName.toLowerCase();
      repos.set(key, {
        id: options.id ?? nextRepoId++,
        fullName,
        defaultBranch: options.defaultBranch ?? 'main',
        private: options.private ?? true,
        pulls: new Map(),
        files: new Map(),
        runs: new Map(),
        statuses: [],
      });
      const tokens = options.token === undefined ? [] : Array.isArray(options.token) ? options.token : [options.token];
      for (const token of tokens) access.grant(key, token);
    },
    grantToken(fullName, token) {
      access.grant(repoOf(fullName).fullName.toLowerCase(), token);
    },
    revokeToken: access.revoke,
    addPull(fullName, pull) {
      repoOf(fullName).pulls.set(pull.number, { ...pull });
    },
    updatePull(fullName, number, change) {
      const pulls = repoOf(fullName).pulls;
      const pull = pulls.get(number);
      if (!pull) throw new Error(`No pull request #${number} in ${fullName}`);
      pulls.set(number, { ...pull, updatedAt: new Date().toISOString(), ...change });
    },
    setFile(fullName, ref, path, text) {
      repoOf(fullName).files.set(`${ref}\0${path.replace(/^\/+/, '')}`, text);
    },
    setBranch(fullName, branch, sha) {
      repoOf(fullName).files.set(`\0branch\0${branch}`, sha);
    },
    addRun(fullName, run, jobs = []) {
      repoOf(fullName).runs.set(run.id, { run: { ...run }, jobs: jobs.map((job) => ({ ...job })) });
    },
    statuses: (fullName) => [...repoOf(fullName).statuses],
    addOAuthCode(code, token, options) {
      codes.set(code, { token, ...options });
    },
    requests: recorder.requests,
    tokenOf: recorder.tokenOf,
    failNext: failures.failNext,
  };
  return { host, handle };
}
