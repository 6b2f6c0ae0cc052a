// A local stand-in for GitHub's and GitLab's REST APIs (and their OAuth token endpoints), close
// enough to the real protocols that @octokit/rest and @gitbeaker/rest work against it with the
// server's origin as base URL / host. One server answers both: GitLab under /api/v4 and /oauth,
// GitHub everywhere else. Plus builders of signed webhook deliveries as the two providers send them.
//
// The parts live in test/support/gitHost/: common.ts (listener, access, recorder, pagination),
// github.ts and gitlab.ts (each with the protocol details it keeps from the real service, and its
// public types in githubTypes.ts / gitlabTypes.ts), server.ts (startGitHostServer) and
// deliveries.ts (webhook deliveries and payloads). This file is their public entry.
export type { RecordedRequest } from './gitHost/common.ts';
export type { GitHubHost, GitHubJobInput, GitHubPullInput, GitHubRunInput, GitHubStatus } from './gitHost/githubTypes.ts';
export type { GitLabHost, GitLabJobInput, GitLabMergeRequestInput, GitLabMergeRequestState, GitLabPipelineInput, GitLabStatus } from './gitHost/gitlabTypes.ts';
export { startGitHostServer } from './gitHost/server.ts';
export type { GitHostServer } from './gitHost/server.ts';
export { githubDelivery, githubPullRequestPayload, githubWorkflowRunPayload, gitlabDelivery, gitlabMergeRequestPayload, gitlabPipelinePayload } from './gitHost/deliveries.ts';
export type { WebhookDelivery } from './gitHost/deliveries.ts';
