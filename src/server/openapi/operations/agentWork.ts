// The agents' work: intents, goals, staged actions, incidents (docs/agent-goals.md).
import type { OperationCatalogue } from '../operationEntry.ts';

export const agentWorkOperations: OperationCatalogue = {
  'GET /agent/intents': { summary: 'List intents', description: 'Newest first, paged; filter with `?status=open|closed`. Any authenticated principal of the site.' },
  'POST /agent/intents': {
    summary: 'Create an intent',
    description: '`{ title, description?, role? }`: what a group of goals is for, and the agent role serving it (an unknown role is 400 at `body.role`).',
  },
  'GET /agent/intents/{id}': { summary: 'One intent' },
  'PATCH /agent/intents/{id}': { summary: 'Change an intent', description: 'Its creator or a site administrator (else 403); a closed intent is 409.', errors: ['CONFLICT'] },
  'POST /agent/intents/{id}/close': {
    summary: 'Close an intent',
    description: 'Once (again is 409); a closed intent takes no new goal. Its creator or a site administrator.',
    errors: ['CONFLICT'],
  },
  'GET /agent/goals': { summary: 'List goals', description: 'The caller’s own goals; a site administrator sees all. Newest first; `?status=`, `?intentId=`.' },
  'POST /agent/goals': {
    summary: 'Create and run a goal',
    description:
      '`{ title, instructions?, steps?: [{ skill, input }] (≤ 20), role?, intentId?, execution: sync|async, start? }`. Without steps the instructions are ' +
      'decomposed (one step per line or sentence; a line no skill fits is 400 at `body.instructions`). sync answers 200 with the goal and each step’s ' +
      'outcome, or 202 while a step waits (`code: HITL_REQUIRED` and `approvalId`, or `stagedId` and `runAfter`); async answers 202 `{ id, status: queued, runId }`. ' +
      '`start: false` records it as planned (201).',
    errors: ['CONFLICT'],
  },
  'GET /agent/goals/{id}': { summary: 'One goal', description: 'With its steps, its run’s status and each step’s outcome. Another principal’s goal is 404 unless the caller administers the site.' },
  'POST /agent/goals/{id}/decompose': {
    summary: 'Decompose a planned goal’s instructions into steps',
    description: 'Only a planned goal (else 409), by its creator: 200 with its steps. With `start: true` it then runs, answering as POST /agent/goals does.',
    errors: ['CONFLICT'],
  },
  'POST /agent/goals/{id}/settle': {
    summary: 'Settle a goal',
    description: '`{ outcome: succeeded|failed|abandoned, summary? }`, once (again is 409). A queued run of a settled goal does not run.',
    errors: ['CONFLICT'],
  },
  'GET /agent/staged': { summary: 'List staged actions', description: 'Those acting for the caller; a site administrator sees all. Newest first; `?status=`.' },
  'GET /agent/staged/{id}': { summary: 'One staged action' },
  'POST /agent/staged/{id}/veto': {
    summary: 'Veto a staged action',
    description: 'A person (an API key is 403): the one the action acts for, or a site administrator. Vetoed twice, or after it started, is 409.',
    errors: ['CONFLICT'],
  },
  'GET /agent/incidents': { summary: 'List agent incidents', description: 'Newest first; `?status=open|resolved`, `?role=`.' },
  'GET /agent/incidents/{id}': { summary: 'One agent incident' },
  'POST /agent/incidents': {
    summary: 'Raise an agent incident',
    description: '`{ role, severity: info|warning|critical, title, detail?, intentId? }`, recorded with the role that raised it; a notification tells the site.',
  },
  'POST /agent/incidents/{id}/resolve': { summary: 'Resolve an agent incident', description: 'Site administrators; once (again is 409).', errors: ['CONFLICT'] },
};
