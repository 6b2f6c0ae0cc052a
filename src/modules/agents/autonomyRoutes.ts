// /agent/autonomy (docs/agents.md "Autonomy"): each agent role's level, set by administrators, and
// the requests to raise one: filed by anyone of the site, decided by a person administering it.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import { commandCaller, pageMeta, pageMetaSchema, pageQuery, uuidOr404 } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { autonomyCommands } from './autonomyCommands.ts';
import { findPromotion, listAutonomy, listPromotions } from './autonomyQueries.ts';
import { autonomySchema, decidePromotionBody, PROMOTION_STATUSES, promotionSchema, requestPromotionBody, setAutonomyBody } from './autonomySchemas.ts';

const tags = ['agents'];
const MEMBER = { site: 'required', access: 'bearer' } as const;
const PERSON_ADMIN = { site: 'required', access: 'personAdmin' } as const;
const roleParams = z.object({ role: z.string() });
const idParams = z.object({ id: z.string() });

export async function agentAutonomyRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/agent/autonomy',
    { config: MEMBER, schema: { tags, querystring: pageQuery, response: { 200: z.object({ data: z.array(autonomySchema), meta: pageMetaSchema }) } } },
    async (request) => {
      const { levels, total } = await context.database.withSiteReads(request.siteId, (tx) => listAutonomy(tx, request.siteId, request.query));
      return { data: levels, meta: pageMeta(total, request.query) };
    },
  );
  api.put(
    '/agent/autonomy/:role',
    { config: PERSON_ADMIN, schema: { tags, params: roleParams, body: setAutonomyBody, response: { 200: z.object({ data: autonomySchema }) } } },
    async (request) => ({
      data: await context.commands.runValidated(autonomyCommands.setAutonomy, { ...request.body, role: request.params.role }, commandCaller(request)),
    }),
  );

  api.post(
    '/agent/autonomy/promotions',
    { config: MEMBER, schema: { tags, body: requestPromotionBody, response: { 201: z.object({ data: promotionSchema }) } } },
    async (request, reply) => reply.status(201).send({ data: await context.commands.runValidated(autonomyCommands.requestPromotion, request.body, commandCaller(request)) }),
  );
  api.get(
    '/agent/autonomy/promotions',
    {
      config: MEMBER,
      schema: {
        tags,
        querystring: pageQuery.extend({ status: z.enum(PROMOTION_STATUSES).optional() }),
        response: { 200: z.object({ data: z.array(promotionSchema), meta: pageMetaSchema }) },
      },
    },
    async (request) => {
      const { promotions, total } = await context.database.withSiteReads(request.siteId, (tx) => listPromotions(tx, request.siteId, request.query));
      return { data: promotions, meta: pageMeta(total, request.query) };
    },
  );
  api.get(
    '/agent/autonomy/promotions/:id',
    { config: MEMBER, schema: { tags, params: idParams, response: { 200: z.object({ data: promotionSchema }) } } },
    async (request) => {
      const promotionId = uuidOr404(request.params.id, 'Promotion request');
      const promotion = await context.database.withSiteReads(request.siteId, (tx) => findPromotion(tx, request.siteId, promotionId));
      if (!promotion) throw errors.notFound('Promotion request not found');
      return { data: promotion };
    },
  );
  api.post(
    '/agent/autonomy/promotions/:id/decide',
    { config: PERSON_ADMIN, schema: { tags, params: idParams, body: decidePromotionBody, response: { 200: z.object({ data: promotionSchema }) } } },
    async (request) => ({
      data: await context.commands.runValidated(autonomyCommands.decidePromotion, { ...request.body, id: request.params.id }, commandCaller(request)),
    }),
  );
}
