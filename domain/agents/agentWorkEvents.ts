// Events of the agents' work (docs/agent-goals.md): intents, goals and their runs, staged actions,
// incidents. The deciders are beside them (intent.ts, goal.ts, stagedAction.ts, incident.ts).
import { z } from 'zod';
import { approvalAgentSchema, approvalRequesterSchema } from '../ai/approvalEvents.ts';
import { contentObjectSchema, type EventOf } from '../shared/eventSchema.ts';

export const intentEventSchemas = {
  'agent_intent.created': z.object({
    intentId: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    role: z.string().nullable(),
    createdBy: z.string().nullable(),
  }),
  'agent_intent.updated': z.object({
    intentId: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    role: z.string().nullable(),
    changed: z.array(z.string()),
  }),
  'agent_intent.closed': z.object({ intentId: z.string(), closedBy: z.string().nullable(), reason: z.string().nullable() }),
};
export type IntentEvent = EventOf<typeof intentEventSchemas>;

export const INCIDENT_SEVERITIES = ['info', 'warning', 'critical'] as const;
export type IncidentSeverity = (typeof INCIDENT_SEVERITIES)[number];

export const incidentEventSchemas = {
  'agent_incident.raised': z.object({
    incidentId: z.string(),
    role: z.string(),
    severity: z.enum(INCIDENT_SEVERITIES),
    title: z.string(),
    detail: z.string().nullable(),
    intentId: z.string().nullable(),
    raisedBy: z.string().nullable(),
  }),
  'agent_incident.resolved': z.object({ incidentId: z.string(), resolvedBy: z.string().nullable(), note: z.string().nullable() }),
};
export type IncidentEvent = EventOf<typeof incidentEventSchemas>;

export const STAGED_STATUSES = ['pending', 'vetoed', 'running', 'ran', 'failed'] as const;
export type StagedStatus = (typeof STAGED_STATUSES)[number];

export const stagedActionEventSchemas = {
  'agent_staged.staged': z.object({
    stagedId: z.string(),
    skill: z.string(),
    input: contentObjectSchema,
    requester: approvalRequesterSchema,
    agent: approvalAgentSchema,
    constitutionVersion: z.number().int().nullable(),
    runAfter: z.string(),
  }),
  'agent_staged.vetoed': z.object({ stagedId: z.string(), vetoedBy: z.string(), reason: z.string().nullable() }),
  'agent_staged.started': z.object({ stagedId: z.string() }),
  'agent_staged.finished': z.object({
    stagedId: z.string(),
    status: z.enum(['ran', 'failed']),
    code: z.string().nullable(),
    message: z.string().nullable(),
  }),
};
export type StagedActionEvent = EventOf<typeof stagedActionEventSchemas>;

export const GOAL_EXECUTIONS = ['sync', 'async'] as const;
export type GoalExecution = (typeof GOAL_EXECUTIONS)[number];
export const GOAL_STATUSES = ['planned', 'queued', 'running', 'succeeded', 'awaiting_approval', 'awaiting_veto_window', 'failed', 'halted'] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];
export const RUN_ENDINGS = ['succeeded', 'awaiting_approval', 'awaiting_veto_window', 'failed', 'halted'] as const;
export type RunEnding = (typeof RUN_ENDINGS)[number];
export const STEP_STATUSES = ['executed', 'pending_approval', 'staged', 'refused', 'failed'] as const;
export const GOAL_OUTCOMES = ['succeeded', 'failed', 'abandoned'] as const;
export type GoalOutcome = (typeof GOAL_OUTCOMES)[number];
/** Steps a goal holds at most. */
export const MAX_GOAL_STEPS = 20;

export const goalStepSchema = z.object({ skill: z.string(), input: contentObjectSchema });
export type GoalStep = z.infer<typeof goalStepSchema>;

export const goalEventSchemas = {
  'agent_goal.created': z.object({
    goalId: z.string(),
    title: z.string(),
    instructions: z.string().nullable(),
    steps: z.array(goalStepSchema),
    role: z.string().nullable(),
    intentId: z.string().nullable(),
    execution: z.enum(GOAL_EXECUTIONS),
    requester: approvalRequesterSchema,
  }),
  'agent_goal.decomposed': z.object({ goalId: z.string(), steps: z.array(goalStepSchema) }),
  'agent_goal.run_queued': z.object({ goalId: z.string(), runId: z.string() }),
  'agent_goal.run_started': z.object({ goalId: z.string(), runId: z.string() }),
  'agent_goal.step_recorded': z.object({
    goalId: z.string(),
    runId: z.string(),
    index: z.number().int(),
    skill: z.string(),
    status: z.enum(STEP_STATUSES),
    approvalId: z.string().nullable(),
    stagedId: z.string().nullable(),
    code: z.string().nullable(),
    message: z.string().nullable(),
    /** What the skill answered (bounded: docs/agent-goals.md). */
    result: z.unknown(),
  }),
  'agent_goal.run_finished': z.object({
    goalId: z.string(),
    runId: z.string(),
    status: z.enum(RUN_ENDINGS),
    code: z.string().nullable(),
    message: z.string().nullable(),
  }),
  'agent_goal.settled': z.object({ goalId: z.string(), outcome: z.enum(GOAL_OUTCOMES), summary: z.string().nullable(), settledBy: z.string().nullable() }),
};
export type GoalEvent = EventOf<typeof goalEventSchemas>;
