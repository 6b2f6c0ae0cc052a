// The shapes of /integrations/git: what the routes take and answer (docs/integrations.md "Git
// integration"). Tokens and webhook secrets are write-only: no answer carries a token; the webhook
// secret is answered once, by the create and by rotate-secret, for the provider's webhook settings.
import { z } from 'zod';
import { GIT_AUTH_METHODS, GIT_INTEGRATION_STATUSES, GIT_PROVIDERS } from '../../../domain/git/events.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';

/** `owner/repo` on GitHub; `group/subgroup/project` on GitLab. */
const repoFullName = z
  .string()
  .max(255)
  .regex(/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/, 'owner/repository (GitLab: group/…/project)')
  .refine((name) => !name.split('/').some((part) => part === '.' || part === '..'), 'no "." or ".." segment');
const token = z.string().min(1).max(4096).regex(/^\S+$/, 'a token has no whitespace');
/** A path inside the repository: relative, no `..`. */
const repoPath = z
  .string()
  .min(1)
  .max(500)
  .regex(/^[A-Za-z0-9_./-]+$/, 'letters, digits, _ . / -')
  .refine((path) => !path.startsWith('/') && !path.split('/').includes('..'), 'a relative path inside the repository, without ".."');

export const syncConfigBody = z
  .object({
    preview: z.boolean().optional(),
    manifestPath: repoPath.optional(),
    intentsPath: repoPath.optional(),
    branch: z.string().min(1).max(255).regex(/^[^\s~^:?*[\\]+$/, 'a branch name').nullable().optional(),
  })
  .strict();

export const createIntegrationBody = z
  .object({
    provider: z.enum(GIT_PROVIDERS),
    repoFullName,
    displayName: z.string().trim().min(1).max(200).optional(),
    authMethod: z.enum(GIT_AUTH_METHODS).default('pat'),
    token: token.optional(),
    installationId: z.string().min(1).max(100).optional(),
    sync_config: syncConfigBody.optional(),
  })
  .strict()
  .superRefine((body, issues) => {
    if (body.authMethod === 'pat' && body.token === undefined) {
      issues.addIssue({ code: 'custom', path: ['token'], message: 'A pat integration needs its token' });
    }
  });
export type CreateIntegrationInput = z.infer<typeof createIntegrationBody>;

export const updateIntegrationBody = z
  .object({
    displayName: z.string().trim().min(1).max(200).optional(),
    token: token.optional(),
    status: z.enum(GIT_INTEGRATION_STATUSES).optional(),
    sync_config: syncConfigBody.optional(),
  })
  .strict();
export type UpdateIntegrationInput = z.infer<typeof updateIntegrationBody>;

export const syncConfigSchema = z.object({ preview: z.boolean(), manifestPath: z.string(), intentsPath: z.string(), branch: z.string().nullable() });

export const integrationSchema = z.object({
  id: z.string(),
  provider: z.enum(GIT_PROVIDERS),
  repoFullName: z.string(),
  displayName: z.string(),
  authMethod: z.enum(GIT_AUTH_METHODS),
  installationId: z.string().nullable(),
  /** Whether a token is stored (never the token). */
  hasToken: z.boolean(),
  status: z.enum(GIT_INTEGRATION_STATUSES),
  sync_config: syncConfigSchema,
  /** Where the provider sends its webhooks. */
  webhookUrl: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type IntegrationView = z.infer<typeof integrationSchema>;
/** The create's and rotate-secret's answer: the webhook secret, shown this once. */
export const integrationWithSecretSchema = integrationSchema.extend({ webhookSecret: z.string() });

export const pullRequestSchema = z.object({
  number: z.number(),
  title: z.string(),
  state: z.enum(['open', 'closed', 'merged']),
  draft: z.boolean(),
  author: z.string().nullable(),
  headSha: z.string(),
  headRef: z.string(),
  baseRef: z.string(),
  url: z.string(),
  openedAt: z.string(),
  changedAt: z.string(),
  fetchedAt: z.string(),
  /** The preview site's id when sync_config.preview is on and the pull request is open. */
  previewSiteId: z.string().nullable(),
});
export type PullRequestView = z.infer<typeof pullRequestSchema>;

export const ciRunSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  conclusion: z.string().nullable(),
  commit: z.string(),
  url: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const ciLogSchema = z.object({ runId: z.string(), log: z.string(), truncated: z.boolean(), complete: z.boolean(), fetchedAt: z.string(), cached: z.boolean() });

export const validationResultSchema = z.object({
  pullRequest: z.number(),
  commit: z.string(),
  manifestPath: z.string(),
  valid: z.boolean(),
  /** The commit status posted (`svc/content-validation`). */
  status: z.object({ state: z.enum(['success', 'failure']), context: z.literal('svc/content-validation'), description: z.string() }),
  errors: z.array(z.object({ code: z.string(), message: z.string(), path: z.array(z.union([z.string(), z.number()])) })),
  diff: z.unknown(),
});

export const gitopsSyncBody = z.object({ ref: z.string().min(1).max(255).regex(/^[^\s~^:?*[\\]+$/, 'a branch, tag or commit').optional() }).strict();
export const gitopsResultSchema = z.object({
  commit: z.string(),
  path: z.string(),
  created: z.array(z.string()),
  updated: z.array(z.string()),
  closed: z.array(z.string()),
  unchanged: z.array(z.string()),
});

/** The repository's intents file (sync_config.intentsPath): each intent under a stable key. */
export const intentsFileSchema = z
  .object({
    intents: z
      .array(
        z
          .object({
            key: z.string().min(1).max(100).regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . -'),
            title: z.string().trim().min(1).max(200),
            description: z.string().max(8000).nullable().optional(),
            role: z.string().min(1).max(100).nullable().optional(),
          })
          .strict(),
      )
      .max(500),
  })
  .strict()
  .superRefine((file, issues) => {
    const seen = new Set<string>();
    file.intents.forEach((intent, index) => {
      if (seen.has(intent.key)) issues.addIssue({ code: 'custom', path: ['intents', index, 'key'], message: `The key "${intent.key}" appears twice` });
      seen.add(intent.key);
    });
  });
export type IntentsFile = z.infer<typeof intentsFileSchema>;

export const provenanceQuery = z.object({ collection: z.string().min(1).max(64), itemId: z.string().min(1).max(255) });
export const provenanceEntrySchema = z.object({
  eventId: z.string(),
  type: z.string(),
  version: z.number(),
  recordedAt: z.string(),
  commit: z.string(),
  pullRequest: z.number().nullable(),
  integrationId: z.string().nullable(),
  source: z.enum(['integration', 'declared']),
  actor: z.object({ kind: z.string(), id: z.string().nullable() }),
});

/** A pull request number of a path (a route's :number); anything else is a pull request that does not exist. */
export function assertPullNumber(value: string): number {
  const number = Number(value);
  if (!/^[1-9][0-9]{0,9}$/.test(value) || number > 2_147_483_647) throw errors.notFound(`Pull request #${value} not found`);
  return number;
}

/** A CI run id of a path (a route's :runId). */
export function assertRunId(value: string): string {
  if (!/^[1-9][0-9]{0,18}$/.test(value)) throw new AppError('NOT_FOUND', `CI run ${value} not found`);
  return value;
}

