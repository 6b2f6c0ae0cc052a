// The users area's commands (the command registry, docs/architecture.md): create, invite, update
// (profile, role, status, password), delete, and revoking a session of the site.
import { z } from 'zod';
import { uuidSchema } from '../../../domain/shared/uuid.ts';
import { userPrincipal } from '../../auth/principal.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { revokeSession } from '../account/handlers.ts';
import { passwordSchema } from '../auth/schemas.ts';
import { createUser, deleteUser, inviteUser, updateUser } from './handlers.ts';

const nameSchema = z.string().max(200).nullable();

export const createUserBody = z.object({
  email: z.email().max(320),
  password: passwordSchema,
  roleId: uuidSchema.nullish(),
  firstName: nameSchema.optional(),
  lastName: nameSchema.optional(),
});
export const inviteUserBody = z.object({ email: z.email().max(320), roleId: uuidSchema.nullish(), firstName: nameSchema.optional(), lastName: nameSchema.optional() });
export const updateUserBody = z
  .object({
    email: z.email().max(320),
    password: passwordSchema,
    roleId: uuidSchema.nullable(),
    firstName: nameSchema,
    lastName: nameSchema,
    avatar: z.string().max(2048).nullable(),
    status: z.enum(['active', 'suspended']),
  })
  .partial()
  .strict();
const byId = z.object({ id: z.string() });

const create = defineCommand({
  name: 'users.create',
  description: 'Create a user of the site with a password and, optionally, a role.',
  input: createUserBody,
  access: 'siteAdmin',
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => createUser(context, siteId, input, metadata),
});

const invite = defineCommand({
  name: 'users.invite',
  description: 'Invite someone by email (a link to accept); inviting an address still only invited sends a new link.',
  input: inviteUserBody,
  access: 'siteAdmin',
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => inviteUser(context, siteId, input, metadata),
});

const update = defineCommand({
  name: 'users.update',
  description: "Change a user's profile, email, password, role or status (a suspension or a new password ends their sessions).",
  input: updateUserBody.safeExtend({ id: z.string() }),
  access: 'siteAdmin',
  // It changes a user's role and status: their access.
  dangerous: true,
  async handler(context, { siteId, principal, input, metadata }) {
    const { id, ...update } = input;
    return updateUser(context, siteId, uuidOr404(id, 'User'), update, userPrincipal(principal), metadata);
  },
});

const deleteCommand = defineCommand({
  name: 'users.delete',
  description: 'Delete a user (soft: their sessions end, their content keeps its authorship).',
  input: byId,
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, principal, input, metadata }) => deleteUser(context, siteId, uuidOr404(input.id, 'User'), userPrincipal(principal), metadata),
});

const revokeSessionCommand = defineCommand({
  name: 'users.revokeSession',
  description: 'End any session of the site.',
  input: byId,
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => revokeSession(context, siteId, uuidOr404(input.id, 'Session'), null, metadata),
});

export const userCommands = { create, invite, update, delete: deleteCommand, revokeSession: revokeSessionCommand };
