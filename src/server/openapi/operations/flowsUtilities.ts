// The expression utilities the flows' options use (docs/flows.md "Utilities"): render a template, test
// a JSONata expression. Their answers' shapes are the routes' own schemas.
import type { OperationCatalogue } from '../operationEntry.ts';

export const flowsUtilityOperations: OperationCatalogue = {
  'POST /utils/render-template': {
    summary: 'Render a template as a flow would',
    description:
      'The flows’ sandboxed LiquidJS engine (no file, no code, no HTML escaping), `data` as its variables: top-level keys may start with `$` ' +
      '(`{{ $trigger.item.title }}`). Bounded like email templates: 200,000 characters of source, 1 s of rendering. A template that does not parse or ' +
      'render (an `include`, a limit reached) is 400 `VALIDATION_FAILED` at `body.template`.',
  },
  'POST /utils/jsonata/test': {
    summary: 'Evaluate a JSONata expression as a flow’s transform would',
    description:
      '`data` is the input; its top-level `$` keys are variables too (`$trigger`). `result` is the value (null for nothing). A bad expression, an evaluation ' +
      'error, more than 1 s, a runaway recursion, a sequence over 100,000 items or a function for a result is 400 `VALIDATION_FAILED` at `body.expression` with ' +
      '`extensions.position` (where in the expression, or null) and `extensions.code` (JSONata’s error code).',
  },
};
