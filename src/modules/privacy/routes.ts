// /me/consents, /me/data-export, /me/restriction, /me/automated-decisions (the signed-in user, never
// an API key) and /retention (site admin). docs/privacy.md says what each holds and stops.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { userPrincipal } from '../../auth/principal.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { buildDataExport } from './dataExport.ts';
import { privacyCommands } from './commands.ts';
import { listAutomatedDecisions, listConsents, readRestriction } from './queries.ts';
import { retentionHorizons } from './retention.ts';
import { automatedDecisionSchema, consentBody, consentSchema, consentTypeParams, restrictionBody, restrictionSchema } from './schemas.ts';
import { commandCaller, pageMeta, pageMetaSchema, pageQuery, SITE_ADMIN } from '../../server/routeKit.ts';

/** The user behind a session or an external token: an API key (user-bound or not) speaks for no one's privacy choices. */
const me = { site: 'required' as const, access: 'person' as const };
const tags = ['privacy'];


export async function privacyRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get('/me/consents', { config: me, schema: { tags, response: { 200: z.object({ data: z.array(consentSchema) }) } } }, async (request) => {
    const user = userPrincipal(request.principal);
    return { data: await context.database.withSiteReads(request.siteId, (tx) => listConsents(tx, request.siteId, user.userId)) };
  });

  api.put(
    '/me/consents/:type',
    { config: me, schema: { tags, params: consentTypeParams, body: consentBody, response: { 200: z.object({ data: consentSchema }) } } },
    async (request) => ({
      data: await context.commands.runValidated(privacyCommands.setConsent, { ...request.body, type: request.params.type }, commandCaller(request)),
    }),
  );

  api.get('/me/restriction', { config: me, schema: { tags, response: { 200: z.object({ data: restrictionSchema }) } } }, async (request) => {
    const user = userPrincipal(request.principal);
    return { data: await context.database.withSiteReads(request.siteId, (tx) => readRestriction(tx, request.siteId, user.userId)) };
  });

  api.put('/me/restriction', { config: me, schema: { tags, body: restrictionBody, response: { 200: z.object({ data: restrictionSchema }) } } }, async (request) => ({
    data: await context.commands.runValidated(privacyCommands.setRestriction, request.body, commandCaller(request)),
  }));

  const decisionsPage = z.object({ data: z.array(automatedDecisionSchema), meta: pageMetaSchema });
  api.get('/me/automated-decisions', { config: me, schema: { tags, querystring: pageQuery, response: { 200: decisionsPage } } }, async (request) => {
    const user = userPrincipal(request.principal);
    const { decisions, total } = await context.database.withSiteReads(request.siteId, (tx) => listAutomatedDecisions(tx, request.siteId, user.userId, request.query));
    return { data: decisions, meta: pageMeta(total, request.query) };
  });

  api.get('/me/data-export', { config: me, schema: { tags } }, async (request, reply) => {
    const user = userPrincipal(request.principal);
    const document = await buildDataExport(context, await request.access(), user, request.metadata);
    return reply.header('content-disposition', `attachment; filename="data-export-${user.userId}.json"`).send(document);
  });

  api.get('/retention', { config: SITE_ADMIN, schema: { tags } }, async () => ({ data: { horizons: retentionHorizons(context) } }));

  api.post('/retention/run', { config: SITE_ADMIN, schema: { tags } }, async (request) => ({
    data: await context.commands.runValidated(privacyCommands.runRetention, {}, commandCaller(request)),
  }));
}
