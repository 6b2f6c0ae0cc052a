// trigger_flow: queues a run of another flow of the site, one level deeper in the run chain, so the
// loop guard (SVC_FLOW_MAX_CHAIN) bounds flows that start each other.
import { z } from 'zod';
import { AppError } from '../../../../domain/shared/appError.ts';
import { defineOperation } from '../operation.ts';

export const triggerFlowOperation = defineOperation({
  key: 'trigger_flow',
  description: 'Queues a run of another flow of the site with `input` as its $trigger (default null); outputs { runId }. Fails when the run chain is at its depth limit.',
  options: z
    .object({
      flowId: z.string().min(1).max(200).describe('The flow to run (a template may name it).'),
      input: z.unknown().optional().describe('The input of the run: any JSON; "{{ $last }}" passes the last output.'),
    })
    .strict(),
  sideEffects: true,
  async run(options, call) {
    const started = await call.startFlow(options.flowId, options.input ?? null);
    if (!started) {
      throw new AppError('CONFLICT', `The flow was not started: this run is at the depth limit of the run chain (depth ${call.depth}, SVC_FLOW_MAX_CHAIN)`);
    }
    return { runId: started.runId };
  },
});
