// Field encryption routes (site administrators; docs/privacy.md): the key list, rotation, rewrap,
// and the envelope mode with its migration.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { batchBody, encryptionCommands, rotateKeyBody, setEnvelopeBody } from './commands.ts';
import { envelopeStatus, listKeys } from './keyAdmin.ts';
import { commandCaller, SITE_ADMIN } from '../../server/routeKit.ts';

const tags = ['privacy'];

export async function encryptionRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get('/admin/encryption/keys', { config: SITE_ADMIN, schema: { tags } }, async (request) => {
    const keys = await listKeys(context, request.siteId);
    return { data: keys, meta: { total: keys.length } };
  });

  api.post('/admin/encryption/keys/rotate', { config: SITE_ADMIN, schema: { tags, body: rotateKeyBody } }, async (request) => ({
    data: await context.commands.runValidated(encryptionCommands.rotateKey, request.body, commandCaller(request)),
  }));

  api.post('/admin/encryption/keys/rewrap', { config: SITE_ADMIN, schema: { tags, body: batchBody } }, async (request) => ({
    data: await context.commands.runValidated(encryptionCommands.rewrap, request.body, commandCaller(request)),
  }));

  api.get('/admin/encryption/envelope', { config: SITE_ADMIN, schema: { tags } }, async (request) => ({
    data: await envelopeStatus(context, request.siteId),
  }));

  api.post('/admin/encryption/envelope', { config: { site: 'required', access: 'personAdmin' }, schema: { tags, body: setEnvelopeBody } }, async (request) => ({
    data: await context.commands.runValidated(encryptionCommands.setEnvelope, request.body, commandCaller(request)),
  }));

  api.post('/admin/encryption/envelope/migrate', { config: SITE_ADMIN, schema: { tags, body: batchBody } }, async (request) => ({
    data: await context.commands.runValidated(encryptionCommands.migrateEnvelope, request.body, commandCaller(request)),
  }));
}
