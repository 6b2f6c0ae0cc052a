// /api-keys (site admin): create (the key is in this one response only; bound to the caller unless
// userId or roleId says otherwise; expiring at expiresAt when given), list, revoke.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { apiKeyCommands, createApiKeyBody } from './commands.ts';
import { listApiKeys } from './queries.ts';
import { commandCaller, SITE_ADMIN } from '../../server/routeKit.ts';

const apiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  userId: z.string().nullable(),
  roleId: z.string().nullable(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
});

export async function apiKeysRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/api-keys',
    {
      config: SITE_ADMIN,
      schema: {
        tags: ['api-keys'],
        body: createApiKeyBody,
        response: { 201: z.object({ data: apiKeySchema.extend({ key: z.string() }) }) },
      },
    },
    async (request, reply) => reply.status(201).send({ data: await context.commands.runValidated(apiKeyCommands.create, request.body, commandCaller(request)) }),
  );

  api.get('/api-keys', { config: SITE_ADMIN, schema: { tags: ['api-keys'], response: { 200: z.object({ data: z.array(apiKeySchema) }) } } }, async (request) => ({
    data: await context.database.withSite(request.siteId, (tx) => listApiKeys(tx, request.siteId)),
  }));

  api.delete('/api-keys/:id', { config: SITE_ADMIN, schema: { tags: ['api-keys'], params: z.object({ id: z.string() }) } }, async (request, reply) => {
    await context.commands.runValidated(apiKeyCommands.revoke, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });
}
