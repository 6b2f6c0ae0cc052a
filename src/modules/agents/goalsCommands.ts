// The goals' commands (the command registry), bound to the area's runtime: an async goal's run is a
// job of its queue (agentWorkRuntime.ts). Registered by the manifest once the runtime has started.
import { z } from 'zod';
import { userPrincipal } from '../../auth/principal.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { createGoalBody, decomposeBody } from './agentWorkSchemas.ts';
import { createGoal, decomposeGoal, type EnqueueGoalRun } from './goals.ts';

const id = z.string().max(100);

export function goalCommands(runtime: { enqueueGoal: EnqueueGoalRun }) {
  const create = defineCommand({
    name: 'agents.createGoal',
    description: 'Create a goal (steps that are skill calls, or instructions decomposed into them) and run it: sync answers its outcome, async queues it.',
    input: createGoalBody,
    access: 'bearer',
    dangerous: false,
    handler: (context, { siteId, principal, input, metadata }) => createGoal(context, runtime.enqueueGoal, siteId, userPrincipal(principal), input, metadata),
  });

  const decompose = defineCommand({
    name: 'agents.decomposeGoal',
    description: "Decompose a planned goal's instructions into steps (one per line or sentence); with start, run it.",
    input: decomposeBody.safeExtend({ id }),
    access: 'bearer',
    dangerous: false,
    handler: (context, { siteId, principal, input, metadata }) =>
      decomposeGoal(context, runtime.enqueueGoal, siteId, userPrincipal(principal), input.id, input.start ?? false, metadata),
  });

  return { create, decompose };
}
