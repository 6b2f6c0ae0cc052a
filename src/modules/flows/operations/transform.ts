// transform: a JSONata expression over the run data; its value is the node's output. Bounded in time
// (1 s), nesting and sequence length (infra/templates/jsonata.ts).
import { z } from 'zod';
import { AppError } from '../../../../domain/shared/appError.ts';
import { compileJsonata, evaluateJsonata, MAX_EXPRESSION_LENGTH } from '../../../../infra/templates/jsonata.ts';
import { defineOperation } from '../operation.ts';

/** Parsed when the flow is saved: a syntax error is refused there. */
const expressionOption = z
  .string()
  .min(1)
  .max(MAX_EXPRESSION_LENGTH)
  .superRefine((expression, issues) => {
    try {
      compileJsonata(expression, []);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      issues.addIssue({ code: 'custom', message: error.message, params: error.extensions });
    }
  })
  .describe('A JSONata expression. The run data is its input and its variables: $trigger, $last, $steps, $flow, $run. Not rendered as a template.');

export const transformOperation = defineOperation({
  key: 'transform',
  description: "Evaluates a JSONata expression over the run data; its value (null for nothing) is the output. An error, or more than 1 s, fails the node.",
  options: z.object({ expression: expressionOption }).strict(),
  sideEffects: false,
  raw: ['expression'],
  async run(options, call) {
    return evaluateJsonata(options.expression, { ...call.data }, ['options', 'expression']);
  },
});
