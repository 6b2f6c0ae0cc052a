// The shapes of the agent work routes (docs/agent-goals.md): intents, goals, staged actions, incidents.
import { z } from 'zod';
import {
  GOAL_EXECUTIONS,
  GOAL_OUTCOMES,
  GOAL_STATUSES,
  INCIDENT_SEVERITIES,
  MAX_GOAL_STEPS,
  STAGED_STATUSES,
  STEP_STATUSES,
} from '../../../domain/agents/agentWorkEvents.ts';
import { approvalRequesterSchema } from '../../../domain/ai/approvalEvents.ts';

const title = z.string().trim().min(1).max(200);
const text = (max: number) => z.string().max(max);
/** An agent role's name, as /agent/roles names them. */
const roleName = z.string().trim().min(1).max(100);
const requesterSchema = approvalRequesterSchema;

// Intents

export const createIntentBody = z.object({ title, description: text(4000).nullish(), role: roleName.nullish() }).strict();
export type CreateIntentBody = z.infer<typeof createIntentBody>;
export const updateIntentBody = z.object({ title: title.optional(), description: text(4000).nullish(), role: roleName.nullish() }).strict();
export type UpdateIntentBody = z.infer<typeof updateIntentBody>;
export const closeIntentBody = z.object({ reason: text(2000).nullish() }).strict();

export const intentSchema = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  role: z.string().nullable(),
  status: z.enum(['open', 'closed']),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  closedBy: z.string().nullable(),
  closedAt: z.string().nullable(),
  closeReason: z.string().nullable(),
});
export type IntentView = z.infer<typeof intentSchema>;

// Goals

export const goalStepBody = z.object({ skill: z.string().trim().min(1).max(100), input: z.record(z.string(), z.unknown()).default({}) }).strict();
export const createGoalBody = z
  .object({
    title,
    instructions: text(8000).nullish(),
    steps: z.array(goalStepBody).max(MAX_GOAL_STEPS).optional(),
    role: roleName.nullish(),
    intentId: z.string().max(100).nullish(),
    execution: z.enum(GOAL_EXECUTIONS),
    /** false: record the goal as planned (decompose it, then run it with decompose's `start`); default true. */
    start: z.boolean().optional(),
  })
  .strict();
export type CreateGoalBody = z.infer<typeof createGoalBody>;
export const decomposeBody = z.object({ start: z.boolean().optional() }).strict();
export const settleBody = z.object({ outcome: z.enum(GOAL_OUTCOMES), summary: text(4000).nullish() }).strict();
export type SettleBody = z.infer<typeof settleBody>;

export const stepOutcomeSchema = z.object({
  index: z.number(),
  skill: z.string(),
  status: z.enum(STEP_STATUSES),
  approvalId: z.string().nullable(),
  stagedId: z.string().nullable(),
  code: z.string().nullable(),
  message: z.string().nullable(),
  result: z.unknown(),
});
export type StepOutcome = z.infer<typeof stepOutcomeSchema>;

export const goalSchema = z.object({
  id: z.string(),
  title: z.string(),
  instructions: z.string().nullable(),
  steps: z.array(z.object({ skill: z.string(), input: z.record(z.string(), z.unknown()) })),
  role: z.string().nullable(),
  intentId: z.string().nullable(),
  execution: z.enum(GOAL_EXECUTIONS),
  status: z.enum(GOAL_STATUSES),
  runId: z.string().nullable(),
  outcomes: z.array(stepOutcomeSchema),
  code: z.string().nullable(),
  message: z.string().nullable(),
  createdBy: z.string(),
  requester: requesterSchema,
  settlement: z.object({ outcome: z.enum(GOAL_OUTCOMES), summary: z.string().nullable(), settledBy: z.string().nullable(), settledAt: z.string() }).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type GoalView = z.infer<typeof goalSchema>;

/** A sync run's answer: the goal, and when a step waits for a person, why (202). */
export const goalRunSchema = goalSchema.extend({
  code: z.string().nullable(),
  approvalId: z.string().optional(),
  stagedId: z.string().optional(),
  runAfter: z.string().optional(),
});
/** What a 202 answers: a goal whose step waits (as goalRunSchema), or an async goal queued (`{ id, status: 'queued', runId }` only). */
export const goalAcceptedSchema = goalRunSchema.partial().extend({ id: z.string(), status: z.enum(GOAL_STATUSES), runId: z.string().nullable() });
export const goalListQuery = z.object({ status: z.enum(GOAL_STATUSES).optional(), intentId: z.string().max(100).optional() });

// Staged actions

export const vetoBody = z.object({ reason: text(2000).nullish() }).strict();
export const stagedSchema = z.object({
  id: z.string(),
  skill: z.string(),
  input: z.record(z.string(), z.unknown()),
  requester: requesterSchema,
  agent: z.object({ id: z.string(), role: z.string().nullable(), runId: z.string().nullable(), intentId: z.string().nullable() }),
  constitutionVersion: z.number().nullable(),
  runAfter: z.string(),
  status: z.enum(STAGED_STATUSES),
  vetoedBy: z.string().nullable(),
  vetoReason: z.string().nullable(),
  code: z.string().nullable(),
  message: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type StagedView = z.infer<typeof stagedSchema>;

// Incidents

export const raiseIncidentBody = z
  .object({ role: roleName, severity: z.enum(INCIDENT_SEVERITIES), title, detail: text(8000).nullish(), intentId: z.string().max(100).nullish() })
  .strict();
export type RaiseIncidentBody = z.infer<typeof raiseIncidentBody>;
export const resolveIncidentBody = z.object({ note: text(4000).nullish() }).strict();
export const incidentSchema = z.object({
  id: z.string(),
  role: z.string(),
  severity: z.enum(INCIDENT_SEVERITIES),
  title: z.string(),
  detail: z.string().nullable(),
  intentId: z.string().nullable(),
  status: z.enum(['open', 'resolved']),
  raisedBy: z.string().nullable(),
  raisedAt: z.string(),
  resolvedBy: z.string().nullable(),
  resolvedAt: z.string().nullable(),
  resolution: z.string().nullable(),
});
export type IncidentView = z.infer<typeof incidentSchema>;
