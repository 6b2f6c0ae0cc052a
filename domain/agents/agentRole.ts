// An agent role (stream `<siteId>/agent-role/<name>`): the skills and collections an agent acting
// under it may use (docs/agents.md). Its name is its stream, so a name is unique per site: creating
// a role whose name is taken is 409; a deleted role's name may be used again.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type AgentRoleEvent, agentRoleEventSchemas } from './governanceEvents.ts';

export interface AgentRoleContent {
  description: string | null;
  skills: string[];
  collections: string[];
}

export type AgentRoleCommand =
  | { type: 'createRole'; name: string; role: AgentRoleContent }
  | { type: 'updateRole'; changes: Partial<AgentRoleContent> }
  | { type: 'deleteRole' };

export interface AgentRoleState {
  status: 'absent' | 'present' | 'deleted';
  name: string | null;
  role: AgentRoleContent | null;
}

const CONTENT_KEYS = ['description', 'skills', 'collections'] as const;

export const agentRoleDecider: Decider<AgentRoleState, AgentRoleCommand, AgentRoleEvent> = {
  eventTypes: eventTypesOf(agentRoleEventSchemas),
  initialState: () => ({ status: 'absent', name: null, role: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'agent_role.created':
      case 'agent_role.updated': {
        const { name, description, skills, collections } = event.data;
        return { status: 'present', name, role: { description, skills, collections } };
      }
      case 'agent_role.deleted':
        return { ...state, status: 'deleted', role: null };
    }
  },
  decide(command, state) {
    if (command.type === 'createRole') {
      if (state.status === 'present') throw new AppError('CONFLICT', `An agent role named "${command.name}" exists`, { path: ['body', 'name'] });
      return [{ type: 'agent_role.created', data: { name: command.name, ...command.role } }];
    }
    if (state.status !== 'present') throw new AppError('NOT_FOUND', 'Agent role not found');
    const name = state.name!;
    if (command.type === 'deleteRole') return [{ type: 'agent_role.deleted', data: { name } }];
    const next: AgentRoleContent = { ...state.role!, ...command.changes };
    const changed = CONTENT_KEYS.filter((key) => JSON.stringify(next[key]) !== JSON.stringify(state.role![key]));
    if (changed.length === 0) return [];
    return [{ type: 'agent_role.updated', data: { name, ...next, changed: [...changed] } }];
  },
};
