// The trusted issuers area's commands (the command registry, docs/architecture.md): create, update,
// delete. An issuer's tokens sign people in and its mappings give roles: each change is dangerous.
// Input errors are 422, as the issuers routes answer (the spec's rule for issuers).
import { z } from 'zod';
import type { IssuerConfig } from '../../../domain/identity/issuer.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { createIssuer, deleteIssuer, updateIssuer } from './handlers.ts';
import { createIssuerBody, updateIssuerBody } from './schemas.ts';

const create = defineCommand({
  name: 'issuers.create',
  description: 'Trust an external identity provider: its issuer, key set, audience, algorithms, claim and role mappings.',
  input: createIssuerBody,
  access: 'siteAdmin',
  dangerous: true,
  unprocessableInput: true,
  handler: (context, { siteId, input, metadata }) => createIssuer(context, siteId, input as IssuerConfig, metadata),
});

const update = defineCommand({
  name: 'issuers.update',
  description: "Change a trusted issuer's settings (merged with the current ones, then checked whole).",
  input: updateIssuerBody.safeExtend({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  unprocessableInput: true,
  async handler(context, { siteId, input, metadata }) {
    const { id, ...changes } = input;
    return updateIssuer(context, siteId, uuidOr404(id, 'Issuer'), changes as Partial<IssuerConfig>, metadata);
  },
});

const deleteCommand = defineCommand({
  name: 'issuers.delete',
  description: 'Stop trusting an identity provider.',
  input: z.object({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  unprocessableInput: true,
  handler: (context, { siteId, input, metadata }) => deleteIssuer(context, siteId, uuidOr404(input.id, 'Issuer'), metadata),
});

export const issuerCommands = { create, update, delete: deleteCommand };
