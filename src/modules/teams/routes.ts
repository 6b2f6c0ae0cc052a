// /teams (site admin): team CRUD with members.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { createTeamBody, teamCommands, updateTeamBody } from './commands.ts';
import { findTeam, listTeams } from './queries.ts';
import { teamSchema } from './schemas.ts';
import { commandCaller, pageMeta, pageQuery, SITE_ADMIN, uuidOr404 } from '../../server/routeKit.ts';

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
      schema: { tags: ['teams'], body: createTeamBody, response: { 201: z.object({ data: teamSchema }) } },
    },
    async (request, reply) => reply.status(201).send({ data: await context.commands.runValidated(teamCommands.create, request.body, commandCaller(request)) }),
  );

  api.get('/teams/:id', { config: SITE_ADMIN, schema: { tags: ['teams'], params: idParams } }, async (request) => {
    const id = uuidOr404(request.params.id, 'Team');
    const team = await context.database.withSite(request.siteId, (tx) => findTeam(tx, request.siteId, id));
    if (!team) throw errors.notFound('Team not found');
    return { data: team };
  });

  api.patch(
    '/teams/:id',
    { config: SITE_ADMIN, schema: { tags: ['teams'], params: idParams, body: updateTeamBody, response: { 200: z.object({ data: teamSchema }) } } },
    async (request) => ({
      data: await context.commands.runValidated(teamCommands.update, { ...request.body, id: request.params.id }, commandCaller(request)),
    }),
  );

  api.delete('/teams/:id', { config: SITE_ADMIN, schema: { tags: ['teams'], params: idParams } }, async (request, reply) => {
    await context.commands.runValidated(teamCommands.delete, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });
}
