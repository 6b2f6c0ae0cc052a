// The shapes the flows routes take and answer (docs/flows.md), shared with the area's commands.
import { z } from 'zod';
import { FLOW_ACTIONS, FLOW_STATUSES, FLOW_TRIGGERS, flowRunEventSchemas, RUN_TRIGGERS } from '../../../domain/flows/events.ts';

const MAX_NODES = 100;
const MAX_EDGES = 500;
export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;

const nodeSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 letters, digits, "_" or "-"'),
    operation: z.string().min(1).max(100),
    options: z.record(z.string(), z.unknown()).default({}),
    retries: z.number().int().min(0).max(5).optional(),
  })
  .strict();

export const graphSchema = z
  .object({
    nodes: z.array(nodeSchema).max(MAX_NODES),
    edges: z.array(z.object({ from: z.string().max(64), to: z.string().max(64), when: z.enum(['success', 'failure']).optional() }).strict()).max(MAX_EDGES),
  })
  .strict()
  .superRefine((graph, issues) => {
    const seen = new Set<string>();
    graph.nodes.forEach((node, index) => {
      if (seen.has(node.id)) issues.addIssue({ code: 'custom', message: `The node id "${node.id}" is used twice`, path: ['nodes', index, 'id'] });
      seen.add(node.id);
    });
  });

export const triggerOptionsBody = z
  .object({
    collection: z.string().min(1).max(64).optional(),
    action: z.union([z.enum(FLOW_ACTIONS), z.array(z.enum(FLOW_ACTIONS)).min(1)]).optional(),
    cron: z.string().max(200).optional(),
  })
  .strict();

const flowFields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2_000).nullable(),
  status: z.enum(FLOW_STATUSES),
  trigger: z.enum(FLOW_TRIGGERS),
  triggerOptions: triggerOptionsBody,
  graph: graphSchema,
  actAs: z.object({ roleId: z.string() }).strict().nullable(),
};
export const createFlowBody = z.object(flowFields).partial({ description: true, status: true, triggerOptions: true, graph: true, actAs: true }).strict();
export const updateFlowBody = z.object(flowFields).partial().strict();
export type CreateFlowBody = z.infer<typeof createFlowBody>;
export type UpdateFlowBody = z.infer<typeof updateFlowBody>;

export const replayBody = z.object({ dryRun: z.boolean().optional() }).strict();

export const flowSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  status: z.enum(FLOW_STATUSES),
  trigger: z.enum(FLOW_TRIGGERS),
  triggerOptions: z.record(z.string(), z.unknown()),
  graph: z.object({ nodes: z.array(z.record(z.string(), z.unknown())), edges: z.array(z.record(z.string(), z.unknown())) }),
  actAs: z.object({ roleId: z.string() }).nullable(),
  ownerId: z.string().nullable(),
  hasToken: z.boolean(),
  nextRunAt: z.string().nullable(),
  version: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type FlowView = z.infer<typeof flowSchema>;

export const runStartedSchema = z.object({ runId: z.string(), status: z.enum(RUN_STATUSES), startedAt: z.string() });
export type RunStarted = z.infer<typeof runStartedSchema>;

/** A step as its event records it. */
export const stepSchema = flowRunEventSchemas['flow_run.step_recorded'].omit({ runId: true, flowId: true, seq: true });

export const runSchema = z.object({
  id: z.string(),
  flowId: z.string(),
  status: z.enum(RUN_STATUSES),
  trigger: z.enum(RUN_TRIGGERS),
  input: z.unknown(),
  depth: z.number(),
  dryRun: z.boolean(),
  replayOf: z.string().nullable(),
  startedAt: z.string(),
  executingAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  error: z.string().nullable(),
});
export type RunView = z.infer<typeof runSchema>;
export const runDetailSchema = runSchema.extend({ steps: z.array(stepSchema) });
export type RunDetail = z.infer<typeof runDetailSchema>;

export const operationInfoSchema = z.object({ key: z.string(), description: z.string(), sideEffects: z.boolean(), options: z.record(z.string(), z.unknown()) });
