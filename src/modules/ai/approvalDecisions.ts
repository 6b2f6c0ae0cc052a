// Deciding an AI approval (docs/ai-skills.md). A person approves or rejects; an approval runs the call
// exactly once (the approval stream takes one decision: a second is 409), as the original principal
// rebuilt from the read models as they are now, through the skill runner (agent gate and rights
// checked again). A pinned stream that moved since makes it stale (409, ask again); a requester gone
// or a right lost makes it fail (the answer says why). An agent's review is recorded; only its
// rejection ends the approval: a dangerous call never runs without a person.
import { approvalDecider, type ApprovalCommand } from '../../../domain/ai/approval.ts';
import type { ApprovalDecision } from '../../../domain/ai/approvalEvents.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { Access } from '../../access/access.ts';
import { isPerson, isSiteAdmin, type Principal } from '../../auth/principal.ts';
import type { CommandClient } from '../../runtime/commandRegistry.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { readEffectiveSetting } from '../settings/settingsStore.ts';
import { approvalStream, movedPins } from './approvalRequest.ts';
import { currentRequester, findApproval, reviewCapabilityOf } from './approvalQueries.ts';
import type { ApprovalView, DecisionView } from './approvalSchemas.ts';
import { runSkill } from './skillRunner.ts';
import type { SkillCall } from './skillTypes.ts';

/** The site setting that keeps a requester from approving their own agent's call. */
export const SEPARATE_APPROVER_SETTING = 'aiSeparateApprover';

async function loadApproval(context: AppContext, siteId: string, approvalId: string): Promise<ApprovalView> {
  const approval = await context.database.withSiteReads(siteId, (tx) => findApproval(tx, siteId, approvalId));
  if (!approval) throw errors.notFound('Approval not found');
  return approval;
}

async function pendingApproval(context: AppContext, siteId: string, approvalId: string): Promise<ApprovalView> {
  const approval = await loadApproval(context, siteId, approvalId);
  if (approval.status !== 'pending_approval') throw new AppError('CONFLICT', `The approval is already ${approval.status}`, { extensions: { status: approval.status } });
  return approval;
}

async function record(context: AppContext, siteId: string, approvalId: string, command: ApprovalCommand, metadata: EventMetadata): Promise<void> {
  await handleCommand(context, { siteId, streamId: approvalStream(siteId, approvalId), decider: approvalDecider, command, metadata });
}

/**
 * An item write of the call is held to the version the approval pinned, whatever version the agent
 * named: a write in between is refused (412), not overwritten.
 */
function pinnedCall(approval: ApprovalView): SkillCall {
  const { skill, input } = approval.call;
  const pin = approval.pins[0];
  if ((skill === 'items.update' || skill === 'items.delete') && pin) {
    return { skill, input: { ...input, expectedVersion: pin.version } };
  }
  return { skill, input };
}

export interface DecideRequest {
  siteId: string;
  principal: Principal;
  approvalId: string;
  decision: ApprovalDecision;
  reason: string | null;
  access: Access;
  metadata: EventMetadata;
  client: CommandClient;
}

/** POST /ai/approvals/:id/decide. */
export async function decideApproval(context: AppContext, request: DecideRequest): Promise<DecisionView> {
  const { siteId, principal, approvalId, metadata } = request;
  const approval = await pendingApproval(context, siteId, approvalId);
  if (!isPerson(principal)) throw errors.forbidden('An approval is decided by a person signed in, not an API key');
  const separateApprover = (await context.database.withSiteReads(siteId, (tx) => readEffectiveSetting(tx, siteId, SEPARATE_APPROVER_SETTING))) === true;
  const isRequester = principal.userId === approval.requester.userId;
  if (separateApprover && isRequester) {
    throw errors.forbidden(`This site wants another person than the requester to decide (${SEPARATE_APPROVER_SETTING})`);
  }
  const capability = reviewCapabilityOf(approval.call.skill);
  if (!isRequester && !isSiteAdmin(principal)) {
    if (!request.access.hasCapability(capability)) throw errors.forbidden(`Deciding another person's approval needs a site administrator or the ${capability} capability`);
    // A reviewer decides only what they may see (the approval shows it with their read rights).
    const collection = approval.call.input.collection;
    if (typeof collection === 'string' && !request.access.can('read', collection)) throw errors.notFound('Approval not found');
  }
  if (request.decision === 'rejected') {
    await record(context, siteId, approvalId, { type: 'reject', rejectedBy: principal.userId, reason: request.reason }, metadata);
    return { approval: await loadApproval(context, siteId, approvalId), result: null };
  }

  const moved = await movedPins(context, siteId, approval.pins);
  if (moved.length > 0) await staleAndRefuse(context, siteId, approvalId, moved, metadata);
  // The one decision the stream takes: a concurrent decide loses here with 409.
  await record(context, siteId, approvalId, { type: 'approve', approvedBy: principal.userId, reason: request.reason, separateApprover }, metadata);

  const requester = await context.database.withSiteReads(siteId, (tx) => currentRequester(tx, siteId, approval.requester));
  if (!requester) {
    return fail(context, siteId, approvalId, new AppError('SKILL_DENIED', 'The requester (its user or API key) no longer exists or is no longer active'), metadata);
  }
  try {
    const outcome = await runSkill(context, {
      siteId,
      principal: requester,
      agent: approval.agent,
      call: pinnedCall(approval),
      requestId: metadata.requestId ?? approvalId,
      client: request.client,
      origin: { kind: 'approval', approvalId, approvedBy: principal.userId },
    });
    await record(context, siteId, approvalId, { type: 'markExecuted' }, metadata);
    return { approval: await loadApproval(context, siteId, approvalId), result: outcome.status === 'executed' ? outcome.data : outcome };
  } catch (error) {
    if (error instanceof AppError && error.code === 'PRECONDITION_FAILED') {
      return staleAndRefuse(context, siteId, approvalId, approval.pins.map((pin) => pin.streamId), metadata);
    }
    if (error instanceof AppError) return fail(context, siteId, approvalId, error, metadata);
    await record(context, siteId, approvalId, { type: 'markFailed', code: 'INTERNAL', message: 'The call failed unexpectedly' }, metadata);
    throw error;
  }
}

async function staleAndRefuse(context: AppContext, siteId: string, approvalId: string, moved: string[], metadata: EventMetadata): Promise<never> {
  await record(context, siteId, approvalId, { type: 'markStale', movedStreams: moved }, metadata);
  throw new AppError('CONFLICT', 'What the approval was asked for changed since (another write): it is stale; ask the agent again for a fresh approval', {
    extensions: { approvalId, status: 'stale', movedStreams: moved },
  });
}

async function fail(context: AppContext, siteId: string, approvalId: string, error: AppError, metadata: EventMetadata): Promise<DecisionView> {
  await record(context, siteId, approvalId, { type: 'markFailed', code: error.code, message: error.message }, metadata);
  return { approval: await loadApproval(context, siteId, approvalId), result: null };
}

export interface AgentReviewRequest {
  siteId: string;
  principal: Principal;
  approvalId: string;
  decision: ApprovalDecision;
  reason: string | null;
  access: Access;
  metadata: EventMetadata;
}

/** POST /agent/approvals/:id/agent-decide: an agent's review (needs `review:<area>`; never its own request). */
export async function agentReviewApproval(context: AppContext, request: AgentReviewRequest): Promise<ApprovalView> {
  const { siteId, principal, approvalId, metadata } = request;
  const approval = await pendingApproval(context, siteId, approvalId);
  const capability = reviewCapabilityOf(approval.call.skill);
  if (!request.access.hasCapability(capability)) throw errors.forbidden(`Reviewing "${approval.call.skill}" needs the ${capability} capability`);
  if (principal.kind !== 'user') throw errors.forbidden();
  await record(
    context,
    siteId,
    approvalId,
    {
      type: 'agentReview',
      decision: request.decision,
      reviewerId: principal.userId,
      reviewerApiKeyId: principal.apiKeyId ?? null,
      reviewerAgentId: metadata.actor.kind === 'agent' ? metadata.actor.id : null,
      reason: request.reason,
    },
    metadata,
  );
  return loadApproval(context, siteId, approvalId);
}
