// /editorial (reviews of gated collections): submit, approve, reject, and the list of reviews.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { approveReview, rejectReview, REVIEWER_CAPABILITY, submitReview, type ReviewTarget } from './handlers.ts';
import { listReviews } from './queries.ts';
import { rejectBody, reviewListQuery, reviewParams, reviewSchema, submitBody } from './schemas.ts';

const signedIn = { site: 'required' as const, access: 'bearer' as const };
const reviewer = { ...signedIn, capability: REVIEWER_CAPABILITY };
const answer = { 200: z.object({ data: reviewSchema }) };

export async function editorialRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const targetOf = async (request: {
    siteId: string;
    params: { collection: string; id: string };
    access: () => Promise<ReviewTarget['access']>;
    metadata: ReviewTarget['metadata'];
  }): Promise<ReviewTarget> => ({
    siteId: request.siteId,
    collection: request.params.collection,
    itemId: request.params.id,
    access: await request.access(),
    metadata: request.metadata,
  });

  api.get('/editorial/reviews', { config: reviewer, schema: { tags: ['editorial'], querystring: reviewListQuery } }, async (request) => {
    const { limit, page } = request.query;
    const result = await context.database.withSite(request.siteId, (tx) => listReviews(tx, request.siteId, request.query));
    return { data: result.reviews, meta: { total: result.total, page, pageSize: limit } };
  });

  api.post(
    '/editorial/:collection/:id/submit-review',
    { config: signedIn, schema: { tags: ['editorial'], params: reviewParams, body: submitBody.nullish(), response: answer } },
    async (request) => ({ data: await submitReview(context, await targetOf(request), request.body?.reviewerId ?? null) }),
  );

  api.post(
    '/editorial/:collection/:id/approve',
    { config: reviewer, schema: { tags: ['editorial'], params: reviewParams, response: { 200: z.object({ data: reviewSchema.extend({ itemVersion: z.number() }) }) } } },
    async (request) => {
      const { review, itemVersion } = await approveReview(context, await targetOf(request));
      return { data: { ...review, itemVersion } };
    },
  );

  api.post(
    '/editorial/:collection/:id/reject',
    { config: reviewer, schema: { tags: ['editorial'], params: reviewParams, body: rejectBody, response: answer } },
    async (request) => ({ data: await rejectReview(context, await targetOf(request), request.body.reason) }),
  );
}
