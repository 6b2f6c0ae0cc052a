// Autonomy levels and promotions (docs/agents.md "Autonomy"): an administrator sets a role's level;
// anyone of the site (an agent's key included) asks to raise one; only a person who administers the
// site decides, once, and an approval sets the level in the same transaction.
import { randomUUID } from 'node:crypto';
import { autonomyDecider, promotionDecider } from '../../../domain/agents/autonomy.ts';
import { AUTONOMY_LEVELS, type AutonomyLevelName } from '../../../domain/agents/governanceEvents.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { UserPrincipal } from '../../auth/principal.ts';
import { handleCommandIn, inSiteTransaction, openCommandIn } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { findAutonomy, findPromotion } from './autonomyQueries.ts';
import type { AutonomyView, DecidePromotionBody, PromotionView, RequestPromotionBody } from './autonomySchemas.ts';
import { agentRoleNameOr404 } from './roles.ts';

const autonomyStream = (siteId: string, role: string) => streamId(siteId, 'agent-autonomy', role);
const promotionStream = (siteId: string, promotionId: string) => streamId(siteId, 'agent-promotion', promotionId);

function setLevelIn(context: AppContext, tx: Queryable, siteId: string, role: string, level: AutonomyLevelName, promotionId: string | null, metadata: EventMetadata) {
  return handleCommandIn(tx, context.projections, {
    siteId,
    streamId: autonomyStream(siteId, role),
    decider: autonomyDecider,
    command: { type: 'setLevel', role, level, promotionId },
    metadata,
  });
}

export async function setAutonomy(context: AppContext, siteId: string, role: string, level: AutonomyLevelName, metadata: EventMetadata): Promise<AutonomyView> {
  agentRoleNameOr404(role);
  return inSiteTransaction(context, siteId, async (tx) => {
    if (!(await findAutonomy(tx, siteId, role))) throw errors.notFound('Agent role not found');
    await setLevelIn(context, tx, siteId, role, level, null, metadata);
    return (await findAutonomy(tx, siteId, role))!;
  });
}

export async function requestPromotion(
  context: AppContext,
  siteId: string,
  principal: UserPrincipal,
  input: RequestPromotionBody,
  metadata: EventMetadata,
): Promise<PromotionView> {
  const promotionId = randomUUID();
  return inSiteTransaction(context, siteId, async (tx) => {
    const current = await findAutonomy(tx, siteId, input.role);
    if (!current) throw new AppError('VALIDATION_FAILED', `No agent role named "${input.role}"`, { path: ['body', 'role'] });
    if (AUTONOMY_LEVELS.indexOf(input.level) <= AUTONOMY_LEVELS.indexOf(current.level)) {
      throw new AppError('CONFLICT', `The role "${input.role}" is already at level ${current.level}: a promotion raises it`, { path: ['body', 'level'] });
    }
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: promotionStream(siteId, promotionId),
      decider: promotionDecider,
      command: { type: 'requestPromotion', promotionId, role: input.role, level: input.level, reason: input.reason, requestedBy: principal.userId },
      metadata,
    });
    return (await findPromotion(tx, siteId, promotionId))!;
  });
}

export async function decidePromotion(
  context: AppContext,
  siteId: string,
  principal: UserPrincipal,
  id: string,
  input: DecidePromotionBody,
  metadata: EventMetadata,
): Promise<PromotionView> {
  const promotionId = uuidOr404(id, 'Promotion request');
  return inSiteTransaction(context, siteId, async (tx) => {
    const opened = await openCommandIn(tx, context.projections, { siteId, streamId: promotionStream(siteId, promotionId), decider: promotionDecider, metadata, lock: true });
    const { role, level, status } = opened.state;
    if (status === 'absent') throw errors.notFound('Promotion request not found');
    if (status === 'pending' && input.decision === 'approved' && !(await findAutonomy(tx, siteId, role!))) {
      throw new AppError('CONFLICT', `The agent role "${role}" no longer exists: reject the request`, { path: ['body', 'decision'] });
    }
    await opened.decide({ type: 'decidePromotion', decision: input.decision, reason: input.reason ?? null, decidedBy: principal.userId });
    if (input.decision === 'approved') await setLevelIn(context, tx, siteId, role!, level!, promotionId, metadata);
    return (await findPromotion(tx, siteId, promotionId))!;
  });
}
