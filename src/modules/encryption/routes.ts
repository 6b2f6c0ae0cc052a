// Field encryption routes (site administrators; docs/privacy.md): the key list, rotation, rewrap,
// and the envelope mode with its migration.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { envelopeStatus, listKeys, migrateEnvelope, rewrap, rotateKey, setEnvelope } from './keyAdmin.ts';
import { userPrincipal } from '../../auth/principal.ts';
import { SITE_ADMIN } from '../../server/routeKit.ts';

const tags = ['privacy'];

/** Values resealed per call, unless the body says. */
export const DEFAULT_RESEAL_BATCH = 1000;
export const MAX_RESEAL_BATCH = 10_000;

const batchBody = z
  .object({ limit: z.number().int().min(1).max(MAX_RESEAL_BATCH).default(DEFAULT_RESEAL_BATCH) })
  .strict()
  .nullish()
  .transform((body) => ({ limit: body?.limit ?? DEFAULT_RESEAL_BATCH }));

export async function encryptionRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get('/admin/encryption/keys', { config: SITE_ADMIN, schema: { tags } }, async (request) => {
    const keys = await listKeys(context, request.siteId);
    return { data: keys, meta: { total: keys.length } };
  });

  api.post(
    '/admin/encryption/keys/rotate',
    { config: SITE_ADMIN, schema: { tags, body: z.object({ keyId: z.string().min(1).max(64) }).strict() } },
    async (request) => ({ data: await rotateKey(context, request.siteId, request.body.keyId, request.metadata) }),
  );

  api.post('/admin/encryption/keys/rewrap', { config: SITE_ADMIN, schema: { tags, body: batchBody } }, async (request) => ({
    data: await rewrap(context, request.siteId, request.body.limit, request.metadata),
  }));

  api.get('/admin/encryption/envelope', { config: SITE_ADMIN, schema: { tags } }, async (request) => ({
    data: await envelopeStatus(context, request.siteId),
  }));

  api.post(
    '/admin/encryption/envelope',
    { config: { site: 'required', access: 'personAdmin' }, schema: { tags, body: z.object({ enabled: z.boolean(), password: z.string().min(1).max(1024) }).strict() } },
    async (request) => ({ data: await setEnvelope(context, request.siteId, userPrincipal(request.principal), request.body, request.metadata) }),
  );

  api.post('/admin/encryption/envelope/migrate', { config: SITE_ADMIN, schema: { tags, body: batchBody } }, async (request) => ({
    data: await migrateEnvelope(context, request.siteId, request.body.limit, request.metadata),
  }));
}
