// condition: passes or fails the node on a filter over the run's data, so that `success` and `failure`
// edges branch (docs/flows.md "Operations").
import { z } from 'zod';
import { AppError } from '../../../../domain/shared/appError.ts';
import { dynamicValuesOf } from '../../../query/dynamicValues.ts';
import { defineOperation } from '../operation.ts';
import { conditionPasses, resolveConditionFilter } from './conditionFilter.ts';

/** Checked when the flow is saved: an unknown root, operator or misfit value is refused there, not at a run. */
const filterOption = z
  .record(z.string(), z.unknown())
  .superRefine((filter, issues) => {
    try {
      resolveConditionFilter(filter, { now: new Date() }, []);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      issues.addIssue({ code: 'custom', message: error.message, path: error.path });
    }
  })
  .describe(
    'A filter over the run data: keys are $trigger, $last, $steps, $flow, $run or dotted paths into them ("$trigger.item.status"); ' +
      'a root takes _eq, _neq, _null, _nnull, _json_contains, _has_key, _has_any_keys, _has_all_keys; a path also _in, _nin, _lt…_between, _contains, _icontains, _starts_with, _ends_with. ' +
      '_and and _or combine; $CURRENT_USER, $CURRENT_ROLE and $NOW are the acting principal and the time. Not rendered as a template.',
  );

export const conditionOperation = defineOperation({
  key: 'condition',
  description: 'Passes when the filter matches the run data (output { passed: true }); otherwise the node fails, so its failure edges are followed.',
  options: z.object({ filter: filterOption }).strict(),
  sideEffects: false,
  raw: ['filter'],
  async run(options, call) {
    const node = resolveConditionFilter(options.filter, dynamicValuesOf(call.principal), ['options', 'filter']);
    if (!conditionPasses(node, call.data)) throw new AppError('PRECONDITION_FAILED', 'The condition did not pass: the run data does not match the filter');
    return { passed: true };
  },
});
