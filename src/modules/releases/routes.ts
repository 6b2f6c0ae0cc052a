// /releases (site admin): release CRUD with its items, publish and revert (the scheduler publishes
// due releases: scheduledReleases.ts). Input errors of the body are 422 VALIDATION_FAILED (the spec's
// rule for releases).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { commandCaller, pageMeta, SITE_ADMIN, unprocessableOnInvalidBody, uuidOr404 } from '../../server/routeKit.ts';
import { releaseCommands } from './commands.ts';
import { findRelease, listReleases } from './queries.ts';
import {
  createReleaseBody,
  listReleasesQuery,
  publishAnswer,
  publishReleaseBody,
  releaseSchema,
  revertAnswer,
  revertReleaseBody,
  updateReleaseBody,
} from './schemas.ts';

/** Publishing and reverting: site administrators, or holders of the capability, each item held to their update rules. */
const publisher = { site: 'required' as const, access: 'bearer' as const, capability: 'releases:publish' };
const idParams = z.object({ id: z.string() });

export async function releasesRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/releases',
    { config: SITE_ADMIN, schema: { tags: ['releases'], querystring: listReleasesQuery } },
    async (request) => {
      const result = await context.database.withSite(request.siteId, (tx) => listReleases(tx, request.siteId, request.query));
      return { data: result.releases, meta: pageMeta(result.total, request.query) };
    },
  );

  api.post(
    '/releases',
    {
      config: SITE_ADMIN,
      errorHandler: unprocessableOnInvalidBody,
      schema: { tags: ['releases'], body: createReleaseBody, response: { 201: z.object({ data: releaseSchema }) } },
    },
    async (request, reply) => reply.status(201).send({ data: await context.commands.runValidated(releaseCommands.create, request.body, commandCaller(request)) }),
  );

  api.get('/releases/:id', { config: SITE_ADMIN, schema: { tags: ['releases'], params: idParams } }, async (request) => {
    const id = uuidOr404(request.params.id, 'Release');
    const release = await context.database.withSite(request.siteId, (tx) => findRelease(tx, request.siteId, id));
    if (!release) throw errors.notFound('Release not found');
    return { data: release };
  });

  api.patch(
    '/releases/:id',
    {
      config: SITE_ADMIN,
      errorHandler: unprocessableOnInvalidBody,
      schema: { tags: ['releases'], params: idParams, body: updateReleaseBody, response: { 200: z.object({ data: releaseSchema }) } },
    },
    async (request) => ({
      data: await context.commands.runValidated(releaseCommands.update, { ...request.body, id: request.params.id }, commandCaller(request)),
    }),
  );

  api.delete('/releases/:id', { config: SITE_ADMIN, schema: { tags: ['releases'], params: idParams } }, async (request, reply) => {
    await context.commands.runValidated(releaseCommands.delete, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });

  api.post(
    '/releases/:id/publish',
    {
      config: publisher,
      errorHandler: unprocessableOnInvalidBody,
      schema: { tags: ['releases'], params: idParams, body: publishReleaseBody, response: { 200: publishAnswer } },
    },
    async (request) => {
      return { data: await context.commands.runValidated(releaseCommands.publish, { id: request.params.id }, commandCaller(request)) };
    },
  );

  api.post(
    '/releases/:id/revert',
    {
      config: publisher,
      errorHandler: unprocessableOnInvalidBody,
      schema: { tags: ['releases'], params: idParams, body: revertReleaseBody, response: { 200: revertAnswer } },
    },
    async (request) => {
      const input = { id: request.params.id, force: request.body?.force ?? false };
      return { data: await context.commands.runValidated(releaseCommands.revert, input, commandCaller(request)) };
    },
  );
}
