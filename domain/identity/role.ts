// A role of one site. The administrator role created with the site may do everything in that site.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';

export type RoleEvent = {
  type: 'role.created';
  data: { roleId: string; name: string; admin: boolean; parentId: string | null; systemKey: string | null };
};

export type RoleCommand = { type: 'createRole'; roleId: string; name: string; admin: boolean; parentId?: string | null; systemKey?: string | null };

export interface RoleState {
  exists: boolean;
}

export const roleDecider: Decider<RoleState, RoleCommand, RoleEvent> = {
  initialState: () => ({ exists: false }),
  evolve(state, event) {
    return event.type === 'role.created' ? { exists: true } : state;
  },
  decide(command, state) {
    if (state.exists) throw new AppError('CONFLICT', 409, 'Role already exists');
    return [
      {
        type: 'role.created',
        data: { roleId: command.roleId, name: command.name, admin: command.admin, parentId: command.parentId ?? null, systemKey: command.systemKey ?? null },
      },
    ];
  },
};
