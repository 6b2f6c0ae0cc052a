// Git integrations (docs/integrations.md "Git integration"): integrations, pull requests and CI,
// manifest validation, gitops, provenance, and the two public routes a provider calls.
import type { OperationCatalogue } from '../operationEntry.ts';
import { noContent } from './shapes.ts';

const providerErrors = 'A provider that refuses (a bad token, a repository it does not show), fails or times out: 502 `GIT_PROVIDER_FAILED` with `extensions.providerStatus`.';
const secretRules = 'Tokens are sealed and never answered; when the site’s encryption key has no bytes: 400 `ENCRYPTION_KEY_REQUIRED`.';

export const gitOperations: OperationCatalogue = {
  'GET /integrations/git': { summary: 'List git integrations', description: 'Oldest first, paged. Never a token or webhook secret (`hasToken` says whether one is stored).' },
  'POST /integrations/git': {
    summary: 'Connect a GitHub or GitLab repository',
    description: `\`provider\` (\`github\`, \`gitlab\`), \`repoFullName\` (\`owner/repo\`; GitLab \`group/…/project\`), \`authMethod\` (\`pat\` needs \`token\`; \`app\` gets one through OAuth), \`sync_config\` (\`preview\`, \`manifestPath\`, \`intentsPath\`, \`branch\`). The answer carries \`webhookUrl\` and \`webhookSecret\` (shown this once) for the repository’s webhook settings. A body that does not match: 400 \`VALIDATION_ERROR\` with its path; the same provider and repository again (any case): 409. ${secretRules}`,
    errors: ['VALIDATION_ERROR', 'ENCRYPTION_KEY_REQUIRED', 'CONFLICT'],
  },
  'GET /integrations/git/{id}': { summary: 'One git integration' },
  'PATCH /integrations/git/{id}': {
    summary: 'Change a git integration, or replace its token',
    description: `Display name, \`status\` (\`active\`, or \`paused\`: deliveries are verified and answered, not acted on), \`sync_config\` (merged), or a new \`token\` (the old sealed value is destroyed; \`authMethod\` becomes \`pat\`). ${secretRules}`,
    errors: ['VALIDATION_ERROR', 'ENCRYPTION_KEY_REQUIRED'],
  },
  'DELETE /integrations/git/{id}': {
    summary: 'Disconnect a git integration',
    response: noContent('Its token and webhook secret are destroyed, its pull request and CI log caches and OAuth states cleared; its history stays in the log.'),
  },
  'POST /integrations/git/{id}/rotate-secret': {
    summary: 'Rotate the webhook secret',
    description: 'The old secret stops verifying at once; the new one is answered this once as `webhookSecret`.',
    errors: ['ENCRYPTION_KEY_REQUIRED'],
  },
  'GET /integrations/git/{id}/oauth/authorize': {
    summary: 'The provider’s OAuth authorize URL',
    description: 'With a fresh single-use `state` (ten minutes). Needs the provider’s OAuth app (`SVC_GIT_<PROVIDER>_CLIENT_ID`, `_CLIENT_SECRET`): else 409 `GIT_OAUTH_NOT_CONFIGURED`.',
    errors: ['GIT_OAUTH_NOT_CONFIGURED'],
  },
  'GET /integrations/git/oauth/{provider}/callback': {
    summary: 'OAuth callback (public)',
    description: `Where the provider sends its user back: the \`state\` is spent first (a second use, another provider’s callback or an expired state: 400 \`VALIDATION_ERROR\` at \`query.state\`), then the \`code\` is exchanged and the granted token sealed on the integration (\`authMethod\` \`app\`). ${providerErrors}`,
    errors: ['VALIDATION_ERROR', 'GIT_OAUTH_NOT_CONFIGURED', 'GIT_PROVIDER_FAILED'],
  },
  'GET /integrations/git/{id}/pull-requests': {
    summary: 'Cached pull requests',
    description: 'The most recently changed first, paged; `previewSiteId` names an open pull request’s preview site when `sync_config.preview` is on. Filled by the refresh and by webhook deliveries.',
  },
  'POST /integrations/git/{id}/pull-requests/refresh': {
    summary: 'Refresh the pull request cache from the provider',
    description: `Reads the 500 most recently changed pull requests (GitLab: merge requests) and upserts them. ${providerErrors}`,
    errors: ['GIT_PROVIDER_FAILED'],
  },
  'GET /integrations/git/{id}/pull-requests/{number}/ci': {
    summary: 'CI runs of a pull request',
    description: `The runs of its head commit, live from the provider (GitHub Actions workflow runs, GitLab pipelines). An unknown pull request: 404. ${providerErrors}`,
    errors: ['GIT_PROVIDER_FAILED'],
  },
  'POST /integrations/git/{id}/pull-requests/{number}/validate': {
    summary: 'Validate a pull request’s config manifest',
    description: `Reads \`sync_config.manifestPath\` at the head commit, dry-runs it against this site (nothing is written here) and posts the commit status \`svc/content-validation\` (success or failure, with the first error) to the head. ${providerErrors}`,
    errors: ['GIT_PROVIDER_FAILED'],
  },
  'GET /integrations/git/{id}/ci-runs/{runId}/logs': {
    summary: 'A CI run’s log',
    description: `Every job’s log under its name, at most 1 MiB (\`truncated\`). A finished run’s log (\`complete\`) is cached and served from the cache after. ${providerErrors}`,
    errors: ['GIT_PROVIDER_FAILED'],
  },
  'POST /integrations/git/{id}/gitops/sync': {
    summary: 'Reconcile the intents file into content intents',
    description: `Reads \`sync_config.intentsPath\` (\`{ intents: [{ key, title, description?, role? }] }\`) at \`ref\` (default: \`sync_config.branch\`, else the default branch): a new key creates an intent, a changed one updates it, a key gone closes its intent; each change carries the commit in its metadata. An unknown ref: 400 at \`body.ref\`; a missing or invalid file: 400 \`VALIDATION_ERROR\` at \`repository.<path>…\`. ${providerErrors}`,
    errors: ['VALIDATION_ERROR', 'GIT_PROVIDER_FAILED'],
  },
  'GET /integrations/git/{id}/provenance': {
    summary: 'Which commit or pull request changed an item',
    description:
      'The item’s changes (newest first, at most 100) whose metadata names a commit: made by this integration (gitops, previews) or declared by the writing request with `X-Svc-Git-Commit` (optionally `X-Svc-Git-Pull-Request`, `X-Svc-Git-Integration`). A commit that is a cached pull request’s head names that pull request.',
  },
  'POST /integrations/git/webhook/{provider}/{siteId}/{integrationId}': {
    summary: 'Webhook receiver (public)',
    description:
      'Verified before anything is read: GitHub’s `X-Hub-Signature-256` (HMAC-SHA256 of the raw body) or GitLab’s `X-Gitlab-Token`, compared in constant time. A missing or bad signature, or an integration of another site or provider: 401. A delivery id (`X-GitHub-Delivery`, `X-Gitlab-Event-UUID`) is handled once: a replay answers 200 with `duplicate: true` and does nothing. Pull request events keep the cache and preview sites; a failed CI run raises an agent incident (role `git-sync`) and records `git_ci_failed`.',
    errors: ['VALIDATION_ERROR'],
  },
};
