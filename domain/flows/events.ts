// Events of flows (docs/flows.md): a flow (stream `<siteId>/flow/<id>`: its whole content on every
// change, its webhook token's hash, its schedule firing) and a run (stream `<siteId>/flow-run/<id>`:
// queued with its input, started, each step's outcome, finished).
import { z } from 'zod';
import { contentObjectSchema, type EventOf } from '../shared/eventSchema.ts';

export const FLOW_STATUSES = ['draft', 'active'] as const;
export const FLOW_TRIGGERS = ['event', 'schedule', 'webhook', 'manual'] as const;
export const FLOW_ACTIONS = ['create', 'update', 'delete'] as const;
export type FlowTrigger = (typeof FLOW_TRIGGERS)[number];
export type FlowAction = (typeof FLOW_ACTIONS)[number];

export const flowNodeSchema = z.object({
  id: z.string(),
  operation: z.string(),
  options: contentObjectSchema,
  retries: z.number().int().optional(),
});
export const flowEdgeSchema = z.object({ from: z.string(), to: z.string(), when: z.enum(['success', 'failure']).optional() });
export const flowGraphSchema = z.object({ nodes: z.array(flowNodeSchema), edges: z.array(flowEdgeSchema) });
export type FlowNode = z.infer<typeof flowNodeSchema>;
export type FlowEdge = z.infer<typeof flowEdgeSchema>;
export type FlowGraph = z.infer<typeof flowGraphSchema>;

export const triggerOptionsSchema = z.object({
  collection: z.string().optional(),
  action: z.union([z.enum(FLOW_ACTIONS), z.array(z.enum(FLOW_ACTIONS))]).optional(),
  cron: z.string().optional(),
});
export type TriggerOptions = z.infer<typeof triggerOptionsSchema>;

export const flowContentSchema = z.object({
  name: z.string(),
  description: z.string().nullable(),
  status: z.enum(FLOW_STATUSES),
  trigger: z.enum(FLOW_TRIGGERS),
  triggerOptions: triggerOptionsSchema,
  graph: flowGraphSchema,
  actAs: z.object({ roleId: z.string() }).nullable(),
});
export type FlowContent = z.infer<typeof flowContentSchema>;

export const flowEventSchemas = {
  'flow.created': z.object({ flowId: z.string(), ownerId: z.string().nullable(), version: z.number().int(), flow: flowContentSchema, nextRunAt: z.string().nullable() }),
  'flow.updated': z.object({
    flowId: z.string(),
    version: z.number().int(),
    flow: flowContentSchema,
    changed: z.array(z.string()),
    nextRunAt: z.string().nullable(),
  }),
  'flow.deleted': z.object({ flowId: z.string() }),
  'flow.token_set': z.object({ flowId: z.string(), tokenHash: z.string() }),
  'flow.token_cleared': z.object({ flowId: z.string() }),
  /** A schedule flow's due time came: its run, and the next time. */
  'flow.schedule_fired': z.object({ flowId: z.string(), dueAt: z.string(), runId: z.string(), nextRunAt: z.string().nullable() }),
};
export type FlowEvent = EventOf<typeof flowEventSchemas>;

export const RUN_TRIGGERS = ['event', 'schedule', 'webhook', 'manual', 'replay', 'flow'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];
export const STEP_STATUSES = ['succeeded', 'failed', 'dry_run'] as const;

export const flowRunEventSchemas = {
  'flow_run.queued': z.object({
    runId: z.string(),
    flowId: z.string(),
    trigger: z.enum(RUN_TRIGGERS),
    /** The run's input (bounded: docs/flows.md "Runs"). */
    input: z.unknown(),
    depth: z.number().int(),
    dryRun: z.boolean(),
    replayOf: z.string().nullable(),
  }),
  'flow_run.started': z.object({ runId: z.string(), flowId: z.string() }),
  'flow_run.step_recorded': z.object({
    runId: z.string(),
    flowId: z.string(),
    seq: z.number().int(),
    nodeId: z.string(),
    operation: z.string(),
    status: z.enum(STEP_STATUSES),
    output: z.unknown(),
    error: z.string().nullable(),
    durationMs: z.number(),
    attempts: z.number().int(),
    startedAt: z.string(),
  }),
  'flow_run.finished': z.object({ runId: z.string(), flowId: z.string(), status: z.enum(['succeeded', 'failed']), error: z.string().nullable() }),
};
export type FlowRunEvent = EventOf<typeof flowRunEventSchemas>;

export const flowsEventSchemas = { ...flowEventSchemas, ...flowRunEventSchemas };
