import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { SITE_ID_PATTERN } from '../../../domain/sites/site.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { createSite, deleteSite, listSites } from './handlers.ts';

const siteSchema = z.object({ id: z.string(), name: z.string(), createdAt: z.string() });
const instanceRoute = { config: { access: 'instance' as const } };

export async function instanceRoutes(app: FastifyInstance, { context, sites }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/instance/sites',
    {
      ...instanceRoute,
      schema: {
        tags: ['instance'],
        body: z.object({
          id: z.string().regex(SITE_ID_PATTERN, 'lowercase letters, digits, - and _, 2 to 63 characters'),
          name: z.string().min(1).max(200).optional(),
          adminEmail: z.email(),
          adminPassword: z.string().min(8).max(512),
        }),
        response: { 201: z.object({ data: siteSchema }) },
      },
    },
    async (request, reply) => {
      const site = await createSite(context, request.body, request.metadata);
      sites.forget(site.id);
      return reply.status(201).send({ data: site });
    },
  );

  api.get('/instance/sites', { ...instanceRoute, schema: { tags: ['instance'], response: { 200: z.object({ data: z.array(siteSchema) }) } } }, async () => ({
    data: await listSites(context),
  }));

  api.delete(
    '/instance/sites/:id',
    { ...instanceRoute, schema: { tags: ['instance'], params: z.object({ id: z.string() }) } },
    async (request, reply) => {
      await deleteSite(context, request.params.id, request.metadata);
      sites.forget(request.params.id);
      return reply.status(204).send();
    },
  );
}
