// A role of one site. The administrator role created with the site may do everything in that site.
// A role may name a parent whose policies it inherits (domain/access); the admin flag is not inherited.
// Ids of other roles (the new parent's ancestry, who still holds the role) come from the read model in
// the command: the decider stays pure and refuses cycles and deletions of roles still in use.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type RoleChanges, type RoleEvent, roleEventSchemas } from './events.ts';

export type { RoleChanges, RoleEvent };

/** systemKeys the service relies on: the site's administrators, its subscribers, anonymous requests. */
export const ADMIN_ROLE_KEY = 'admin';
export const SUBSCRIBER_ROLE_KEY = 'subscriber';
export const PUBLIC_ROLE_KEY = 'public';

export type RoleCommand =
  | {
      type: 'createRole';
      roleId: string;
      name: string;
      admin: boolean;
      parentId?: string | null;
      systemKey?: string | null;
      description?: string | null;
      /** The new parent and its ancestors, nearest first (from the roles read model). */
      parentAncestry?: readonly string[];
    }
  | { type: 'updateRole'; changes: RoleChanges; parentAncestry?: readonly string[] }
  | { type: 'deleteRole'; holders: { users: number; childRoles: number; apiKeys: number } };

export interface RoleState {
  exists: boolean;
  deleted: boolean;
  roleId: string | null;
  name: string | null;
  description: string | null;
  admin: boolean;
  parentId: string | null;
  systemKey: string | null;
}

function refuseCycle(roleId: string, parentId: string | null | undefined, ancestry: readonly string[] | undefined): void {
  if (!parentId) return;
  if (parentId === roleId || (ancestry ?? []).includes(roleId)) {
    throw new AppError('VALIDATION_FAILED', 'A role cannot inherit from itself or from one of its descendants', { path: ['body', 'parentId'] });
  }
}

function refuseAdminFlag(systemKey: string | null, admin: boolean | undefined): void {
  if (admin === undefined) return;
  if (systemKey === ADMIN_ROLE_KEY && !admin) {
    throw new AppError('VALIDATION_FAILED', "The site's administrator role keeps its admin flag", { path: ['body', 'admin'] });
  }
  if ((systemKey === PUBLIC_ROLE_KEY || systemKey === SUBSCRIBER_ROLE_KEY) && admin) {
    throw new AppError('VALIDATION_FAILED', `The ${systemKey} role cannot be an administrator role`, { path: ['body', 'admin'] });
  }
}

const notFound = () => new AppError('NOT_FOUND', 'Role not found');

export const roleDecider: Decider<RoleState, RoleCommand, RoleEvent> = {
  eventTypes: eventTypesOf(roleEventSchemas),
  initialState: () => ({ exists: false, deleted: false, roleId: null, name: null, description: null, admin: false, parentId: null, systemKey: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'role.created':
        return {
          exists: true,
          deleted: false,
          roleId: event.data.roleId,
          name: event.data.name,
          description: event.data.description ?? null,
          admin: event.data.admin,
          parentId: event.data.parentId,
          systemKey: event.data.systemKey,
        };
      case 'role.updated':
        return { ...state, ...event.data.changes };
      case 'role.deleted':
        return { ...state, deleted: true };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'createRole': {
        if (state.exists) throw new AppError('CONFLICT', 'Role already exists');
        refuseCycle(command.roleId, command.parentId, command.parentAncestry);
        refuseAdminFlag(command.systemKey ?? null, command.admin);
        return [
          {
            type: 'role.created',
            data: {
              roleId: command.roleId,
              name: command.name,
              admin: command.admin,
              parentId: command.parentId ?? null,
              systemKey: command.systemKey ?? null,
              ...(command.description ? { description: command.description } : {}),
            },
          },
        ];
      }
      case 'updateRole': {
        if (!state.exists || state.deleted) throw notFound();
        const { changes } = command;
        refuseCycle(state.roleId!, changes.parentId, command.parentAncestry);
        refuseAdminFlag(state.systemKey, changes.admin);
        const effective: RoleChanges = {};
        if (changes.name !== undefined && changes.name !== state.name) effective.name = changes.name;
        if (changes.description !== undefined && changes.description !== state.description) effective.description = changes.description;
        if (changes.admin !== undefined && changes.admin !== state.admin) effective.admin = changes.admin;
        if (changes.parentId !== undefined && changes.parentId !== state.parentId) effective.parentId = changes.parentId;
        if (Object.keys(effective).length === 0) return [];
        return [{ type: 'role.updated', data: { roleId: state.roleId!, changes: effective } }];
      }
      case 'deleteRole': {
        if (!state.exists || state.deleted) throw notFound();
        if (state.systemKey) throw new AppError('CONFLICT', `The ${state.systemKey} role is a system role and cannot be deleted`);
        const { users, childRoles, apiKeys } = command.holders;
        if (users > 0 || childRoles > 0 || apiKeys > 0) {
          throw new AppError('CONFLICT', 'The role is still in use; reassign its users, child roles and API keys first', {
            extensions: { users, childRoles, apiKeys },
          });
        }
        return [{ type: 'role.deleted', data: { roleId: state.roleId! } }];
      }
    }
  },
};
