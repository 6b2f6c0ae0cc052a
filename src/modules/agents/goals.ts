// Goals (docs/agent-goals.md "Goals"): create one (its steps given, or decomposed from its instructions),
// decompose a planned one, run it (sync in the request, async as a job), settle it. The creator sees
// and settles its own goals, a site administrator every goal; another's id is 404.
import { randomUUID } from 'node:crypto';
import { MAX_GOAL_STEPS, type GoalStep } from '../../../domain/agents/agentWorkEvents.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { UserPrincipal } from '../../auth/principal.ts';
import type { AppContext } from '../../runtime/context.ts';
import { intentProviderFor } from '../ai/providers/intentProvider.ts';
import { listSkills } from '../ai/skillRunner.ts';
import type { IntentProvider, SkillDescriptor } from '../ai/skillTypes.ts';
import { findGoal, findIntent, visibleGoal } from './agentWorkQueries.ts';
import type { CreateGoalBody, GoalView, SettleBody } from './agentWorkSchemas.ts';
import { recordGoal, runGoalSteps, type RunEnd } from './goalsRunner.ts';
import { assertAgentRole } from './intents.ts';
import { requesterOf } from './stagedActions.ts';

/** Queues an async goal's run (the area's runtime: a job per run). */
export type EnqueueGoalRun = (siteId: string, goalId: string, runId: string) => Promise<void>;

/** What creating, decomposing or running a goal answers: planned (201), ran (200, or 202 while a step waits), queued (202). */
export type GoalAnswer =
  | { kind: 'planned'; goal: GoalView }
  | { kind: 'ran'; goal: GoalView; end: RunEnd }
  | { kind: 'queued'; goal: GoalView; runId: string };

/** The lines (or sentences) of instructions, each one step. */
export function instructionLines(instructions: string): string[] {
  return instructions
    .split(/\r?\n|(?<=[.;!?])\s+(?=\S)/)
    .map((line) => line.trim().replace(/[.;]$/, '').trim())
    .filter((line) => line.length > 0);
}

/** Each line of the instructions as a skill call through `provider`; a line no skill fits is 400, naming it. */
export async function decomposeWith(provider: IntentProvider, skills: readonly SkillDescriptor[], instructions: string): Promise<GoalStep[]> {
  const lines = instructionLines(instructions);
  if (lines.length === 0) throw new AppError('VALIDATION_FAILED', 'The instructions hold no step', { path: ['body', 'instructions'] });
  if (lines.length > MAX_GOAL_STEPS) {
    throw new AppError('VALIDATION_FAILED', `The instructions make ${lines.length} steps; a goal holds at most ${MAX_GOAL_STEPS}`, { path: ['body', 'instructions'] });
  }
  const steps: GoalStep[] = [];
  for (const [index, line] of lines.entries()) {
    const resolution = await provider.resolve({ message: line, skills });
    if (resolution.kind !== 'call') {
      throw new AppError('VALIDATION_FAILED', `Line ${index + 1} ("${line}") resolves to no skill call`, { path: ['body', 'instructions'], extensions: { line: index + 1, text: line } });
    }
    steps.push({ skill: resolution.call.skill, input: resolution.call.input });
  }
  return steps;
}

/** The instructions decomposed through the copilot's provider (src/modules/ai/providers), over the skills the principal may call. */
async function decomposeInstructions(context: AppContext, siteId: string, principal: UserPrincipal, instructions: string): Promise<GoalStep[]> {
  return decomposeWith(intentProviderFor(context.config), await listSkills(context, siteId, principal), instructions);
}

function assertSkills(context: AppContext, steps: readonly GoalStep[]): void {
  steps.forEach((step, index) => {
    if (!context.commands.find(step.skill)?.skill) throw new AppError('VALIDATION_FAILED', `No skill "${step.skill}"`, { path: ['body', 'steps', index, 'skill'] });
  });
}

/** The intent a goal serves: open, of this site; its role is the goal's when the goal names none. */
async function servedIntent(tx: Queryable, siteId: string, intentId: string) {
  const intent = isUuid(intentId) ? await findIntent(tx, siteId, intentId) : null;
  if (!intent) throw new AppError('VALIDATION_FAILED', 'No intent with this id', { path: ['body', 'intentId'] });
  if (intent.status !== 'open') throw new AppError('CONFLICT', 'The intent is closed: it takes no new goal', { path: ['body', 'intentId'] });
  return intent;
}

async function loadGoal(context: AppContext, siteId: string, goalId: string): Promise<GoalView> {
  return (await context.database.withSiteReads(siteId, (tx) => findGoal(tx, siteId, goalId)))!;
}

/** Runs a planned goal: sync in the request (answers when done or waiting), async as a job (answers queued). */
async function startGoal(context: AppContext, enqueue: EnqueueGoalRun, siteId: string, goal: GoalView, principal: UserPrincipal, metadata: EventMetadata): Promise<GoalAnswer> {
  const runId = randomUUID();
  if (goal.execution === 'async') {
    await recordGoal(context, siteId, goal.id, { type: 'queueRun', runId }, metadata);
    await enqueue(siteId, goal.id, runId);
    return { kind: 'queued', goal: await loadGoal(context, siteId, goal.id), runId };
  }
  await recordGoal(context, siteId, goal.id, { type: 'startRun', runId }, metadata);
  const end = await runGoalSteps(context, siteId, goal, runId, principal, metadata.requestId ? { requestId: metadata.requestId } : {});
  return { kind: 'ran', goal: await loadGoal(context, siteId, goal.id), end };
}

export async function createGoal(
  context: AppContext,
  enqueue: EnqueueGoalRun,
  siteId: string,
  principal: UserPrincipal,
  input: CreateGoalBody,
  metadata: EventMetadata,
): Promise<GoalAnswer> {
  const start = input.start ?? true;
  const instructions = input.instructions ?? null;
  if (start && !input.steps?.length && instructions === null) {
    throw new AppError('VALIDATION_FAILED', 'A goal that starts needs steps or instructions', { path: ['body', 'steps'] });
  }
  const { role, intentId } = await context.database.withSiteReads(siteId, async (tx) => {
    const intent = input.intentId ? await servedIntent(tx, siteId, input.intentId) : null;
    const goalRole = input.role ?? intent?.role ?? null;
    await assertAgentRole(tx, siteId, goalRole);
    return { role: goalRole, intentId: intent?.id ?? null };
  });
  const steps = input.steps?.length ? input.steps : start && instructions !== null ? await decomposeInstructions(context, siteId, principal, instructions) : [];
  assertSkills(context, steps);
  const goalId = randomUUID();
  await recordGoal(
    context,
    siteId,
    goalId,
    { type: 'createGoal', goal: { goalId, title: input.title, instructions, steps, role, intentId, execution: input.execution, requester: requesterOf(principal) } },
    metadata,
  );
  const goal = await loadGoal(context, siteId, goalId);
  return start ? startGoal(context, enqueue, siteId, goal, principal, metadata) : { kind: 'planned', goal };
}

/** Decomposes a planned goal's instructions into its steps (recorded); with `start`, runs it. Its creator only: the steps run for them. */
export async function decomposeGoal(
  context: AppContext,
  enqueue: EnqueueGoalRun,
  siteId: string,
  principal: UserPrincipal,
  id: string,
  start: boolean,
  metadata: EventMetadata,
): Promise<GoalAnswer> {
  const goal = await visibleGoal(context, siteId, principal, id);
  if (goal.createdBy !== principal.userId) throw errors.forbidden('Only its creator decomposes a goal: its steps run for them');
  if (goal.status !== 'planned' || goal.settlement) throw new AppError('CONFLICT', 'Only a planned goal (not yet run, not settled) is decomposed', { extensions: { status: goal.status } });
  // A goal planned with its steps and no instructions keeps them: decompose then only starts it.
  if (goal.instructions === null && goal.steps.length === 0) throw new AppError('CONFLICT', 'The goal has neither instructions to decompose nor steps');
  if (goal.instructions !== null) {
    const steps = await decomposeInstructions(context, siteId, principal, goal.instructions);
    await recordGoal(context, siteId, goal.id, { type: 'decompose', steps }, metadata);
  }
  const planned = await loadGoal(context, siteId, goal.id);
  return start ? startGoal(context, enqueue, siteId, planned, principal, metadata) : { kind: 'planned', goal: planned };
}

export async function settleGoal(context: AppContext, siteId: string, principal: UserPrincipal, id: string, input: SettleBody, metadata: EventMetadata): Promise<GoalView> {
  const goal = await visibleGoal(context, siteId, principal, id);
  await recordGoal(context, siteId, goal.id, { type: 'settle', outcome: input.outcome, summary: input.summary ?? null, settledBy: principal.userId }, metadata);
  return loadGoal(context, siteId, goal.id);
}
