// The erasure area's commands (the command registry, docs/architecture.md; docs/privacy.md): request,
// confirm (dual control) and execute. Each leads to erasing personal data: each is dangerous.
import { z } from 'zod';
import { COLLECTION_NAME_PATTERN } from '../../../domain/content/schemaModel.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { confirmErasure, executeErasure, requestErasure } from './erasureHandlers.ts';

export const requestErasureBody = z
  .object({
    collection: z.string().regex(COLLECTION_NAME_PATTERN, 'a collection name'),
    filter: z.record(z.string(), z.unknown()),
    reason: z.string().trim().min(1).max(2000),
  })
  .strict();
const byId = z.object({ id: z.string() });

const request = defineCommand({
  name: 'erasure.request',
  description: 'Ask for the erasure of the items of a collection that match a filter, with a reason (another administrator confirms it).',
  input: requestErasureBody,
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, principal, input, metadata }) => requestErasure(context, siteId, principal, input, metadata),
});

const confirm = defineCommand({
  name: 'erasure.confirm',
  description: 'Confirm an erasure requested by another administrator (dual control).',
  input: byId,
  // A second person: an API key can be made for any user by any administrator, it speaks for no one.
  access: 'personAdmin',
  dangerous: true,
  handler: (context, { siteId, principal, input, metadata }) => confirmErasure(context, siteId, principal, uuidOr404(input.id, 'Erasure'), metadata),
});

const execute = defineCommand({
  name: 'erasure.execute',
  description: 'Execute a confirmed erasure: the matching records are purged and a signed receipt kept.',
  input: byId,
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => executeErasure(context, siteId, uuidOr404(input.id, 'Erasure'), metadata),
});

export const erasureCommands = { request, confirm, execute };
