// Events of the git context (docs/integrations.md "Git integration"): an integration with a
// repository of a hosting provider, the webhook deliveries it accepted, its gitops syncs and the CI
// failures it reported. Its token and webhook secret are never in an event: `token` and
// `webhookSecret` are references to the sealed value store (`svc:sealed:<id>`).
import { z } from 'zod';
import type { EventOf } from '../shared/eventSchema.ts';

export const GIT_PROVIDERS = ['github', 'gitlab'] as const;
export type GitProvider = (typeof GIT_PROVIDERS)[number];
/** `pat`: a personal (or project) access token; `app`: a token the provider's OAuth app granted. */
export const GIT_AUTH_METHODS = ['app', 'pat'] as const;
export const GIT_INTEGRATION_STATUSES = ['active', 'paused'] as const;

export const gitSyncConfigSchema = z.object({
  /** A pull request opened or pushed to gets a preview site with its manifest's schema. */
  preview: z.boolean(),
  /** The config manifest in the repository (validated for pull requests, applied to previews). */
  manifestPath: z.string(),
  /** The intents file POST …/gitops/sync reconciles. */
  intentsPath: z.string(),
  /** The branch gitops sync reads when no ref is given (null: the repository's default branch). */
  branch: z.string().nullable(),
});
export type GitSyncConfig = z.infer<typeof gitSyncConfigSchema>;

const integrationChangesSchema = z
  .object({
    displayName: z.string(),
    status: z.enum(GIT_INTEGRATION_STATUSES),
    syncConfig: gitSyncConfigSchema,
    authMethod: z.enum(GIT_AUTH_METHODS),
    /** The sealed token's reference (a new token: the old sealed value is destroyed). */
    token: z.string(),
    installationId: z.string().nullable(),
  })
  .partial();
export type GitIntegrationChanges = z.infer<typeof integrationChangesSchema>;

export const gitEventSchemas = {
  'git_integration.connected': z.object({
    integrationId: z.string(),
    provider: z.enum(GIT_PROVIDERS),
    repoFullName: z.string(),
    displayName: z.string(),
    authMethod: z.enum(GIT_AUTH_METHODS),
    token: z.string().nullable(),
    installationId: z.string().nullable(),
    webhookSecret: z.string(),
    syncConfig: gitSyncConfigSchema,
  }),
  'git_integration.updated': z.object({ integrationId: z.string(), changes: integrationChangesSchema }),
  'git_integration.secret_rotated': z.object({ integrationId: z.string(), webhookSecret: z.string() }),
  'git_integration.disconnected': z.object({ integrationId: z.string() }),
  /** A verified webhook delivery, recorded once per delivery id (a replay finds it and does nothing). */
  'git_webhook.received': z.object({
    integrationId: z.string(),
    deliveryId: z.string(),
    event: z.string(),
    action: z.string().nullable(),
    pullRequest: z.number().nullable(),
    /** What the delivery did: `preview_synced`, `preview_closed`, `ci_failure`, `ignored`, … */
    outcome: z.string(),
  }),
  /** POST …/gitops/sync: the repository's intents file at `commit`, reconciled into content intents. */
  'git_integration.gitops_synced': z.object({
    integrationId: z.string(),
    commit: z.string(),
    path: z.string(),
    created: z.array(z.object({ key: z.string(), intentId: z.string() })),
    updated: z.array(z.string()),
    closed: z.array(z.string()),
  }),
  /** A CI run of the repository failed: an agent incident (role git-sync) was raised for it. */
  git_ci_failed: z.object({
    integrationId: z.string(),
    runId: z.string(),
    commit: z.string().nullable(),
    pullRequest: z.number().nullable(),
    conclusion: z.string(),
    incidentId: z.string(),
  }),
};
export type GitEvent = EventOf<typeof gitEventSchemas>;
