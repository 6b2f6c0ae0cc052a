// The team decider, given events / when command / then events: the unit test an area copies.
import { describe, it } from 'vitest';
import { teamDecider } from '../../../domain/identity/team.ts';
import { deciderSpecification } from '../deciderSpecification.ts';

const spec = deciderSpecification(teamDecider);
const teamId = '0190d6a0-0000-7000-8000-000000000001';
const alice = '0190d6a0-0000-7000-8000-00000000000a';
const bob = '0190d6a0-0000-7000-8000-00000000000b';
const created = { type: 'team.created', data: { teamId, name: 'Editors', description: null, members: [alice] } };

describe('team decider', () => {
  it('creates a team once, with each member listed once', () => {
    spec
      .given([])
      .when({ type: 'createTeam', teamId, name: 'Editors', members: [alice, alice, bob] })
      .then([{ type: 'team.created', data: { teamId, name: 'Editors', description: null, members: [alice, bob] } }]);
    spec.given([created]).when({ type: 'createTeam', teamId, name: 'Again' }).thenThrows('CONFLICT', 409);
  });

  it('records only the changes a patch names, and nothing for an empty one', () => {
    spec
      .given([created])
      .when({ type: 'updateTeam', changes: { description: 'Desk', members: [bob, bob] } })
      .then([{ type: 'team.updated', data: { teamId, changes: { description: 'Desk', members: [bob] } } }]);
    spec.given([created]).when({ type: 'updateTeam', changes: {} }).thenNothing();
  });

  it('refuses to change or delete a team that does not exist or was deleted', () => {
    const deleted = { type: 'team.deleted' as const, data: { teamId } };
    spec.given([]).when({ type: 'updateTeam', changes: { name: 'X' } }).thenThrows('NOT_FOUND', 404);
    spec.given([created, deleted]).when({ type: 'deleteTeam' }).thenThrows('NOT_FOUND', 404);
    spec.given([created]).when({ type: 'deleteTeam' }).then([deleted]);
  });
});
