// The roles area's commands (the command registry, docs/architecture.md): create, update, delete.
// Every one changes who may do what: each is dangerous.
import { z } from 'zod';
import { uuidSchema } from '../../../domain/shared/uuid.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { createRole, deleteRole, updateRole } from './handlers.ts';

const roleFields = z.object({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).nullable(),
  admin: z.boolean(),
  parentId: uuidSchema.nullable(),
});
export const createRoleBody = roleFields.partial({ description: true, admin: true, parentId: true }).strict();
export const updateRoleBody = roleFields.partial().strict();

const create = defineCommand({
  name: 'roles.create',
  description: 'Create a role (an administrator role holds every permission).',
  input: createRoleBody,
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => createRole(context, siteId, input, metadata),
});

const update = defineCommand({
  name: 'roles.update',
  description: "Change a role's name, description, administrator flag or parent.",
  input: updateRoleBody.safeExtend({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  async handler(context, { siteId, input, metadata }) {
    const { id, ...changes } = input;
    return updateRole(context, siteId, uuidOr404(id, 'Role'), changes, metadata);
  },
});

const deleteCommand = defineCommand({
  name: 'roles.delete',
  description: 'Delete a role.',
  input: z.object({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => deleteRole(context, siteId, uuidOr404(input.id, 'Role'), metadata),
});

export const roleCommands = { create, update, delete: deleteCommand };
