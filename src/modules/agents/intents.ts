// Intents (docs/agent-goals.md "Intents"): create, change and close what a group of goals is for. Its
// creator or a site administrator changes or closes it; its agent role must exist.
import { randomUUID } from 'node:crypto';
import { intentDecider } from '../../../domain/agents/intent.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { withoutUndefined } from '../../../domain/shared/withoutUndefined.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { UserPrincipal } from '../../auth/principal.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { agentRoleExists, findIntent } from './agentWorkQueries.ts';
import type { CreateIntentBody, IntentView, UpdateIntentBody } from './agentWorkSchemas.ts';

export const intentStream = (siteId: string, intentId: string) => streamId(siteId, 'agent-intent', intentId);

/** 400 at body.role when the site has no agent role of that name. */
export async function assertAgentRole(tx: Queryable, siteId: string, role: string | null | undefined): Promise<void> {
  if (role && !(await agentRoleExists(tx, siteId, role))) {
    throw new AppError('VALIDATION_FAILED', `No agent role "${role}" (see /agent/roles)`, { path: ['body', 'role'] });
  }
}

export async function createIntent(context: AppContext, siteId: string, principal: UserPrincipal, input: CreateIntentBody, metadata: EventMetadata): Promise<IntentView> {
  const intentId = randomUUID();
  return inSiteTransaction(context, siteId, async (tx) => {
    await assertAgentRole(tx, siteId, input.role);
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: intentStream(siteId, intentId),
      decider: intentDecider,
      command: {
        type: 'createIntent',
        intentId,
        content: { title: input.title, description: input.description ?? null, role: input.role ?? null },
        createdBy: principal.userId,
      },
      metadata,
    });
    return (await findIntent(tx, siteId, intentId))!;
  });
}

/** The intent, when the caller may change it (its creator, a site administrator): else 403; another site's or an unknown id 404. */
async function ownedIntent(tx: Queryable, siteId: string, principal: UserPrincipal, id: string): Promise<IntentView> {
  const intent = await findIntent(tx, siteId, uuidOr404(id, 'Intent'));
  if (!intent) throw errors.notFound('Intent not found');
  if (!principal.admin && intent.createdBy !== principal.userId) throw errors.forbidden('Only its creator or a site administrator changes an intent');
  return intent;
}

export async function updateIntent(
  context: AppContext,
  siteId: string,
  principal: UserPrincipal,
  id: string,
  changes: UpdateIntentBody,
  metadata: EventMetadata,
): Promise<IntentView> {
  return inSiteTransaction(context, siteId, async (tx) => {
    const intent = await ownedIntent(tx, siteId, principal, id);
    await assertAgentRole(tx, siteId, changes.role);
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: intentStream(siteId, intent.id),
      decider: intentDecider,
      command: { type: 'updateIntent', changes: withoutUndefined(changes) },
      metadata,
    });
    return (await findIntent(tx, siteId, intent.id))!;
  });
}

export async function closeIntent(context: AppContext, siteId: string, principal: UserPrincipal, id: string, reason: string | null, metadata: EventMetadata): Promise<IntentView> {
  return inSiteTransaction(context, siteId, async (tx) => {
    const intent = await ownedIntent(tx, siteId, principal, id);
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: intentStream(siteId, intent.id),
      decider: intentDecider,
      command: { type: 'closeIntent', closedBy: principal.userId, reason },
      metadata,
    });
    return (await findIntent(tx, siteId, intent.id))!;
  });
}
