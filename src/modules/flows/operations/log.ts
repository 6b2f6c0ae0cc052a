// log: writes a message to the service's log, with the flow and the run, and outputs it.
import { z } from 'zod';
import { defineOperation } from '../operation.ts';

const MAX_MESSAGE_LENGTH = 10_000;

export const logOperation = defineOperation({
  key: 'log',
  description: "Writes the message to the service's log (with the site, flow and run ids) at `level` (default info); outputs { message }.",
  options: z
    .object({
      message: z
        .unknown()
        .refine((message) => message !== undefined, 'is required')
        .describe('What to log: text (a template), or any JSON value ({{ $last }}), written as JSON.'),
      level: z.enum(['debug', 'info', 'warn', 'error']).default('info').describe('The log level.'),
    })
    .strict(),
  sideEffects: false,
  async run(options, call) {
    const text = typeof options.message === 'string' ? options.message : JSON.stringify(options.message ?? null);
    const message = text.length > MAX_MESSAGE_LENGTH ? `${text.slice(0, MAX_MESSAGE_LENGTH)}…` : text;
    call.context.logger[options.level]({ siteId: call.siteId, flowId: call.flow.id, runId: call.runId }, message);
    return { message };
  },
});
