// Flows: automation graphs, their webhook tokens, runs and replays (docs/flows.md).
import type { OperationCatalogue } from '../operationEntry.ts';
import { noContent } from './shapes.ts';

const graphRules =
  'An active flow (and a draft being activated) must pass graph validation: GRAPH_UNKNOWN_OPERATION, GRAPH_DANGLING_EDGE, GRAPH_NO_ENTRY, GRAPH_CYCLE ' +
  '(400, with `extensions.nodeId`); a cron that is not five valid fields is CRON_INVALID; an active schedule flow without one is CRON_REQUIRED.';
const graphErrors = ['GRAPH_UNKNOWN_OPERATION', 'GRAPH_DANGLING_EDGE', 'GRAPH_NO_ENTRY', 'GRAPH_CYCLE', 'CRON_INVALID', 'CRON_REQUIRED'] as const;

export const flowOperationsCatalogue: OperationCatalogue = {
  'GET /flows/operations': { summary: 'The registered operations, each with the JSON schema of its options' },
  'GET /flows': { summary: 'List flows', description: 'Newest first; filter with `?status=` and `?trigger=`.' },
  'POST /flows': { summary: 'Create a flow', description: graphRules, errors: [...graphErrors] },
  'GET /flows/{id}': { summary: 'One flow with its graph' },
  'PATCH /flows/{id}': { summary: 'Change a flow', description: `\`graph\` and \`triggerOptions\` are replaced whole. ${graphRules}`, errors: [...graphErrors] },
  'DELETE /flows/{id}': { summary: 'Delete a flow', response: noContent('The flow is deleted.') },
  'POST /flows/{id}/token': { summary: 'Make a new webhook token (answered once)', description: 'Only its hash is kept; it replaces the previous one.' },
  'DELETE /flows/{id}/token': { summary: 'Remove the webhook token', response: noContent('The flow has no token.') },
  'POST /flows/{id}/run': {
    summary: 'Start a manual flow',
    description: 'The body (any JSON) is the run’s input. A flow that is not an active manual flow is 409.',
    errors: ['CONFLICT'],
  },
  'POST /flows/{id}/trigger': {
    summary: 'Start a webhook flow',
    description:
      'No session and no site header: the token goes in `x-flow-token` or as Bearer, compared in constant time. A flow that is not an active webhook flow is 404; ' +
      'no token configured is 401 WEBHOOK_NOT_CONFIGURED; a missing or wrong token is 401 UNAUTHENTICATED. The input is `{ body, headers, query }` without ' +
      'credential headers.',
    errors: ['WEBHOOK_NOT_CONFIGURED', 'UNAUTHENTICATED'],
  },
  'GET /flows/{id}/runs': { summary: 'The run history of a flow', description: 'Newest first; filter with `?status=`.' },
  'GET /flows/{id}/runs/{runId}': { summary: 'One run with its steps’ outputs' },
  'POST /flows/{id}/runs/{runId}/replay': {
    summary: 'Run a flow again with a recorded run’s input',
    description: 'With `dryRun: true`, operations with side effects record what they would do instead of doing it.',
  },
};
