// /users/subscriber-access (site admin): grant, list and revoke the subscriber role's read access
// to collections.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { grantSubscriberAccessBody, subscriberCollectionParams, userCommands } from './commands.ts';
import { listSubscriberGrants } from './queries.ts';
import { commandCaller, SITE_ADMIN } from '../../server/routeKit.ts';

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
        body: grantSubscriberAccessBody,
        response: { 200: z.object({ data: grantSchema }), 201: z.object({ data: grantSchema }) },
      },
    },
    async (request, reply) => {
      const { grant, created } = await context.commands.runValidated(userCommands.grantSubscriberAccess, request.body, commandCaller(request));
      return reply.status(created ? 201 : 200).send({ data: grant });
    },
  );

  api.delete(
    '/users/subscriber-access/:collection',
    { config: SITE_ADMIN, schema: { tags: ['users'], params: subscriberCollectionParams } },
    async (request, reply) => {
      await context.commands.runValidated(userCommands.revokeSubscriberAccess, request.params, commandCaller(request));
      return reply.status(204).send();
    },
  );
}
