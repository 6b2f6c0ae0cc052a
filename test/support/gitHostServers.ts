// A local stand-in for GitHub's and GitLab's REST APIs (and their OAuth token endpoints), close
// enough to the real protocols that @octokit/rest and @gitbeaker/rest work against it with the
// server's origin as base URL / host. One server answers both: GitLab under /api/v4 and /oauth,
// GitHub everywhere else. Plus builders of signed webhook deliveries as the two providers send them.
//
// Protocol details kept from the real services (checked against octokit 22 and gitbeaker 43):
// - GitHub: `Authorization: token <t>` or `Bearer <t>` (octokit sends `token <t>`, lower-case);
//   an unknown token is 401 Bad credentials, a known token without access to the repo is 404 (as
//   GitHub answers for a private repo). Lists page with `per_page`/`page` (30 by default, at most
//   100) and a `Link` header with absolute URLs (rel next/prev/first/last) when there is more than
//   one page; octokit.paginate follows rel="next". `contents/{path}` takes the path with its
//   slashes as is or encoded (octokit sends `a%2Fb.md`); the content is base64 in lines of 60
//   characters, as GitHub sends it. A job's log answers 302 to an unauthenticated URL on the same
//   server (on GitHub a signed blob-storage URL), which fetch follows; octokit returns the text.
// - GitLab: `PRIVATE-TOKEN: <t>` (gitbeaker `token`) or `Authorization: Bearer <t>` (gitbeaker
//   `oauthToken`); unknown token 401 `{ message: '401 Unauthorized' }`, no access 404
//   `{ message: '404 Project Not Found' }`. The project id and a file path are one URL-encoded
//   segment each (`group%2Fproject`, `docs%2Fa.md`); a numeric project id works as well. Lists
//   page with `per_page`/`page` (20 by default, at most 100) and send x-page, x-per-page, x-total,
//   x-total-pages, x-next-page, x-prev-page and a `Link` header (rel prev/next/first/last); gitbeaker
//   follows rel="next" (only when `page` was not given) and reads the x-* headers for showExpanded.
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface Reply {
  status: number;
  json?: unknown;
  text?: string;
  contentType?: string;
  headers?: Record<string, string>;
}
type Handler = (request: http.IncomingMessage, url: URL, body: string) => Reply | Promise<Reply>;

async function listen(handler: Handler): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer(async (request, response) => {
    let reply: Reply;
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      reply = await handler(request, new URL(request.url ?? '/', 'http://localhost'), Buffer.concat(chunks).toString('utf8'));
    } catch (error) {
      reply = { status: 400, json: { message: `Invalid request: ${(error as Error).message}` } };
    }
    const headers: Record<string, string> = { ...reply.headers };
    let text = '';
    if (reply.text !== undefined) {
      text = reply.text;
      headers['content-type'] = reply.contentType ?? 'text/plain; charset=utf-8';
    } else if (reply.json !== undefined) {
      text = JSON.stringify(reply.json);
      headers['content-type'] = reply.contentType ?? 'application/json; charset=utf-8';
    }
    headers['content-length'] = String(Buffer.byteLength(text));
    response.writeHead(reply.status, headers).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** failNext(n, status): the next n API requests answer that status. */
function createFailureInjector() {
  let remaining = 0;
  let status = 500;
  return {
    failNext(count: number, failureStatus: number) {
      remaining = count;
      status = failureStatus;
    },
    take(): number | null {
      if (remaining === 0) return null;
      remaining -= 1;
      return status;
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The raw path segments, each decoded (null when one is malformed). `/a/b%2Fc` → ['a', 'b/c']. */
function segmentsOf(pathname: string): string[] | null {
  try {
    return pathname.split('/').slice(1).map(decodeURIComponent);
  } catch {
    return null;
  }
}

/** Query parameters and a JSON or form body, merged (the body wins). */
function paramsOf(request: http.IncomingMessage, url: URL, body: string): Record<string, string> {
  const params: Record<string, string> = Object.fromEntries(url.searchParams);
  if (body.trim() === '') return params;
  const type = request.headers['content-type'] ?? '';
  if (type.includes('json') || (!type.includes('form') && body.trimStart().startsWith('{'))) {
    const parsed: unknown = JSON.parse(body);
    if (!isRecord(parsed)) throw new Error('the body is not a JSON object');
    for (const [key, value] of Object.entries(parsed)) if (value !== null && value !== undefined) params[key] = String(value);
  } else {
    for (const [key, value] of new URLSearchParams(body)) params[key] = value;
  }
  return params;
}

/** GitHub's timestamps have no milliseconds. */
function githubTime(value: string): string {
  return new Date(value).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function gitBlobSha(text: string): string {
  const content = Buffer.from(text, 'utf8');
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** Base64 in lines of 60 characters, each ended by a newline, as GitHub's contents API sends it. */
function githubBase64(text: string): string {
  const encoded = Buffer.from(text, 'utf8').toString('base64');
  return (encoded.match(/.{1,60}/g) ?? []).map((line) => `${line}\n`).join('');
}

interface Page<T> {
  items: T[];
  page: number;
  perPage: number;
  total: number;
  totalPages: number;
}

function paginate<T>(items: T[], url: URL, defaultPerPage: number): Page<T> {
  const asked = Number.parseInt(url.searchParams.get('per_page') ?? '', 10);
  const perPage = Number.isNaN(asked) || asked < 1 ? defaultPerPage : Math.min(asked, 100);
  const askedPage = Number.parseInt(url.searchParams.get('page') ?? '', 10);
  const page = Number.isNaN(askedPage) || askedPage < 1 ? 1 : askedPage;
  const totalPages = Math.max(1, Math.ceil(items.length / perPage));
  return { items: items.slice((page - 1) * perPage, page * perPage), page, perPage, total: items.length, totalPages };
}

/** `<url>; rel="next", …` with absolute URLs on the origin the client called. */
function linkHeader(request: http.IncomingMessage, url: URL, page: Page<unknown>, rels: { rel: string; page: number }[]): string {
  return rels
    .map(({ rel, page: number }) => {
      const target = new URL(`${url.pathname}${url.search}`, `http://${request.headers.host ?? '127.0.0.1'}`);
      target.searchParams.set('page', String(number));
      target.searchParams.set('per_page', String(page.perPage));
      return `<${target.toString()}>; rel="${rel}"`;
    })
    .join(', ');
}

/** Tokens per repository, plus the ones issued through OAuth. */
function createAccess() {
  const known = new Set<string>();
  const grants = new Map<string, Set<string>>();
  return {
    grant(repo: string, token: string) {
      known.add(token);
      let tokens = grants.get(repo);
      if (!tokens) grants.set(repo, (tokens = new Set()));
      tokens.add(token);
    },
    issue(token: string) {
      known.add(token);
    },
    revoke(token: string) {
      known.delete(token);
      for (const tokens of grants.values()) tokens.delete(token);
    },
    isKnown: (token: string) => known.has(token),
    canRead: (repo: string, token: string) => grants.get(repo)?.has(token) ?? false,
    /** Gives `to` the repositories of `from` (an OAuth refresh). */
    copy(from: string, to: string) {
      known.add(to);
      for (const tokens of grants.values()) if (tokens.has(from)) tokens.add(to);
    },
  };
}

/** One API request as the server saw it. The token is kept out of the record: see tokenOf(). */
export interface RecordedRequest {
  method: string;
  /** The path as sent (percent-encoding kept). */
  path: string;
  query: Record<string, string>;
  /** How the request authenticated, if it did. */
  auth: 'token' | 'bearer' | 'private-token' | null;
  status: number;
}

function createRecorder() {
  const tokens = new WeakMap<RecordedRequest, string>();
  const requests: RecordedRequest[] = [];
  return {
    requests,
    record(request: http.IncomingMessage, url: URL, auth: RecordedRequest['auth'], token: string | null): RecordedRequest {
      const entry: RecordedRequest = { method: request.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), auth, status: 0 };
      if (token !== null) tokens.set(entry, token);
      requests.push(entry);
      return entry;
    },
    tokenOf: (entry: RecordedRequest) => tokens.get(entry) ?? null,
  };
}

interface OAuthCode {
  token: string;
  clientId: string;
  clientSecret: string;
  redirectUri?: string;
  scope?: string;
  refreshToken?: string;
}

// ---------------------------------------------------------------------------------------------------
// GitHub

export interface GitHubPullInput {
  number: number;
  headSha: string;
  title?: string;
  /** Ignored when merged (a merged pull request is closed). */
  state?: 'open' | 'closed';
  merged?: boolean;
  mergedAt?: string;
  draft?: boolean;
  author?: string;
  headRef?: string;
  baseRef?: string;
  baseSha?: string;
  createdAt?: string;
  updatedAt?: string;
}

export interface GitHubRunInput {
  id: number;
  headSha: string;
  name?: string;
  headBranch?: string;
  status?: 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending';
  /** success, failure, cancelled, timed_out, …; null while not completed. */
  conclusion?: string | null;
  event?: string;
  runAttempt?: number;
  createdAt?: string;
  updatedAt?: string;
}

export interface GitHubJobInput {
  id: number;
  name: string;
  status?: 'queued' | 'in_progress' | 'completed' | 'waiting';
  conclusion?: string | null;
  /** The plain-text log; without one the log URL answers 404. */
  log?: string;
  startedAt?: string;
  completedAt?: string | null;
}

export interface GitHubStatus {
  sha: string;
  state: string;
  context: string;
  description: string | null;
  targetUrl: string | null;
  createdAt: string;
}

export interface GitHubHost {
  /** The octokit `baseUrl` (the server's origin). */
  baseUrl: string;
  /** POST here for `/login/oauth/access_token`. */
  oauthTokenUrl: string;
  /** Adds (or replaces) a repository that `token` (one or several) may read and write statuses to. */
  addRepo(fullName: string, options?: { token?: string | string[]; id?: number; defaultBranch?: string; private?: boolean }): void;
  grantToken(fullName: string, token: string): void;
  /** Later requests with this token answer 401. */
  revokeToken(token: string): void;
  /** Adds or replaces (by number) a pull request. */
  addPull(fullName: string, pull: GitHubPullInput): void;
  updatePull(fullName: string, number: number, change: Partial<Omit<GitHubPullInput, 'number'>>): void;
  /** `ref` is a branch name or a commit sha, matched as written; the API's default ref is the default branch. */
  setFile(fullName: string, ref: string, path: string, text: string): void;
  /** Points a branch at a commit: GET /repos/{o}/{r}/commits/{branch} answers it (a sha answers itself). */
  setBranch(fullName: string, branch: string, sha: string): void;
  /** Adds or replaces (by id) a workflow run and its jobs. */
  addRun(fullName: string, run: GitHubRunInput, jobs?: GitHubJobInput[]): void;
  /** The commit statuses created through the API, oldest first. */
  statuses(fullName: string): GitHubStatus[];
  /** A single-use code for /login/oauth/access_token that yields `token` to that client. */
  addOAuthCode(code: string, token: string, options: { clientId: string; clientSecret: string; redirectUri?: string; scope?: string }): void;
  /** Every request but the log downloads' redirect targets, in order. */
  requests: RecordedRequest[];
  /** The token a recorded request carried. */
  tokenOf(request: RecordedRequest): string | null;
  failNext(count: number, status: number): void;
}

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

function createGitHub(origin: () => string) {
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

// ---------------------------------------------------------------------------------------------------
// GitLab

export type GitLabMergeRequestState = 'opened' | 'closed' | 'merged' | 'locked';

export interface GitLabMergeRequestInput {
  iid: number;
  /** The head commit. */
  sha: string;
  title?: string;
  state?: GitLabMergeRequestState;
  draft?: boolean;
  author?: string;
  sourceBranch?: string;
  targetBranch?: string;
  createdAt?: string;
  updatedAt?: string;
  mergedAt?: string;
}

export interface GitLabPipelineInput {
  id: number;
  sha: string;
  iid?: number;
  ref?: string;
  /** created, pending, running, success, failed, canceled, skipped, manual, … */
  status?: string;
  source?: string;
  createdAt?: string;
  updatedAt?: string;
}

export interface GitLabJobInput {
  id: number;
  name: string;
  stage?: string;
  status?: string;
  /** The plain-text trace; without one the trace answers 404. */
  log?: string;
  startedAt?: string;
  finishedAt?: string | null;
}

export interface GitLabStatus {
  sha: string;
  state: string;
  name: string;
  description: string | null;
  targetUrl: string | null;
  ref: string | null;
  pipelineId: number | null;
  createdAt: string;
}

export interface GitLabHost {
  /** The gitbeaker `host` (the server's origin). */
  host: string;
  /** POST here for `/oauth/token`. */
  oauthTokenUrl: string;
  /** Adds (or replaces) a project, by its full path, that `token` (one or several) may use. */
  addProject(path: string, options?: { token?: string | string[]; id?: number; defaultBranch?: string }): void;
  grantToken(path: string, token: string): void;
  revokeToken(token: string): void;
  /** Adds or replaces (by iid) a merge request. */
  addMergeRequest(path: string, mergeRequest: GitLabMergeRequestInput): void;
  updateMergeRequest(path: string, iid: number, change: Partial<Omit<GitLabMergeRequestInput, 'iid'>>): void;
  setFile(path: string, ref: string, filePath: string, text: string): void;
  /** Points a branch at a commit: GET /projects/:id/repository/commits/:branch answers it (a sha answers itself). */
  setBranch(path: string, branch: string, sha: string): void;
  /** Adds or replaces (by id) a pipeline and its jobs. */
  addPipeline(path: string, pipeline: GitLabPipelineInput, jobs?: GitLabJobInput[]): void;
  statuses(path: string): GitLabStatus[];
  /**
   * A single-use code for /oauth/token (grant_type=authorization_code) that yields `token`, and a
   * refresh token (given or generated) for grant_type=refresh_token, which yields a new access
   * token with the same projects.
   */
  addOAuthCode(code: string, token: string, options: { clientId: string; clientSecret: string; redirectUri?: string; scope?: string; refreshToken?: string }): void;
  requests: RecordedRequest[];
  tokenOf(request: RecordedRequest): string | null;
  failNext(count: number, status: number): void;
}

interface GitLabProject {
  id: number;
  path: string;
  defaultBranch: string;
  mergeRequests: Map<number, GitLabMergeRequestInput>;
  files: Map<string, string>;
  pipelines: Map<number, { pipeline: GitLabPipelineInput; jobs: GitLabJobInput[] }>;
  statuses: GitLabStatus[];
}

const GITLAB_STATUS_STATES = new Set(['pending', 'running', 'success', 'failed', 'canceled', 'skipped']);
const GITLAB_MR_STATES = new Set(['opened', 'closed', 'merged', 'locked', 'all']);

function gitlabTime(value: string): string {
  return new Date(value).toISOString();
}

function createGitLab(origin: () => string) {
  const projects = new Map<string, GitLabProject>();
  const access = createAccess();
  const recorder = createRecorder();
  const failures = createFailureInjector();
  const codes = new Map<string, OAuthCode>();
  /** Refresh token → the client it was issued to and the access token it refreshes. */
  const refreshTokens = new Map<string, { token: string; clientId: string; clientSecret: string; scope: string }>();
  let nextProjectId = 1000;
  let nextStatusId = 1;

  function projectOf(path: string): GitLabProject {
    const project = projects.get(path.toLowerCase());
    if (!project) throw new Error(`No GitLab project ${path}: addProject() it first`);
    return project;
  }

  function findProject(id: string): GitLabProject | undefined {
    if (/^\d+$/.test(id)) return [...projects.values()].find((project) => project.id === Number(id));
    return projects.get(id.toLowerCase());
  }

  function projectJson(project: GitLabProject) {
    const name = project.path.split('/').pop() ?? project.path;
    return {
      id: project.id,
      name,
      path: name,
      path_with_namespace: project.path,
      name_with_namespace: project.path.split('/').join(' / '),
      namespace: { full_path: project.path.split('/').slice(0, -1).join('/') },
      default_branch: project.defaultBranch,
      visibility: 'private',
      web_url: `${origin()}/${project.path}`,
      http_url_to_repo: `${origin()}/${project.path}.git`,
    };
  }

  function mergeRequestJson(project: GitLabProject, mr: GitLabMergeRequestInput) {
    const state = mr.state ?? 'opened';
    const createdAt = gitlabTime(mr.createdAt ?? '2024-01-01T00:00:00Z');
    const updatedAt = gitlabTime(mr.updatedAt ?? mr.createdAt ?? '2024-01-01T00:00:00Z');
    return {
      id: project.id * 10_000 + mr.iid,
      iid: mr.iid,
      project_id: project.id,
      title: mr.title ?? `Merge request ${mr.iid}`,
      state,
      draft: mr.draft ?? false,
      work_in_progress: mr.draft ?? false,
      web_url: `${origin()}/${project.path}/-/merge_requests/${mr.iid}`,
      author: { id: 1, username: mr.author ?? 'gitlab-user', name: mr.author ?? 'GitLab User' },
      sha: mr.sha,
      source_branch: mr.sourceBranch ?? `branch-${mr.iid}`,
      target_branch: mr.targetBranch ?? project.defaultBranch,
      source_project_id: project.id,
      target_project_id: project.id,
      created_at: createdAt,
      updated_at: updatedAt,
      merged_at: state === 'merged' ? gitlabTime(mr.mergedAt ?? updatedAt) : null,
      closed_at: state === 'closed' ? updatedAt : null,
    };
  }

  function pipelineJson(project: GitLabProject, pipeline: GitLabPipelineInput) {
    return {
      id: pipeline.id,
      iid: pipeline.iid ?? pipeline.id,
      project_id: project.id,
      status: pipeline.status ?? 'success',
      source: pipeline.source ?? 'merge_request_event',
      sha: pipeline.sha,
      ref: pipeline.ref ?? project.defaultBranch,
      web_url: `${origin()}/${project.path}/-/pipelines/${pipeline.id}`,
      created_at: gitlabTime(pipeline.createdAt ?? '2024-01-01T00:00:00Z'),
      updated_at: gitlabTime(pipeline.updatedAt ?? pipeline.createdAt ?? '2024-01-01T00:00:00Z'),
    };
  }

  function jobJson(project: GitLabProject, pipeline: GitLabPipelineInput, job: GitLabJobInput) {
    return {
      id: job.id,
      name: job.name,
      stage: job.stage ?? 'test',
      status: job.status ?? 'success',
      ref: pipeline.ref ?? project.defaultBranch,
      started_at: gitlabTime(job.startedAt ?? '2024-01-01T00:00:00Z'),
      finished_at: job.finishedAt === null ? null : gitlabTime(job.finishedAt ?? job.startedAt ?? '2024-01-01T00:00:00Z'),
      web_url: `${origin()}/${project.path}/-/jobs/${job.id}`,
      commit: { id: pipeline.sha },
      pipeline: { id: pipeline.id, project_id: project.id, sha: pipeline.sha, ref: pipeline.ref ?? project.defaultBranch, status: pipeline.status ?? 'success' },
    };
  }

  /** A page of `items` with GitLab's pagination headers. */
  function listReply(request: http.IncomingMessage, url: URL, items: unknown[]): Reply {
    const page = paginate(items, url, 20);
    const rels: { rel: string; page: number }[] = [];
    if (page.page > 1) rels.push({ rel: 'prev', page: Math.min(page.page - 1, page.totalPages) });
    if (page.page < page.totalPages) rels.push({ rel: 'next', page: page.page + 1 });
    rels.push({ rel: 'first', page: 1 }, { rel: 'last', page: page.totalPages });
    return {
      status: 200,
      json: page.items,
      headers: {
        link: linkHeader(request, url, page, rels),
        'x-page': String(page.page),
        'x-per-page': String(page.perPage),
        'x-total': String(page.total),
        'x-total-pages': String(page.totalPages),
        'x-next-page': page.page < page.totalPages ? String(page.page + 1) : '',
        'x-prev-page': page.page > 1 ? String(page.page - 1) : '',
      },
    };
  }

  function oauth(request: http.IncomingMessage, url: URL, body: string): Reply {
    const params = paramsOf(request, url, body);
    const invalidGrant: Reply = {
      status: 400,
      json: {
        error: 'invalid_grant',
        error_description:
          'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
      },
    };
    const invalidClient: Reply = {
      status: 401,
      json: { error: 'invalid_client', error_description: 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.' },
    };
    const issue = (token: string, client: { clientId: string; clientSecret: string }, scope: string): Reply => {
      const refreshToken = randomBytes(32).toString('hex');
      refreshTokens.set(refreshToken, { token, ...client, scope });
      return { status: 200, json: { access_token: token, token_type: 'Bearer', expires_in: 7200, refresh_token: refreshToken, scope, created_at: Math.floor(Date.now() / 1000) } };
    };
    if (params.grant_type === 'authorization_code') {
      const entry = codes.get(params.code ?? '');
      if (entry && (params.client_id !== entry.clientId || params.client_secret !== entry.clientSecret)) return invalidClient;
      if (!entry || (entry.redirectUri !== undefined && params.redirect_uri !== entry.redirectUri)) return invalidGrant;
      codes.delete(params.code ?? '');
      access.issue(entry.token);
      const reply = issue(entry.token, entry, entry.scope ?? 'api');
      if (entry.refreshToken !== undefined) {
        const generated = (reply.json as { refresh_token: string }).refresh_token;
        refreshTokens.set(entry.refreshToken, refreshTokens.get(generated)!);
        refreshTokens.delete(generated);
        (reply.json as { refresh_token: string }).refresh_token = entry.refreshToken;
      }
      return reply;
    }
    if (params.grant_type === 'refresh_token') {
      const entry = refreshTokens.get(params.refresh_token ?? '');
      if (entry && (params.client_id !== entry.clientId || params.client_secret !== entry.clientSecret)) return invalidClient;
      if (!entry) return invalidGrant;
      refreshTokens.delete(params.refresh_token ?? '');
      const token = randomBytes(32).toString('hex');
      access.copy(entry.token, token);
      return issue(token, entry, entry.scope);
    }
    return { status: 400, json: { error: 'unsupported_grant_type', error_description: 'The authorization grant type is not supported by the authorization server.' } };
  }

  function api(request: http.IncomingMessage, url: URL, body: string, project: GitLabProject, rest: string[]): Reply {
    const method = request.method ?? 'GET';
    const [first, second, third, fourth] = rest;
    if (method === 'GET' && rest.length === 0) return { status: 200, json: projectJson(project) };
    if (method === 'GET' && first === 'merge_requests' && rest.length === 1) {
      const state = url.searchParams.get('state') ?? 'all';
      if (!GITLAB_MR_STATES.has(state)) return { status: 400, json: { error: 'state does not have a valid value' } };
      const mergeRequests = [...project.mergeRequests.values()]
        .map((mr) => mergeRequestJson(project, mr))
        .filter((mr) => state === 'all' || mr.state === state)
        .sort((a, b) => b.iid - a.iid);
      return listReply(request, url, mergeRequests);
    }
    if (method === 'GET' && first === 'merge_requests' && rest.length === 2) {
      const mr = project.mergeRequests.get(Number(second));
      return mr ? { status: 200, json: mergeRequestJson(project, mr) } : { status: 404, json: { message: '404 Not found' } };
    }
    if (method === 'GET' && first === 'repository' && second === 'commits' && rest.length === 3) {
      const sha = project.files.get(`\0branch\0${third}`) ?? (/^[0-9a-f]{7,40}$/.test(third!) ? third : undefined);
      return sha ? { status: 200, json: { id: sha, short_id: sha.slice(0, 8), title: `commit ${sha}` } } : { status: 404, json: { message: '404 Commit Not Found' } };
    }
    if (method === 'GET' && first === 'repository' && second === 'files' && third !== undefined && (rest.length === 3 || (rest.length === 4 && fourth === 'raw'))) {
      const ref = url.searchParams.get('ref') ?? project.defaultBranch;
      const text = project.files.get(`${ref}\0${third}`);
      if (text === undefined) return { status: 404, json: { message: '404 File Not Found' } };
      if (fourth === 'raw') return { status: 200, text, contentType: 'text/plain; charset=utf-8' };
      return {
        status: 200,
        json: {
          file_name: third.split('/').pop(),
          file_path: third,
          size: Buffer.byteLength(text),
          encoding: 'base64',
          content: Buffer.from(text, 'utf8').toString('base64'),
          content_sha256: createHash('sha256').update(text).digest('hex'),
          ref,
          blob_id: gitBlobSha(text),
        },
      };
    }
    if (method === 'POST' && first === 'statuses' && rest.length === 2 && second) {
      const params = paramsOf(request, url, body);
      const state = params.state ?? '';
      if (!GITLAB_STATUS_STATES.has(state)) return { status: 400, json: { error: 'state does not have a valid value' } };
      const createdAt = gitlabTime(new Date().toISOString());
      const status: GitLabStatus = {
        sha: second,
        state,
        name: params.name ?? params.context ?? 'default',
        description: params.description ?? null,
        targetUrl: params.target_url ?? null,
        ref: params.ref ?? null,
        pipelineId: params.pipeline_id === undefined ? null : Number(params.pipeline_id),
        createdAt,
      };
      project.statuses.push(status);
      return {
        status: 201,
        json: {
          id: nextStatusId++,
          sha: second,
          ref: status.ref,
          status: state,
          name: status.name,
          target_url: status.targetUrl,
          description: status.description,
          created_at: createdAt,
          started_at: null,
          finished_at: null,
          allow_failure: false,
          coverage: null,
          author: { id: 1, username: 'gitlab-user' },
        },
      };
    }
    if (method === 'GET' && first === 'pipelines' && rest.length === 1) {
      const sha = url.searchParams.get('sha');
      const ref = url.searchParams.get('ref');
      const status = url.searchParams.get('status');
      const pipelines = [...project.pipelines.values()]
        .map(({ pipeline }) => pipelineJson(project, pipeline))
        .filter((pipeline) => (sha === null || pipeline.sha === sha) && (ref === null || pipeline.ref === ref) && (status === null || pipeline.status === status))
        .sort((a, b) => b.id - a.id);
      return listReply(request, url, pipelines);
    }
    if (method === 'GET' && first === 'pipelines' && third === 'jobs' && rest.length === 3) {
      const entry = project.pipelines.get(Number(second));
      if (!entry) return { status: 404, json: { message: '404 Not found' } };
      const scope = url.searchParams.getAll('scope[]').concat(url.searchParams.getAll('scope'));
      const jobs = entry.jobs
        .map((job) => jobJson(project, entry.pipeline, job))
        .filter((job) => scope.length === 0 || scope.includes(job.status))
        .sort((a, b) => b.id - a.id);
      return listReply(request, url, jobs);
    }
    if (method === 'GET' && first === 'jobs' && third === 'trace' && rest.length === 3) {
      for (const { jobs } of project.pipelines.values()) {
        const job = jobs.find((candidate) => candidate.id === Number(second));
        if (job?.log !== undefined) return { status: 200, text: job.log, contentType: 'text/plain' };
      }
      return { status: 404, json: { message: '404 Not found' } };
    }
    return { status: 404, json: { error: '404 Not Found' } };
  }

  function handle(request: http.IncomingMessage, url: URL, body: string): Reply {
    const privateToken = request.headers['private-token'];
    const bearer = /^bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const token = typeof privateToken === 'string' && privateToken !== '' ? privateToken : bearer ? bearer[1]! : null;
    const scheme = typeof privateToken === 'string' && privateToken !== '' ? 'private-token' : bearer ? 'bearer' : null;
    const entry = recorder.record(request, url, scheme, token);
    const reply = ((): Reply => {
      if (request.method === 'POST' && url.pathname === '/oauth/token') return oauth(request, url, body);
      const failure = failures.take();
      if (failure !== null) return { status: failure, json: { message: 'Injected failure' } };
      if (token === null || !access.isKnown(token)) return { status: 401, json: { message: '401 Unauthorized' } };
      const segments = segmentsOf(url.pathname);
      if (!segments || segments[0] !== 'api' || segments[1] !== 'v4' || segments[2] !== 'projects' || segments[3] === undefined) return { status: 404, json: { error: '404 Not Found' } };
      const project = findProject(segments[3]);
      if (!project || !access.canRead(project.path.toLowerCase(), token)) return { status: 404, json: { message: '404 Project Not Found' } };
      return api(request, url, body, project, segments.slice(4));
    })();
    entry.status = reply.status;
    if (reply.json !== undefined && reply.contentType === undefined) reply.contentType = 'application/json';
    return reply;
  }

  const host: GitLabHost = {
    host: '',
    oauthTokenUrl: '',
    addProject(path, options = {}) {
      const key = path.toLowerCase();
      projects.set(key, {
        id: options.id ?? nextProjectId++,
        path,
        defaultBranch: options.defaultBranch ?? 'main',
        mergeRequests: new Map(),
        files: new Map(),
        pipelines: new Map(),
        statuses: [],
      });
      const tokens = options.token === undefined ? [] : Array.isArray(options.token) ? options.token : [options.token];
      for (const token of tokens) access.grant(key, token);
    },
    grantToken(path, token) {
      access.grant(projectOf(path).path.toLowerCase(), token);
    },
    revokeToken: access.revoke,
    addMergeRequest(path, mergeRequest) {
      projectOf(path).mergeRequests.set(mergeRequest.iid, { ...mergeRequest });
    },
    updateMergeRequest(path, iid, change) {
      const mergeRequests = projectOf(path).mergeRequests;
      const mr = mergeRequests.get(iid);
      if (!mr) throw new Error(`No merge request !${iid} in ${path}`);
      mergeRequests.set(iid, { ...mr, updatedAt: new Date().toISOString(), ...change });
    },
    setFile(path, ref, filePath, text) {
      projectOf(path).files.set(`${ref}\0${filePath.replace(/^\/+/, '')}`, text);
    },
    setBranch(path, branch, sha) {
      projectOf(path).files.set(`\0branch\0${branch}`, sha);
    },
    addPipeline(path, pipeline, jobs = []) {
      projectOf(path).pipelines.set(pipeline.id, { pipeline: { ...pipeline }, jobs: jobs.map((job) => ({ ...job })) });
    },
    statuses: (path) => [...projectOf(path).statuses],
    addOAuthCode(code, token, options) {
      codes.set(code, { token, ...options });
    },
    requests: recorder.requests,
    tokenOf: recorder.tokenOf,
    failNext: failures.failNext,
  };
  return { host, handle };
}

// ---------------------------------------------------------------------------------------------------
// The server

export interface GitHostServer {
  origin: string;
  github: GitHubHost;
  gitlab: GitLabHost;
  close(): Promise<void>;
}

export async function startGitHostServer(): Promise<GitHostServer> {
  let origin = '';
  const github = createGitHub(() => origin);
  const gitlab = createGitLab(() => origin);
  const listener = await listen((request, url, body) =>
    url.pathname.startsWith('/api/v4/') || url.pathname === '/oauth/token' ? gitlab.handle(request, url, body) : github.handle(request, url, body),
  );
  origin = listener.origin;
  github.host.baseUrl = origin;
  github.host.oauthTokenUrl = `${origin}/login/oauth/access_token`;
  gitlab.host.host = origin;
  gitlab.host.oauthTokenUrl = `${origin}/oauth/token`;
  return { origin, github: github.host, gitlab: gitlab.host, close: listener.close };
}

// ---------------------------------------------------------------------------------------------------
// Webhook deliveries

export interface WebhookDelivery {
  headers: Record<string, string>;
  /** The exact bytes signed / sent. */
  body: string;
}

/** A GitHub delivery: `x-hub-signature-256` is `sha256=` + hex HMAC-SHA256 of the raw body (and `x-hub-signature` the SHA-1 one, as GitHub also sends). */
export function githubDelivery(secret: string, event: string, payload: unknown, deliveryId: string = randomUUID()): WebhookDelivery {
  const body = JSON.stringify(payload);
  return {
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/a1b2c3d',
      'x-github-event': event,
      'x-github-delivery': deliveryId,
      'x-github-hook-id': '123456789',
      'x-hub-signature': `sha1=${createHmac('sha1', secret).update(body).digest('hex')}`,
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    },
    body,
  };
}

/** A GitLab delivery: the secret token is sent as is in `x-gitlab-token` (GitLab signs nothing). */
export function gitlabDelivery(token: string, event: string, payload: unknown, uuid: string = randomUUID()): WebhookDelivery {
  return {
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitLab/17.5.0',
      'x-gitlab-event': event,
      'x-gitlab-token': token,
      'x-gitlab-event-uuid': uuid,
      'x-gitlab-webhook-uuid': '8c8d9ae4-ffb5-4c4a-a8f5-3c1f9e6c2b10',
      'x-gitlab-instance': 'https://gitlab.example.com',
    },
    body: JSON.stringify(payload),
  };
}

function githubRepository(fullName: string, id: number) {
  const [owner = '', name = ''] = fullName.split('/');
  return { id, name, full_name: fullName, private: true, owner: { login: owner, id: 1, type: 'Organization' }, html_url: `https://github.com/${fullName}`, default_branch: 'main' };
}

/** A `pull_request` event payload (event name 'pull_request'). */
export function githubPullRequestPayload(options: {
  repo: string;
  number: number;
  action: 'opened' | 'synchronize' | 'closed' | 'reopened' | 'edited' | 'ready_for_review' | 'converted_to_draft';
  headSha: string;
  /** With action 'closed': merged or just closed. */
  merged?: boolean;
  /** The previous head, for 'synchronize'. */
  before?: string;
  title?: string;
  headRef?: string;
  baseRef?: string;
  draft?: boolean;
  author?: string;
  repoId?: number;
}): Record<string, unknown> {
  const merged = options.action === 'closed' && (options.merged ?? false);
  const now = githubTime(new Date().toISOString());
  const headRef = options.headRef ?? `branch-${options.number}`;
  const repository = githubRepository(options.repo, options.repoId ?? 100_000);
  return {
    action: options.action,
    number: options.number,
    ...(options.action === 'synchronize' ? { before: options.before ?? '0'.repeat(40), after: options.headSha } : {}),
    pull_request: {
      id: repository.id * 10_000 + options.number,
      number: options.number,
      state: options.action === 'closed' ? 'closed' : 'open',
      locked: false,
      title: options.title ?? `Pull request ${options.number}`,
      user: { login: options.author ?? 'octocat', id: 1, type: 'User' },
      draft: options.draft ?? false,
      merged,
      merged_at: merged ? now : null,
      closed_at: options.action === 'closed' ? now : null,
      created_at: now,
      updated_at: now,
      html_url: `https://github.com/${options.repo}/pull/${options.number}`,
      head: { label: `${repository.owner.login}:${headRef}`, ref: headRef, sha: options.headSha, repo: repository },
      base: { label: `${repository.owner.login}:${options.baseRef ?? 'main'}`, ref: options.baseRef ?? 'main', repo: repository },
    },
    repository,
    sender: { login: options.author ?? 'octocat', id: 1, type: 'User' },
  };
}

/** A `workflow_run` event payload (event name 'workflow_run'), completed and failed unless told otherwise. */
export function githubWorkflowRunPayload(options: {
  repo: string;
  runId: number;
  headSha: string;
  conclusion?: 'failure' | 'success' | 'cancelled' | 'timed_out' | 'action_required' | 'neutral' | 'skipped' | 'stale';
  action?: 'completed' | 'requested' | 'in_progress';
  name?: string;
  headBranch?: string;
  /** The pull requests of the run (GitHub leaves this empty for a pull request from a fork). */
  pullNumbers?: number[];
  runAttempt?: number;
  repoId?: number;
}): Record<string, unknown> {
  const action = options.action ?? 'completed';
  const now = githubTime(new Date().toISOString());
  const repository = githubRepository(options.repo, options.repoId ?? 100_000);
  const headBranch = options.headBranch ?? 'feature';
  return {
    action,
    workflow_run: {
      id: options.runId,
      name: options.name ?? 'CI',
      display_title: options.name ?? 'CI',
      head_branch: headBranch,
      head_sha: options.headSha,
      event: 'pull_request',
      status: action === 'completed' ? 'completed' : action === 'requested' ? 'queued' : 'in_progress',
      conclusion: action === 'completed' ? (options.conclusion ?? 'failure') : null,
      run_attempt: options.runAttempt ?? 1,
      run_number: options.runId,
      workflow_id: 1,
      html_url: `https://github.com/${options.repo}/actions/runs/${options.runId}`,
      jobs_url: `https://api.github.com/repos/${options.repo}/actions/runs/${options.runId}/jobs`,
      logs_url: `https://api.github.com/repos/${options.repo}/actions/runs/${options.runId}/logs`,
      created_at: now,
      updated_at: now,
      pull_requests: (options.pullNumbers ?? []).map((number) => ({
        id: repository.id * 10_000 + number,
        number,
        head: { ref: headBranch, sha: options.headSha, repo: { id: repository.id, name: repository.name } },
        base: { ref: 'main', sha: '0'.repeat(40), repo: { id: repository.id, name: repository.name } },
      })),
      repository,
      head_repository: repository,
    },
    workflow: { id: 1, name: options.name ?? 'CI', path: '.github/workflows/ci.yml' },
    repository,
    sender: { login: 'octocat', id: 1, type: 'User' },
  };
}

function gitlabProjectPayload(path: string, id: number) {
  const name = path.split('/').pop() ?? path;
  return {
    id,
    name,
    path_with_namespace: path,
    namespace: path.split('/').slice(0, -1).join('/'),
    web_url: `https://gitlab.example.com/${path}`,
    default_branch: 'main',
    git_http_url: `https://gitlab.example.com/${path}.git`,
  };
}

const MR_STATE_AFTER: Record<string, GitLabMergeRequestState> = { open: 'opened', reopen: 'opened', update: 'opened', approved: 'opened', unapproved: 'opened', close: 'closed', merge: 'merged' };

/** A `Merge Request Hook` payload (object_kind 'merge_request'). */
export function gitlabMergeRequestPayload(options: {
  project: string;
  iid: number;
  action: 'open' | 'update' | 'close' | 'reopen' | 'merge' | 'approved' | 'unapproved';
  lastCommitSha: string;
  /** The state after the action (derived from the action by default). */
  state?: GitLabMergeRequestState;
  /** The previous head, on an 'update' that pushed commits. */
  oldrev?: string;
  title?: string;
  sourceBranch?: string;
  targetBranch?: string;
  draft?: boolean;
  author?: string;
  projectId?: number;
}): Record<string, unknown> {
  const project = gitlabProjectPayload(options.project, options.projectId ?? 1000);
  const now = new Date().toISOString();
  return {
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: { id: 1, username: options.author ?? 'gitlab-user', name: options.author ?? 'GitLab User' },
    project,
    object_attributes: {
      id: project.id * 10_000 + options.iid,
      iid: options.iid,
      title: options.title ?? `Merge request ${options.iid}`,
      action: options.action,
      state: options.state ?? MR_STATE_AFTER[options.action] ?? 'opened',
      draft: options.draft ?? false,
      work_in_progress: options.draft ?? false,
      source_branch: options.sourceBranch ?? `branch-${options.iid}`,
      target_branch: options.targetBranch ?? 'main',
      source_project_id: project.id,
      target_project_id: project.id,
      url: `https://gitlab.example.com/${options.project}/-/merge_requests/${options.iid}`,
      last_commit: { id: options.lastCommitSha, message: 'Commit', timestamp: now },
      ...(options.oldrev !== undefined ? { oldrev: options.oldrev } : {}),
      created_at: now,
      updated_at: now,
    },
    repository: { name: project.name, homepage: project.web_url },
    changes: {},
  };
}

/** A `Pipeline Hook` payload (object_kind 'pipeline'), failed unless told otherwise. */
export function gitlabPipelinePayload(options: {
  project: string;
  pipelineId: number;
  sha: string;
  status?: 'failed' | 'success' | 'running' | 'pending' | 'canceled' | 'skipped' | 'created' | 'manual';
  ref?: string;
  /** The merge request of a merge-request pipeline; null for a branch pipeline. */
  mergeRequestIid?: number;
  builds?: { id: number; name: string; status: string; stage?: string }[];
  projectId?: number;
}): Record<string, unknown> {
  const project = gitlabProjectPayload(options.project, options.projectId ?? 1000);
  const status = options.status ?? 'failed';
  const now = new Date().toISOString();
  const ref = options.ref ?? 'feature';
  return {
    object_kind: 'pipeline',
    object_attributes: {
      id: options.pipelineId,
      iid: options.pipelineId,
      ref,
      tag: false,
      sha: options.sha,
      status,
      detailed_status: status,
      source: options.mergeRequestIid === undefined ? 'push' : 'merge_request_event',
      stages: ['test'],
      created_at: now,
      finished_at: ['failed', 'success', 'canceled', 'skipped'].includes(status) ? now : null,
      url: `https://gitlab.example.com/${options.project}/-/pipelines/${options.pipelineId}`,
    },
    merge_request:
      options.mergeRequestIid === undefined
        ? null
        : {
            id: project.id * 10_000 + options.mergeRequestIid,
            iid: options.mergeRequestIid,
            source_branch: ref,
            target_branch: 'main',
            state: 'opened',
            url: `https://gitlab.example.com/${options.project}/-/merge_requests/${options.mergeRequestIid}`,
          },
    user: { id: 1, username: 'gitlab-user', name: 'GitLab User' },
    project,
    commit: { id: options.sha, message: 'Commit', timestamp: now },
    builds: (options.builds ?? []).map((build) => ({ id: build.id, name: build.name, stage: build.stage ?? 'test', status: build.status })),
  };
}
