// /teams (site admin): team CRUD with members.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { createTeam, deleteTeam, updateTeam } from './handlers.ts';
import { findTeam, listTeams } from './queries.ts';
import { teamFields, teamSchema } from './schemas.ts';
import { pageMeta, pageQuery, SITE_ADMIN, uuidOr404 } from '../../server/routeKit.ts';

const idParams = z.object({ id: z.string() });

export async function teamsRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/teams',
    {
      config: SITE_ADMIN,
      schema: {
        tags: ['teams'],
        querystring: pageQuery,
      },
    },
    async (request) => {
      const result = await context.database.withSite(request.siteId, (tx) => listTeams(tx, request.siteId, request.query));
      return { data: result.teams, meta: pageMeta(result.total, request.query) };
    },
  );

  api.post(
    '/teams',
    {
      config: SITE_ADMIN,
      schema: { tags: ['teams'], body: teamFields.partial({ description: true, members: true }), response: { 201: z.object({ data: teamSchema }) } },
    },
    async (request, reply) => reply.status(201).send({ data: await createTeam(context, request.siteId, request.body, request.metadata) }),
  );

  api.get('/teams/:id', { config: SITE_ADMIN, schema: { tags: ['teams'], params: idParams } }, async (request) => {
    const id = uuidOr404(request.params.id, 'Team');
    const team = await context.database.withSite(request.siteId, (tx) => findTeam(tx, request.siteId, id));
    if (!team) throw errors.notFound('Team not found');
    return { data: team };
  });

  api.patch(
    '/teams/:id',
    { config: SITE_ADMIN, schema: { tags: ['teams'], params: idParams, body: teamFields.partial().strict(), response: { 200: z.object({ data: teamSchema }) } } },
    async (request) => ({
      data: await updateTeam(context, request.siteId, uuidOr404(request.params.id, 'Team'), request.body, request.metadata),
    }),
  );

  api.delete('/teams/:id', { config: SITE_ADMIN, schema: { tags: ['teams'], params: idParams } }, async (request, reply) => {
    await deleteTeam(context, request.siteId, uuidOr404(request.params.id, 'Team'), request.metadata);
    return reply.status(204).send();
  });
}
