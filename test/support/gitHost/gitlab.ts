// The GitLab stand-in of test/support/gitHostServers.ts: the REST API (under /api/v4) and the OAuth
// token endpoint.
//
// Protocol details kept from the real service (checked against gitbeaker 43):
// - GitLab: `PRIVATE-TOKEN: <t>` (gitbeaker `token`) or `Authorization: Bearer <t>` (gitbeaker
//   `oauthToken`); unknown token 401 `{ message: '401 Unauthorized' }`, no access 404
//   `{ message: '404 Project Not Found' }`. The project id and a file path are one URL-encoded
//   segment each (`group%2Fproject`, `docs%2Fa.md`); a numeric project id works as well. Lists
//   page with `per_page`/`page` (20 by default, at most 100) and send x-page, x-per-page, x-total,
//   x-total-pages, x-next-page, x-prev-page and a `Link` header (rel prev/next/first/last); gitbeaker
//   follows rel="next" (only when `page` was not given) and reads the x-* headers for showExpanded.
import { createHash, randomBytes } from 'node:crypto';
import type http from 'node:http';
import { createAccess, createFailureInjector, createRecorder, gitBlobSha, linkHeader, paginate, paramsOf, segmentsOf } from './common.ts';
import type { OAuthCode, Reply } from './common.ts';
import type { GitLabHost, GitLabJobInput, GitLabMergeRequestInput, GitLabPipelineInput, GitLabStatus } from './gitlabTypes.ts';

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

export function createGitLab(origin: () => string) {
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
