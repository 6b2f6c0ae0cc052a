// The public types of the GitHub stand-in (test/support/gitHost/github.ts).
import type { RecordedRequest } from './common.ts';

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
