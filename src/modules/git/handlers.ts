// Git integration commands: connect (token and a fresh webhook secret sealed), update (display name,
// status, sync config, or a new token: the old sealed value is destroyed), rotate the webhook secret
// (the old one stops verifying at once: its sealed value is gone) and disconnect (its secrets, caches
// and OAuth states go with it).
import { randomBytes, randomUUID } from 'node:crypto';
import type { GitIntegrationChanges, GitSyncConfig } from '../../../domain/git/events.ts';
import { gitIntegrationDecider, type GitIntegrationCommand } from '../../../domain/git/integration.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { gitRepository, type GitRepository } from '../../../infra/git/gitHost.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { lockUniqueValue } from '../../runtime/uniqueness.ts';
import { destroySecret, openSecret, sealSecret, type SealTarget } from '../encryption/sealedSecrets.ts';
import { clearHostCache } from './hostCache.ts';
import { clearStates } from './oauth.ts';
import { findIntegrationOr404, hostSettings, repositoryTaken, viewOf, type IntegrationRow } from './queries.ts';
import type { CreateIntegrationInput, IntegrationView, UpdateIntegrationInput } from './schemas.ts';

export const integrationStream = (siteId: string, integrationId: string) => streamId(siteId, 'git_integration', integrationId);

const tokenTarget = (integrationId: string): SealTarget => ({ collection: '$git', itemId: integrationId, field: 'token' });
const secretTarget = (integrationId: string): SealTarget => ({ collection: '$git', itemId: integrationId, field: 'webhookSecret' });

const DEFAULT_SYNC_CONFIG: GitSyncConfig = { preview: false, manifestPath: 'svc.config.json', intentsPath: 'svc.intents.json', branch: null };

/** The integration with its repository client (its token opened). */
export async function openRepository(context: AppContext, siteId: string, integrationId: string): Promise<{ integration: IntegrationRow; repository: GitRepository }> {
  return context.database.withSiteReads(siteId, async (tx) => {
    const integration = await findIntegrationOr404(context, tx, siteId, integrationId);
    return { integration, repository: await repositoryFor(context, tx, siteId, integration) };
  });
}

/** The integration's repository client, its token opened. */
export async function repositoryFor(context: AppContext, tx: Queryable, siteId: string, integration: IntegrationRow): Promise<GitRepository> {
  const token = integration.token === null ? null : String(await openSecret(context, tx, siteId, tokenTarget(integration.id), integration.token));
  return gitRepository(hostSettings(context), integration, token);
}

/** The integration's webhook secret, opened (the receiver verifies deliveries with it). */
export function openWebhookSecret(context: AppContext, tx: Queryable, siteId: string, integration: IntegrationRow): Promise<string> {
  return openSecret(context, tx, siteId, secretTarget(integration.id), integration.webhookSecret).then(String);
}

export function runIntegrationCommand(context: AppContext, tx: Queryable, siteId: string, integrationId: string, command: GitIntegrationCommand, metadata: EventMetadata) {
  return handleCommandIn(tx, context.projections, { siteId, streamId: integrationStream(siteId, integrationId), decider: gitIntegrationDecider, command, metadata });
}

const newWebhookSecret = () => randomBytes(32).toString('hex');

export async function connectIntegration(
  context: AppContext,
  siteId: string,
  input: CreateIntegrationInput,
  metadata: EventMetadata,
): Promise<IntegrationView & { webhookSecret: string }> {
  const integrationId = randomUUID();
  const webhookSecret = newWebhookSecret();
  return inSiteTransaction(context, siteId, async (tx) => {
    await lockUniqueValue(tx, siteId, 'git-integration-repo', `${input.provider}:${input.repoFullName.toLowerCase()}`);
    if (await repositoryTaken(tx, siteId, input.provider, input.repoFullName)) {
      throw new AppError('CONFLICT', `This site already has a ${input.provider} integration with ${input.repoFullName}`, { path: ['body', 'repoFullName'] });
    }
    const token = input.token === undefined ? null : await sealSecret(context, tx, siteId, tokenTarget(integrationId), input.token, ['body', 'token']);
    const sealedSecret = await sealSecret(context, tx, siteId, secretTarget(integrationId), webhookSecret, ['body']);
    await runIntegrationCommand(
      context,
      tx,
      siteId,
      integrationId,
      {
        type: 'connect',
        integration: {
          integrationId,
          provider: input.provider,
          repoFullName: input.repoFullName,
          displayName: input.displayName ?? input.repoFullName,
          authMethod: input.authMethod,
          token,
          installationId: input.installationId ?? null,
          webhookSecret: sealedSecret,
          syncConfig: { ...DEFAULT_SYNC_CONFIG, ...input.sync_config },
        },
      },
      metadata,
    );
    return { ...viewOf(await findIntegrationOr404(context, tx, siteId, integrationId)), webhookSecret };
  });
}

export async function updateIntegration(context: AppContext, siteId: string, integrationId: string, input: UpdateIntegrationInput, metadata: EventMetadata): Promise<IntegrationView> {
  return inSiteTransaction(context, siteId, async (tx) => {
    const integration = await findIntegrationOr404(context, tx, siteId, integrationId);
    const changes: GitIntegrationChanges = {};
    if (input.displayName !== undefined) changes.displayName = input.displayName;
    if (input.status !== undefined) changes.status = input.status;
    if (input.sync_config !== undefined) changes.syncConfig = { ...integration.sync_config, ...input.sync_config };
    if (input.token !== undefined) {
      changes.token = await sealSecret(context, tx, siteId, tokenTarget(integrationId), input.token, ['body', 'token']);
      changes.authMethod = 'pat';
      await destroySecret(tx, siteId, integration.token);
    }
    await runIntegrationCommand(context, tx, siteId, integrationId, { type: 'update', changes }, metadata);
    return viewOf(await findIntegrationOr404(context, tx, siteId, integrationId));
  });
}

/** Stores a token the provider's OAuth app granted (the callback): the integration now authenticates as `app`. */
export async function storeGrantedToken(context: AppContext, tx: Queryable, siteId: string, integration: IntegrationRow, token: string, metadata: EventMetadata): Promise<void> {
  const sealed = await sealSecret(context, tx, siteId, tokenTarget(integration.id), token, ['query', 'code']);
  await destroySecret(tx, siteId, integration.token);
  await runIntegrationCommand(context, tx, siteId, integration.id, { type: 'update', changes: { token: sealed, authMethod: 'app' } }, metadata);
}

export async function rotateWebhookSecret(context: AppContext, siteId: string, integrationId: string, metadata: EventMetadata): Promise<IntegrationView & { webhookSecret: string }> {
  const webhookSecret = newWebhookSecret();
  return inSiteTransaction(context, siteId, async (tx) => {
    const integration = await findIntegrationOr404(context, tx, siteId, integrationId);
    const sealed = await sealSecret(context, tx, siteId, secretTarget(integrationId), webhookSecret, ['body']);
    await destroySecret(tx, siteId, integration.webhookSecret);
    await runIntegrationCommand(context, tx, siteId, integrationId, { type: 'rotateSecret', webhookSecret: sealed }, metadata);
    return { ...viewOf(await findIntegrationOr404(context, tx, siteId, integrationId)), webhookSecret };
  });
}

export async function disconnectIntegration(context: AppContext, siteId: string, integrationId: string, metadata: EventMetadata): Promise<void> {
  await inSiteTransaction(context, siteId, async (tx) => {
    const integration = await findIntegrationOr404(context, tx, siteId, integrationId);
    await runIntegrationCommand(context, tx, siteId, integrationId, { type: 'disconnect' }, metadata);
    await destroySecret(tx, siteId, integration.token);
    await destroySecret(tx, siteId, integration.webhookSecret);
    await clearHostCache(tx, siteId, integrationId);
    await clearStates(tx, siteId, integrationId);
  });
}
