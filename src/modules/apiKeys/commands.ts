// The API keys area's commands (the command registry, docs/architecture.md): create and revoke. Both
// change who may act on the site: each is dangerous.
import { z } from 'zod';
import { uuidSchema } from '../../../domain/shared/uuid.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { createApiKey, revokeApiKey } from './handlers.ts';

export const createApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    userId: uuidSchema.nullish(),
    roleId: uuidSchema.nullish(),
    /** When the key stops working: an ISO 8601 date-time with its offset, in the future; absent or null, never. */
    expiresAt: z.iso.datetime({ offset: true }).nullish(),
  })
  .strict();

const create = defineCommand({
  name: 'apiKeys.create',
  description: 'Create an API key, bound to the caller unless a user or a role is named, expiring at expiresAt when given; the key is in this answer only.',
  input: createApiKeyBody,
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, principal, input, metadata }) => createApiKey(context, siteId, input, principal, metadata),
});

const revoke = defineCommand({
  name: 'apiKeys.revoke',
  description: 'Revoke an API key.',
  input: z.object({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => revokeApiKey(context, siteId, uuidOr404(input.id, 'API key'), metadata),
});

export const apiKeyCommands = { create, revoke };
