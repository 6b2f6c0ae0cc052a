// Running a goal's steps (docs/agent-goals.md "Running"): each step through the skill runner as the
// goal's agent (`goal:<id>`, its role, the run's id, its intent) for the principal that created it.
// A step that waits for a person (an approval) or a veto window (staged) stops the run there; a
// refusal stops it too: the kill switch's AGENT_FROZEN halts it, any other error fails it. Each
// step's outcome and the run's end are recorded on the goal's stream.
import { randomUUID } from 'node:crypto';
import type { GoalStep, RunEnding } from '../../../domain/agents/agentWorkEvents.ts';
import { goalDecider, type GoalCommand } from '../../../domain/agents/goal.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { UserPrincipal } from '../../auth/principal.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { runSkill } from '../ai/skillRunner.ts';
import type { AgentIdentity, SkillOutcome } from '../ai/skillTypes.ts';
import { recordable } from '../flows/runs.ts';
import { findGoal } from './agentWorkQueries.ts';
import type { GoalView } from './agentWorkSchemas.ts';

export const goalStream = (siteId: string, goalId: string) => streamId(siteId, 'agent-goal', goalId);

/** What a run ended with, and the step that waits when it waits. */
export interface RunEnd {
  status: RunEnding;
  waiting: Extract<SkillOutcome, { status: 'pending_approval' | 'staged' }> | null;
}

export function goalAgent(goal: Pick<GoalView, 'id' | 'role' | 'intentId'>, runId: string): AgentIdentity {
  return { id: `goal:${goal.id}`, role: goal.role, runId, intentId: goal.intentId };
}

/** The metadata of the goal's own records: the goal's agent as the actor, for its creator. */
export function goalMetadata(goal: Pick<GoalView, 'id' | 'role'>, principal: UserPrincipal, requestId?: string): EventMetadata {
  return {
    actor: { kind: 'agent', id: `goal:${goal.id}` },
    ...(requestId ? { requestId } : {}),
    agent: { onBehalfOf: principal.userId, approvedBy: null, approvalId: null, role: goal.role, constitutionVersion: null },
  };
}

export async function recordGoal(context: AppContext, siteId: string, goalId: string, command: GoalCommand, metadata: EventMetadata) {
  return handleCommand(context, { siteId, streamId: goalStream(siteId, goalId), decider: goalDecider, command, metadata, lock: true });
}

const refusalEnding = (code: string): RunEnding => (code === 'AGENT_FROZEN' ? 'halted' : 'failed');

/** Runs a started run's steps in order and records how it ended. */
export async function runGoalSteps(
  context: AppContext,
  siteId: string,
  goal: GoalView,
  runId: string,
  principal: UserPrincipal,
  options: { requestId?: string } = {},
): Promise<RunEnd> {
  const agent = goalAgent(goal, runId);
  const metadata = goalMetadata(goal, principal, options.requestId);
  const finish = async (status: RunEnding, code: string | null, message: string | null, waiting: RunEnd['waiting'] = null): Promise<RunEnd> => {
    await recordGoal(context, siteId, goal.id, { type: 'finishRun', status, code, message }, metadata);
    return { status, waiting };
  };
  const noStep = { approvalId: null, stagedId: null, code: null, message: null, result: null };
  for (const call of goal.steps as GoalStep[]) {
    let outcome: SkillOutcome;
    try {
      outcome = await runSkill(context, { siteId, principal, agent, call, requestId: options.requestId ?? randomUUID() });
    } catch (error) {
      const known = error instanceof AppError;
      const code = known ? error.code : 'INTERNAL';
      const message = known ? error.message : 'The step failed unexpectedly';
      if (!known) context.logger.error({ err: error, siteId, goalId: goal.id, runId }, 'goal step failed');
      const refused = code === 'AGENT_FROZEN' || code === 'SKILL_DENIED';
      await recordGoal(context, siteId, goal.id, { type: 'recordStep', step: { ...noStep, skill: call.skill, status: refused ? 'refused' : 'failed', code, message } }, metadata);
      return finish(refusalEnding(code), code, message);
    }
    if (outcome.status === 'executed') {
      await recordGoal(context, siteId, goal.id, { type: 'recordStep', step: { ...noStep, skill: call.skill, status: 'executed', result: recordable(outcome.data) } }, metadata);
      continue;
    }
    const waiting =
      outcome.status === 'pending_approval'
        ? { ...noStep, skill: call.skill, status: outcome.status, message: outcome.message, approvalId: outcome.approvalId }
        : { ...noStep, skill: call.skill, status: outcome.status, message: outcome.message, stagedId: outcome.stagedId };
    await recordGoal(context, siteId, goal.id, { type: 'recordStep', step: waiting }, metadata);
    return outcome.status === 'pending_approval'
      ? finish('awaiting_approval', 'HITL_REQUIRED', outcome.message, outcome)
      : finish('awaiting_veto_window', null, outcome.message, outcome);
  }
  return finish('succeeded', null, null);
}

/** The job of an async goal: its principal rebuilt from the read models as they are now, then its steps. */
export async function runQueuedGoal(
  context: AppContext,
  siteId: string,
  goalId: string,
  runId: string,
  principalOf: (goal: GoalView) => Promise<UserPrincipal | null>,
): Promise<void> {
  const goal = await context.database.withSiteReads(siteId, (tx) => findGoal(tx, siteId, goalId));
  // A job that runs again finds its run started or finished: nothing to do.
  if (!goal || goal.runId !== runId || goal.status !== 'queued') return;
  const principal = await principalOf(goal);
  const metadata: EventMetadata = principal ? goalMetadata(goal, principal) : { actor: { kind: 'agent', id: `goal:${goal.id}` } };
  if (goal.settlement) {
    await recordGoal(context, siteId, goalId, { type: 'finishRun', status: 'halted', code: null, message: `The goal was settled (${goal.settlement.outcome}) before it ran` }, metadata);
    return;
  }
  if (!principal) {
    await recordGoal(
      context,
      siteId,
      goalId,
      { type: 'finishRun', status: 'failed', code: 'SKILL_DENIED', message: 'The principal the goal acts for (its user or API key) no longer exists or is no longer active' },
      metadata,
    );
    return;
  }
  const started = await recordGoal(context, siteId, goalId, { type: 'startRun', runId }, metadata);
  if (started.events.length === 0) return;
  await runGoalSteps(context, siteId, goal, runId, principal);
}
