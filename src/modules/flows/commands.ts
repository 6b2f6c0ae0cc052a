// The flows area's commands (the command registry, docs/architecture.md): flows and their webhook
// token; and, bound to the area's runtime (the run queue), starting runs: manual, replay, and the
// webhook trigger (`flows.trigger`, public: the flow's token is its authority).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { clearFlowToken, createFlow, deleteFlow, setFlowToken, tokenMatches, updateFlow } from './flowHandlers.ts';
import type { FlowsRuntime } from './flowsRuntime.ts';
import { findFlow, findRun, findWebhookFlow } from './queries.ts';
import { queueRun } from './runs.ts';
import { createFlowBody, replayBody, updateFlowBody } from './schemas.ts';

const idInput = z.object({ id: z.string() });

const create = defineCommand({
  name: 'flows.create',
  description: 'Create a flow: a trigger (event, schedule, webhook, manual) and a graph of operations; an active one must pass graph validation.',
  input: createFlowBody,
  access: 'siteAdmin',
  // An active flow acts from then on: writes, sends, calls out.
  dangerous: true,
  handler: (context, { siteId, principal, input, metadata }) => createFlow(context, siteId, principal, input, metadata),
});

const update = defineCommand({
  name: 'flows.update',
  description: 'Change a flow (graph and trigger options replaced whole); activating checks its graph and cron.',
  input: updateFlowBody.safeExtend({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  async handler(context, { siteId, input, metadata }) {
    const { id, ...changes } = input;
    return updateFlow(context, siteId, uuidOr404(id, 'Flow'), changes, metadata);
  },
});

const deleteCommand = defineCommand({
  name: 'flows.delete',
  description: 'Delete a flow (its run history goes with it from the API; the log keeps every run).',
  input: idInput,
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => deleteFlow(context, siteId, uuidOr404(input.id, 'Flow'), metadata),
});

const setToken = defineCommand({
  name: 'flows.setToken',
  description: "Make a new webhook token for a flow (answered once; it replaces the old one).",
  input: idInput,
  access: 'siteAdmin',
  // It hands out a credential that starts the flow.
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => setFlowToken(context, siteId, uuidOr404(input.id, 'Flow'), metadata),
});

const clearToken = defineCommand({
  name: 'flows.clearToken',
  description: "Remove a flow's webhook token: its webhook answers 401 WEBHOOK_NOT_CONFIGURED.",
  input: idInput,
  access: 'siteAdmin',
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => clearFlowToken(context, siteId, uuidOr404(input.id, 'Flow'), metadata),
});

export const flowCommands = { create, update, delete: deleteCommand, setToken, clearToken };

export const triggerInput = z
  .object({ id: z.string(), token: z.string().max(500).nullable(), body: z.unknown(), headers: z.record(z.string(), z.string()), query: z.record(z.string(), z.unknown()) })
  .strict();

/** The commands that start runs: the manifest registers them with the runtime's queue. */
export function flowRunCommands(runtime: FlowsRuntime) {
  const run = defineCommand({
    name: 'flows.run',
    description: 'Start a manual flow now with `input` as its input; answers the queued run.',
    input: z.object({ id: z.string(), input: z.unknown().optional() }).strict(),
    access: 'siteAdmin',
    dangerous: true,
    async handler(context, { siteId, input, metadata }) {
      const flowId = uuidOr404(input.id, 'Flow');
      const flow = await context.database.withSite(siteId, (tx) => findFlow(tx, siteId, flowId));
      if (!flow) throw errors.notFound('Flow not found');
      if (flow.trigger !== 'manual' || flow.status !== 'active') {
        throw new AppError('CONFLICT', 'Only an active manual flow is started by hand', { path: ['params', 'id'] });
      }
      return queueRun(context, runtime.enqueue, siteId, { runId: randomUUID(), flowId, trigger: 'manual', input: input.input ?? null, depth: 0 }, metadata);
    },
  });

  const replay = defineCommand({
    name: 'flows.replay',
    description: "Run a flow again with a recorded run's input; with dryRun, operations with side effects only report what they would do.",
    input: replayBody.safeExtend({ id: z.string(), runId: z.string() }),
    access: 'siteAdmin',
    dangerous: true,
    async handler(context, { siteId, input, metadata }) {
      const flowId = uuidOr404(input.id, 'Flow');
      const runId = uuidOr404(input.runId, 'Run');
      const recorded = await context.database.withSite(siteId, (tx) => findRun(tx, siteId, runId));
      if (!recorded || recorded.flowId !== flowId) throw errors.notFound('Run not found');
      return queueRun(
        context,
        runtime.enqueue,
        siteId,
        { runId: randomUUID(), flowId, trigger: 'replay', input: recorded.input, depth: 0, dryRun: input.dryRun ?? false, replayOf: runId },
        metadata,
      );
    },
  });

  const trigger = defineCommand({
    name: 'flows.trigger',
    description: "Start an active webhook flow with { body, headers, query } as its input; the flow's token is the authority.",
    input: triggerInput,
    access: 'public',
    dangerous: false,
    async handler(context, { siteId, input, metadata }) {
      const found = isUuid(input.id) ? await findWebhookFlow(context.database, input.id) : null;
      if (!found || found.siteId !== siteId || found.trigger !== 'webhook' || found.status !== 'active') throw errors.notFound('Flow not found');
      if (found.tokenHash === null) throw new AppError('WEBHOOK_NOT_CONFIGURED', 'This webhook flow has no token: create one with POST /flows/:id/token');
      if (input.token === null || !tokenMatches(found.tokenHash, input.token)) throw errors.unauthenticated('A valid flow token is required (x-flow-token or Bearer)');
      const { body, headers, query } = input;
      return queueRun(context, runtime.enqueue, siteId, { runId: randomUUID(), flowId: input.id, trigger: 'webhook', input: { body, headers, query }, depth: 0 }, metadata);
    },
  });

  return { run, replay, trigger };
}

