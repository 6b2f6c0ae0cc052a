// Builders of signed webhook deliveries and their payloads, as GitHub and GitLab send them.
import { createHmac, randomUUID } from 'node:crypto';
import { githubTime } from './common.ts';
import type { GitLabMergeRequestState } from './gitlabTypes.ts';

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
