// The field encryption area's commands (the command registry; docs/privacy.md): key rotation, rewrap,
// and the envelope mode with its migration. The envelope switch re-verifies the administrator's
// password (step-up), so only a person signed in as themselves may run it.
import { z } from 'zod';
import { userPrincipal } from '../../auth/principal.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { migrateEnvelope, rewrap, rotateKey, setEnvelope } from './keyAdmin.ts';

/** Values resealed per call, unless the body says. */
export const DEFAULT_RESEAL_BATCH = 1000;
export const MAX_RESEAL_BATCH = 10_000;

export const rotateKeyBody = z.object({ keyId: z.string().min(1).max(64) }).strict();

/** A batch of values to reseal: the body may be absent. */
export const batchBody = z
  .object({ limit: z.number().int().min(1).max(MAX_RESEAL_BATCH).default(DEFAULT_RESEAL_BATCH) })
  .strict()
  .nullish()
  .transform((body) => ({ limit: body?.limit ?? DEFAULT_RESEAL_BATCH }));

export const setEnvelopeBody = z.object({ enabled: z.boolean(), password: z.string().min(1).max(1024) }).strict();

const rotate = defineCommand({
  name: 'encryption.rotateKey',
  description: "Make a key of the key ring the site's active key for new sensitive values (the others stay readable).",
  input: rotateKeyBody,
  access: 'siteAdmin',
  // Which key seals the site's personal data: a change to who can open it.
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => rotateKey(context, siteId, input.keyId, metadata),
});

const rewrapCommand = defineCommand({
  name: 'encryption.rewrap',
  description: 'Reseal a batch of sensitive values under the active key; the answer says what remains.',
  input: batchBody,
  access: 'siteAdmin',
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => rewrap(context, siteId, input.limit, metadata),
});

const setEnvelopeCommand = defineCommand({
  name: 'encryption.setEnvelope',
  description: "Turn the envelope mode on or off, after re-verifying the administrator's password.",
  input: setEnvelopeBody,
  access: 'personAdmin',
  dangerous: true,
  handler: (context, { siteId, principal, input, metadata }) => setEnvelope(context, siteId, userPrincipal(principal), input, metadata),
});

const migrate = defineCommand({
  name: 'encryption.migrateEnvelope',
  description: 'Move a batch of sensitive values into (or out of) the envelope mode in force; the answer says what remains.',
  input: batchBody,
  access: 'siteAdmin',
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => migrateEnvelope(context, siteId, input.limit, metadata),
});

export const encryptionCommands = { rotateKey: rotate, rewrap: rewrapCommand, setEnvelope: setEnvelopeCommand, migrateEnvelope: migrate };
