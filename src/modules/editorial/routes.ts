// /editorial (reviews of gated collections): submit, approve, reject, and the list of reviews.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandCaller } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { editorialCommands } from './commands.ts';
import { REVIEWER_CAPABILITY } from './handlers.ts';
import { listReviews } from './queries.ts';
import { rejectBody, reviewListQuery, reviewParams, reviewSchema, submitBody } from './schemas.ts';

const signedIn = { site: 'required' as const, access: 'bearer' as const };
const reviewer = { ...signedIn, capability: REVIEWER_CAPABILITY };
const answer = { 200: z.object({ data: reviewSchema }) };

export async function editorialRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get('/editorial/reviews', { config: reviewer, schema: { tags: ['editorial'], querystring: reviewListQuery } }, async (request) => {
    const { limit, page } = request.query;
    const result = await context.database.withSite(request.siteId, (tx) => listReviews(tx, request.siteId, request.query));
    return { data: result.reviews, meta: { total: result.total, page, pageSize: limit } };
  });

  api.post(
    '/editorial/:collection/:id/submit-review',
    { config: signedIn, schema: { tags: ['editorial'], params: reviewParams, body: submitBody.nullish(), response: answer } },
    async (request) => ({
      data: await context.commands.runValidated(editorialCommands.submit, { ...request.body, ...request.params }, commandCaller(request)),
    }),
  );

  api.post(
    '/editorial/:collection/:id/approve',
    { config: reviewer, schema: { tags: ['editorial'], params: reviewParams, response: { 200: z.object({ data: reviewSchema.extend({ itemVersion: z.number() }) }) } } },
    async (request) => ({ data: await context.commands.runValidated(editorialCommands.approve, request.params, commandCaller(request)) }),
  );

  api.post(
    '/editorial/:collection/:id/reject',
    { config: reviewer, schema: { tags: ['editorial'], params: reviewParams, body: rejectBody, response: answer } },
    async (request) => ({
      data: await context.commands.runValidated(editorialCommands.reject, { ...request.body, ...request.params }, commandCaller(request)),
    }),
  );
}
