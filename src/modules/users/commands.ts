// The users area's commands (the command registry, docs/architecture.md): create, invite, update
// (profile, role, status, password), delete, revoking a session of the site, and the subscriber role's
// read grants; and impersonation, bound to the access-token issuer the area's runtime holds
// (`impersonationCommands`, registered by the manifest when the runtime starts).
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import { uuidSchema } from '../../../domain/shared/uuid.ts';
import type { AccessTokenIssuer } from '../../auth/accessTokens.ts';
import { userPrincipal } from '../../auth/principal.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { revokeSession } from '../account/handlers.ts';
import { passwordSchema } from '../auth/schemas.ts';
import { createUser, deleteUser, impersonate, inviteUser, updateUser } from './handlers.ts';
import { grantSubscriberAccess, revokeSubscriberAccess } from './subscriberAccess.ts';

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

const COLLECTION_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;
export const grantSubscriberAccessBody = z.object({ collection: z.string().regex(COLLECTION_NAME, 'a collection name: letters, digits, _ and -, at most 64') });
export const subscriberCollectionParams = z.object({ collection: z.string() });

const grantSubscriberAccessCommand = defineCommand({
  name: 'users.grantSubscriberAccess',
  description: "Let the site's subscriber role read a collection; `created` is false when it could already (granting twice changes nothing).",
  input: grantSubscriberAccessBody,
  access: 'siteAdmin',
  // It changes what subscribers may read.
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => grantSubscriberAccess(context, siteId, input.collection, metadata),
});

const revokeSubscriberAccessCommand = defineCommand({
  name: 'users.revokeSubscriberAccess',
  description: "Take back the subscriber role's read access to a collection.",
  input: subscriberCollectionParams,
  access: 'siteAdmin',
  dangerous: true,
  async handler(context, { siteId, input, metadata }) {
    if (!COLLECTION_NAME.test(input.collection)) throw errors.notFound(`Subscribers have no grant on ${input.collection}`);
    await revokeSubscriberAccess(context, siteId, input.collection, metadata);
  },
});

export const userCommands = {
  create,
  invite,
  update,
  delete: deleteCommand,
  revokeSession: revokeSessionCommand,
  grantSubscriberAccess: grantSubscriberAccessCommand,
  revokeSubscriberAccess: revokeSubscriberAccessCommand,
};

/** The commands that need the users runtime's access-token issuer: the manifest registers them when it starts. */
export function impersonationCommands(tokens: AccessTokenIssuer) {
  const impersonateCommand = defineCommand({
    name: 'users.impersonate',
    description:
      "Open a session as another user of the site, for an administrator signed in as themselves: an access token (no refresh token) whose claims name the administrator; the session records the caller's IP and user agent.",
    input: byId,
    access: 'personAdmin',
    // It acts as someone else: access of another person.
    dangerous: true,
    async handler(context, { siteId, principal, input, metadata, client }) {
      const id = uuidOr404(input.id, 'User');
      const administrator = userPrincipal(principal);
      const result = await impersonate(context, tokens, siteId, id, administrator, client, metadata);
      return { token: result.token, expires: result.expires, sessionId: result.sessionId, user: result.user, impersonatorId: administrator.userId };
    },
  });
  return { impersonate: impersonateCommand };
}
