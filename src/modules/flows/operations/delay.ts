// delay: waits, then lets the run go on. A run that times out meanwhile stops here.
import { z } from 'zod';
import { defineOperation } from '../operation.ts';
import { waitFor } from './optionShapes.ts';

export const MAX_DELAY_MS = 30_000;

export const delayOperation = defineOperation({
  key: 'delay',
  description: `Waits \`ms\` milliseconds (0–${MAX_DELAY_MS}); outputs { waitedMs }. The run's timeout still applies and fails the node.`,
  options: z.object({ ms: z.number().int().min(0).max(MAX_DELAY_MS).describe('How long to wait, in milliseconds.') }).strict(),
  sideEffects: false,
  async run(options, call) {
    await waitFor(options.ms, call.signal);
    return { waitedMs: options.ms };
  },
});
