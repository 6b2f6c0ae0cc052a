// Staged actions (docs/agent-goals.md "Staged actions"): a write an agent of autonomy `stage` asked for,
// recorded with who it acts for, as which agent and under which constitution, held for the site's veto
// window (the setting agentVetoWindowSeconds), then run by the scheduler (stagedTask.ts) unless a
// person vetoed it: the principal it acts for, or a site administrator; never an API key.
import { randomUUID } from 'node:crypto';
import { stagedActionDecider } from '../../../domain/agents/stagedAction.ts';
import type { ApprovalRequester } from '../../../domain/ai/approvalEvents.ts';
import { errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { isPerson, type Principal, type UserPrincipal } from '../../auth/principal.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import type { RunSkillOptions } from '../ai/skillTypes.ts';
import { publishNotification } from '../realtime/notifications.ts';
import { readEffectiveSetting } from '../settings/settingsStore.ts';
import { findStaged, mayRead } from './agentWorkQueries.ts';
import type { StagedView } from './agentWorkSchemas.ts';

/** The site setting: seconds a staged action waits for a veto. */
export const VETO_WINDOW_SETTING = 'agentVetoWindowSeconds';
const DEFAULT_VETO_WINDOW_SECONDS = 600;

export const stagedStream = (siteId: string, stagedId: string) => streamId(siteId, 'agent-staged', stagedId);

/** Who an agent acts for, as its credential names it (recorded; rebuilt from the read models when the call runs later). */
export function requesterOf(principal: UserPrincipal): ApprovalRequester {
  return { userId: principal.userId, via: principal.via, apiKeyId: principal.apiKeyId ?? null, roleId: principal.roleId };
}

/** The metadata of an agent's own record (the actor is the agent; for whom, under which constitution). */
export function agentRecordMetadata(options: Pick<RunSkillOptions, 'agent' | 'principal' | 'requestId'>, constitutionVersion: number | null): EventMetadata {
  return {
    actor: { kind: 'agent', id: options.agent.id },
    requestId: options.requestId,
    agent: { onBehalfOf: options.principal.userId, approvedBy: null, approvalId: null, role: options.agent.role, constitutionVersion },
  };
}

/** Records the call as a staged action (its veto window from the site's settings): its id and when it runs. */
export async function stageSkillCall(context: AppContext, options: RunSkillOptions, constitutionVersion: number | null): Promise<{ stagedId: string; runAfter: string }> {
  const { siteId, agent, call } = options;
  const stagedId = randomUUID();
  const setting = await context.database.withSiteReads(siteId, (tx) => readEffectiveSetting(tx, siteId, VETO_WINDOW_SETTING));
  const seconds = typeof setting === 'number' && setting >= 0 ? setting : DEFAULT_VETO_WINDOW_SECONDS;
  const runAfter = new Date(Date.now() + seconds * 1000).toISOString();
  const metadata = agentRecordMetadata(options, constitutionVersion);
  await handleCommand(context, {
    siteId,
    streamId: stagedStream(siteId, stagedId),
    decider: stagedActionDecider,
    command: {
      type: 'stage',
      action: {
        stagedId,
        skill: call.skill,
        input: call.input,
        requester: requesterOf(options.principal),
        agent: { id: agent.id, role: agent.role, runId: agent.runId ?? null, intentId: agent.intentId ?? null },
        constitutionVersion,
        runAfter,
      },
    },
    metadata,
  });
  await publishNotification(
    context,
    siteId,
    {
      kind: 'agents.staged',
      severity: 'info',
      title: `Agent staged ${call.skill}`,
      body: `It runs at ${runAfter} unless a person vetoes it (POST /agent/staged/${stagedId}/veto)`,
      deepLink: `/agent/staged/${stagedId}`,
      entityId: stagedId,
    },
    metadata,
  );
  return { stagedId, runAfter };
}

/** A person's veto: the principal the action acts for, or a site administrator (an API key: 403); twice or after it ran: 409. */
export async function vetoStaged(context: AppContext, siteId: string, principal: Principal, id: string, reason: string | null, metadata: EventMetadata): Promise<StagedView> {
  const stagedId = uuidOr404(id, 'Staged action');
  const staged = await context.database.withSiteReads(siteId, (tx) => findStaged(tx, siteId, stagedId));
  if (!staged || !mayRead(principal, staged)) throw errors.notFound('Staged action not found');
  if (!isPerson(principal)) throw errors.forbidden('A staged action is vetoed by a person signed in, not an API key');
  if (!principal.admin && staged.requester.userId !== principal.userId) {
    throw errors.forbidden('Only the person the agent acts for, or a site administrator, vetoes its action');
  }
  await handleCommand(context, { siteId, streamId: stagedStream(siteId, stagedId), decider: stagedActionDecider, command: { type: 'veto', vetoedBy: principal.userId, reason }, metadata });
  return (await context.database.withSiteReads(siteId, (tx) => findStaged(tx, siteId, stagedId)))!;
}
