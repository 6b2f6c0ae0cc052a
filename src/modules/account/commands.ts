// The account area's commands (the command registry, docs/architecture.md): the signed-in user's
// password change, session revocation (one, or all) and preferences. A role-bound API key has no
// user behind it: 403.
import { z } from 'zod';
import { userPrincipal } from '../../auth/principal.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { passwordSchema } from '../auth/schemas.ts';
import { changePassword, revokeAllSessions, revokeSession, updatePreferences } from './handlers.ts';

export const SAVE_ACTIONS = ['stay', 'return', 'create_new'] as const;

export const changePasswordBody = z.object({ currentPassword: z.string().min(1).max(512), newPassword: passwordSchema });

export const preferencesBody = z
  .object({ saveAction: z.enum(SAVE_ACTIONS).nullable().optional() })
  .catchall(z.json())
  .refine((value) => Object.keys(value).length <= 100, { message: 'at most 100 preferences' });

const changePasswordCommand = defineCommand({
  name: 'account.changePassword',
  description: "Change the signed-in user's password (the current one is verified); every session of the user is revoked.",
  input: changePasswordBody,
  access: 'user',
  dangerous: true,
  handler: (context, { siteId, principal, input, metadata }) => changePassword(context, siteId, userPrincipal(principal).userId, input, metadata),
});

const revokeSessionCommand = defineCommand({
  name: 'account.revokeSession',
  description: 'Revoke one of the signed-in user\'s active sessions.',
  input: z.object({ id: z.string() }),
  access: 'user',
  dangerous: true,
  handler: (context, { siteId, principal, input, metadata }) => revokeSession(context, siteId, uuidOr404(input.id, 'Session'), userPrincipal(principal).userId, metadata),
});

const revokeAllSessionsCommand = defineCommand({
  name: 'account.revokeAllSessions',
  description: "Revoke every active session of the signed-in user; the answer is how many.",
  input: z.object({}).strict(),
  access: 'user',
  dangerous: true,
  handler: (context, { siteId, principal, metadata }) => revokeAllSessions(context, siteId, userPrincipal(principal).userId, metadata),
});

const updatePreferencesCommand = defineCommand({
  name: 'account.updatePreferences',
  description: "Merge preferences into the signed-in user's (a shallow merge); the answer is all of them.",
  input: preferencesBody,
  access: 'user',
  dangerous: false,
  handler: (context, { siteId, principal, input, metadata }) => updatePreferences(context, siteId, userPrincipal(principal).userId, input, metadata),
});

export const accountCommands = {
  changePassword: changePasswordCommand,
  revokeSession: revokeSessionCommand,
  revokeAllSessions: revokeAllSessionsCommand,
  updatePreferences: updatePreferencesCommand,
};
