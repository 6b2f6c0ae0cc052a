// Agent governance: agent roles, autonomy and its promotions, the constitution, the kill switch
// (docs/agents.md).
import type { OperationCatalogue } from '../operationEntry.ts';
import { noContent } from './shapes.ts';

export const agentGovernanceOperations: OperationCatalogue = {
  'GET /agent/roles': { summary: 'List agent roles', description: 'In name order, paged.' },
  'POST /agent/roles': {
    summary: 'Create an agent role',
    description:
      'A slug `name` (unique per site: a taken one is 409), `skills` (registered skill names, `<area>.*` or `*`; an unknown one is 400 at `body.skills.N`) and ' +
      '`collections` (names, or `*`).',
    errors: ['CONFLICT'],
  },
  'GET /agent/roles/{name}': { summary: 'One agent role' },
  'PATCH /agent/roles/{name}': { summary: 'Change an agent role', description: '`skills` and `collections` are replaced whole.' },
  'DELETE /agent/roles/{name}': { summary: 'Delete an agent role', description: 'Its autonomy level goes with it.', response: noContent('The role is deleted.') },
  'GET /agent/autonomy': { summary: 'Each agent role’s autonomy level', description: 'Any authenticated principal of the site; a role never set is at `read`.' },
  'PUT /agent/autonomy/{role}': { summary: 'Set an agent role’s autonomy level', description: '`read`, `stage` or `act`.' },
  'POST /agent/autonomy/promotions': {
    summary: 'Ask to raise an agent role’s level',
    description: 'Any authenticated principal of the site, an agent’s API key included. A level at or below the current one is 409.',
    errors: ['CONFLICT'],
  },
  'GET /agent/autonomy/promotions': { summary: 'List promotion requests', description: 'Newest first; filter with `?status=pending|approved|rejected`.' },
  'GET /agent/autonomy/promotions/{id}': { summary: 'One promotion request' },
  'POST /agent/autonomy/promotions/{id}/decide': {
    summary: 'Approve or reject a promotion request',
    description: 'A person administering the site (not an API key). Decided once: a second decision is 409. An approval sets the level.',
    errors: ['CONFLICT'],
  },
  'GET /agent/constitution': { summary: 'The active constitution version and the draft' },
  'GET /agent/constitution/versions': { summary: 'Every activated constitution version', description: 'Newest first, paged.' },
  'GET /agent/constitution/versions/{version}': { summary: 'One constitution version' },
  'PUT /agent/constitution/draft': { summary: 'Save the constitution’s draft text', description: 'At most 200 lines and 20,000 characters.' },
  'POST /agent/constitution/compile': {
    summary: 'Compile the draft into rules',
    description: 'A line that does not compile is 400 `VALIDATION_FAILED` at `draft.text.<line>` with `extensions.line`; no draft is 409.',
    errors: ['CONFLICT'],
  },
  'POST /agent/constitution/dry-run': {
    summary: 'Check a proposed skill call against the constitution',
    description: 'Against the draft (default), `?version=active` or a version’s number: the decision, the first matching rule and the autonomy cap. Records nothing.',
  },
  'POST /agent/constitution/activate': {
    summary: 'Activate the compiled draft as the next version',
    description: 'An uncompiled draft (or none, or one already active) is 409.',
    errors: ['CONFLICT'],
  },
  'GET /agent/kill-switch': { summary: 'The active freezes' },
  'POST /agent/kill-switch': {
    summary: 'Freeze agents',
    description: 'Scope `run`, `intent`, `role` (each with a `target`) or `site`. Matching skill calls are refused with 423 AGENT_FROZEN until lifted; a critical notification goes to every session of the site.',
  },
  'POST /agent/kill-switch/lift': { summary: 'Lift a freeze', description: 'Once: a lifted freeze is 409; an unknown id is 404.', errors: ['CONFLICT', 'NOT_FOUND'] },
};
