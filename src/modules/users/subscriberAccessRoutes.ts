// /users/subscriber-access (site admin): grant, list and revoke the subscriber role's read access
// to collections.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { listSubscriberGrants } from './queries.ts';
import { grantSubscriberAccess, revokeSubscriberAccess } from './subscriberAccess.ts';
import { SITE_ADMIN } from '../../server/routeKit.ts';

const COLLECTION_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;
const grantSchema = z.object({ collection: z.string(), grantedBy: z.string().nullable(), grantedAt: z.string() });

export async function subscriberAccessRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/users/subscriber-access',
    { config: SITE_ADMIN, schema: { tags: ['users'], response: { 200: z.object({ data: z.array(grantSchema) }) } } },
    async (request) => ({ data: await context.database.withSite(request.siteId, (tx) => listSubscriberGrants(tx, request.siteId)) }),
  );

  api.post(
    '/users/subscriber-access',
    {
      config: SITE_ADMIN,
      schema: {
        tags: ['users'],
        body: z.object({ collection: z.string().regex(COLLECTION_NAME, 'a collection name: letters, digits, _ and -, at most 64') }),
        response: { 200: z.object({ data: grantSchema }), 201: z.object({ data: grantSchema }) },
      },
    },
    async (request, reply) => {
      const { grant, created } = await grantSubscriberAccess(context, request.siteId, request.body.collection, request.metadata);
      return reply.status(created ? 201 : 200).send({ data: grant });
    },
  );

  api.delete(
    '/users/subscriber-access/:collection',
    { config: SITE_ADMIN, schema: { tags: ['users'], params: z.object({ collection: z.string() }) } },
    async (request, reply) => {
      if (!COLLECTION_NAME.test(request.params.collection)) throw errors.notFound(`Subscribers have no grant on ${request.params.collection}`);
      await revokeSubscriberAccess(context, request.siteId, request.params.collection, request.metadata);
      return reply.status(204).send();
    },
  );
}
