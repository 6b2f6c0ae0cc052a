// /api-keys (site admin): create (the key is in this one response only; bound to the caller unless
// userId or roleId says otherwise), list, revoke.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { uuidSchema } from '../../../domain/shared/uuid.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { createApiKey, revokeApiKey } from './handlers.ts';
import { listApiKeys } from './queries.ts';
import { SITE_ADMIN, uuidOr404 } from '../../server/routeKit.ts';

const apiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  userId: z.string().nullable(),
  roleId: z.string().nullable(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});

export async function apiKeysRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/api-keys',
    {
      config: SITE_ADMIN,
      schema: {
        tags: ['api-keys'],
        body: z.object({ name: z.string().trim().min(1).max(200), userId: uuidSchema.nullish(), roleId: uuidSchema.nullish() }).strict(),
        response: { 201: z.object({ data: apiKeySchema.extend({ key: z.string() }) }) },
      },
    },
    async (request, reply) => reply.status(201).send({ data: await createApiKey(context, request.siteId, request.body, request.principal, request.metadata) }),
  );

  api.get('/api-keys', { config: SITE_ADMIN, schema: { tags: ['api-keys'], response: { 200: z.object({ data: z.array(apiKeySchema) }) } } }, async (request) => ({
    data: await context.database.withSite(request.siteId, (tx) => listApiKeys(tx, request.siteId)),
  }));

  api.delete('/api-keys/:id', { config: SITE_ADMIN, schema: { tags: ['api-keys'], params: z.object({ id: z.string() }) } }, async (request, reply) => {
    await revokeApiKey(context, request.siteId, uuidOr404(request.params.id, 'API key'), request.metadata);
    return reply.status(204).send();
  });
}
