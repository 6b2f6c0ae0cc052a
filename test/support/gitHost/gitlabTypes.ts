// The public types of the GitLab stand-in (test/support/gitHost/gitlab.ts).
import type { RecordedRequest } from './common.ts';

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
