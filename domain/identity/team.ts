// A team of one site: a named group of users (policies can be attached to it).
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type TeamChanges, type TeamEvent, teamEventSchemas } from './events.ts';

export type { TeamChanges, TeamEvent };

export type TeamCommand =
  | { type: 'createTeam'; teamId: string; name: string; description?: string | null; members?: string[] }
  | { type: 'updateTeam'; changes: TeamChanges }
  | { type: 'deleteTeam' };

export interface TeamState {
  status: 'absent' | 'active' | 'deleted';
  teamId: string | null;
}

const uniqueMembers = (members: string[]) => [...new Set(members)];

export const teamDecider: Decider<TeamState, TeamCommand, TeamEvent> = {
  eventTypes: eventTypesOf(teamEventSchemas),
  initialState: () => ({ status: 'absent', teamId: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'team.created':
        return { status: 'active', teamId: event.data.teamId };
      case 'team.deleted':
        return { ...state, status: 'deleted' };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'createTeam':
        if (state.status !== 'absent') throw new AppError('CONFLICT', 'Team already exists');
        return [
          {
            type: 'team.created',
            data: { teamId: command.teamId, name: command.name, description: command.description ?? null, members: uniqueMembers(command.members ?? []) },
          },
        ];
      case 'updateTeam': {
        if (state.status !== 'active') throw new AppError('NOT_FOUND', 'Team not found');
        const changes: TeamChanges = {};
        if (command.changes.name !== undefined) changes.name = command.changes.name;
        if (command.changes.description !== undefined) changes.description = command.changes.description;
        if (command.changes.members !== undefined) changes.members = uniqueMembers(command.changes.members);
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'team.updated', data: { teamId: state.teamId!, changes } }];
      }
      case 'deleteTeam':
        if (state.status !== 'active') throw new AppError('NOT_FOUND', 'Team not found');
        return [{ type: 'team.deleted', data: { teamId: state.teamId! } }];
    }
  },
};
