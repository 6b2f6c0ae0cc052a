// /integrations/git (site admin; docs/integrations.md "Git integration"): integrations, their pull
// requests, CI and logs, manifest validation, gitops and provenance; and the two public routes a
// provider calls: the OAuth callback and the webhook receiver. Tokens are never answered; the webhook
// secret only by the create and rotate-secret.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { GIT_PROVIDERS } from '../../../domain/git/events.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { commandCaller, pageMeta, pageMetaSchema, pageQuery, SITE_ADMIN, uuidOr404, validationErrorOnInvalidBody } from '../../server/routeKit.ts';
import { gitCommands } from './commands.ts';
import { authorizeIntegration, BINDING_COOKIE, STATE_TTL_SECONDS } from './oauth.ts';
import { completeOAuth } from './oauthCallback.ts';
import { itemProvenance } from './provenance.ts';
import { ciRunLog, listPullRequests, pullRequestCiRuns } from './pullRequests.ts';
import { findIntegrationOr404, listIntegrations, viewOf } from './queries.ts';
import {
  assertPullNumber,
  assertRunId,
  ciLogSchema,
  ciRunSchema,
  createIntegrationBody,
  gitopsResultSchema,
  gitopsSyncBody,
  integrationSchema,
  integrationWithSecretSchema,
  provenanceEntrySchema,
  provenanceQuery,
  pullRequestSchema,
  updateIntegrationBody,
  validationResultSchema,
} from './schemas.ts';
import { receiveDelivery } from './webhooks.ts';

const tags = ['git'];
const idParams = z.object({ id: z.string() });
const pullParams = z.object({ id: z.string(), number: z.string() });
/** A delivery's body is read up to this size (GitHub caps payloads at 25 MB; pull request and CI events are far smaller). */
const WEBHOOK_BODY_LIMIT = 5 * 1024 * 1024;
/** Deliveries per client IP and rate-limit window: a provider's burst passes, a flood of forged ones does not reach the database. */
const WEBHOOK_RATE_LIMIT = { name: 'gitWebhook', limit: 600, per: 'ip' } as const;

export async function gitRoutes(app: FastifyInstance, { context, sites }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const integration = (siteId: string, id: string) => context.database.withSiteReads(siteId, (tx) => findIntegrationOr404(context, tx, siteId, uuidOr404(id, 'Git integration')));

  api.get(
    '/integrations/git',
    { config: SITE_ADMIN, schema: { tags, querystring: pageQuery, response: { 200: z.object({ data: z.array(integrationSchema), meta: pageMetaSchema }) } } },
    async (request) => {
      const result = await context.database.withSiteReads(request.siteId, (tx) => listIntegrations(tx, request.siteId, context.config.SVC_PUBLIC_URL, request.query));
      return { data: result.integrations, meta: pageMeta(result.total, request.query) };
    },
  );

  api.post(
    '/integrations/git',
    { config: SITE_ADMIN, errorHandler: validationErrorOnInvalidBody, schema: { tags, body: createIntegrationBody, response: { 201: z.object({ data: integrationWithSecretSchema }) } } },
    async (request, reply) => reply.status(201).send({ data: await context.commands.runValidated(gitCommands.create, request.body, commandCaller(request)) }),
  );

  api.get('/integrations/git/:id', { config: SITE_ADMIN, schema: { tags, params: idParams, response: { 200: z.object({ data: integrationSchema }) } } }, async (request) => ({
    data: viewOf(await integration(request.siteId, request.params.id)),
  }));

  api.patch(
    '/integrations/git/:id',
    { config: SITE_ADMIN, errorHandler: validationErrorOnInvalidBody, schema: { tags, params: idParams, body: updateIntegrationBody, response: { 200: z.object({ data: integrationSchema }) } } },
    async (request) => ({ data: await context.commands.runValidated(gitCommands.update, { ...request.body, id: request.params.id }, commandCaller(request)) }),
  );

  api.delete('/integrations/git/:id', { config: SITE_ADMIN, schema: { tags, params: idParams } }, async (request, reply) => {
    await context.commands.runValidated(gitCommands.delete, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });

  api.post(
    '/integrations/git/:id/rotate-secret',
    { config: SITE_ADMIN, schema: { tags, params: idParams, response: { 200: z.object({ data: integrationWithSecretSchema }) } } },
    async (request) => ({ data: await context.commands.runValidated(gitCommands.rotateSecret, { id: request.params.id }, commandCaller(request)) }),
  );

  api.get(
    '/integrations/git/:id/oauth/authorize',
    { config: SITE_ADMIN, schema: { tags, params: idParams, response: { 200: z.object({ data: z.object({ authorizeUrl: z.string() }) }) } } },
    async (request, reply) => {
      const issuedBy = request.principal.kind === 'user' ? request.principal.userId : null;
      const { authorizeUrl, binding } = await authorizeIntegration(context, request.siteId, uuidOr404(request.params.id, 'Git integration'), issuedBy);
      // Lax: the provider's redirect back is a top-level navigation from another site.
      reply.setCookie(BINDING_COOKIE, binding, {
        httpOnly: true,
        secure: context.config.SVC_COOKIE_SECURE || context.config.NODE_ENV === 'production',
        sameSite: 'lax',
        domain: context.config.SVC_COOKIE_DOMAIN,
        path: '/api/v1/integrations/git/oauth',
        maxAge: STATE_TTL_SECONDS,
      });
      return { data: { authorizeUrl } };
    },
  );

  api.get(
    '/integrations/git/:id/pull-requests',
    { config: SITE_ADMIN, schema: { tags, params: idParams, querystring: pageQuery, response: { 200: z.object({ data: z.array(pullRequestSchema), meta: pageMetaSchema }) } } },
    async (request) => {
      const found = await integration(request.siteId, request.params.id);
      const { pulls, total } = await listPullRequests(context, request.siteId, found, request.query);
      return { data: pulls, meta: pageMeta(total, request.query) };
    },
  );

  api.post(
    '/integrations/git/:id/pull-requests/refresh',
    { config: SITE_ADMIN, schema: { tags, params: idParams, response: { 200: z.object({ data: z.object({ fetched: z.number() }) }) } } },
    async (request) => ({ data: await context.commands.runValidated(gitCommands.refresh, { id: request.params.id }, commandCaller(request)) }),
  );

  api.get(
    '/integrations/git/:id/pull-requests/:number/ci',
    { config: SITE_ADMIN, schema: { tags, params: pullParams, response: { 200: z.object({ data: z.array(ciRunSchema) }) } } },
    async (request) => ({
      data: await pullRequestCiRuns(context, request.siteId, uuidOr404(request.params.id, 'Git integration'), assertPullNumber(request.params.number)),
    }),
  );

  api.post(
    '/integrations/git/:id/pull-requests/:number/validate',
    { config: SITE_ADMIN, schema: { tags, params: pullParams, response: { 200: z.object({ data: validationResultSchema }) } } },
    async (request) => ({ data: await context.commands.runValidated(gitCommands.validate, request.params, commandCaller(request)) }),
  );

  api.get(
    '/integrations/git/:id/ci-runs/:runId/logs',
    { config: SITE_ADMIN, schema: { tags, params: z.object({ id: z.string(), runId: z.string() }), response: { 200: z.object({ data: ciLogSchema }) } } },
    async (request) => ({ data: await ciRunLog(context, request.siteId, uuidOr404(request.params.id, 'Git integration'), assertRunId(request.params.runId)) }),
  );

  api.post(
    '/integrations/git/:id/gitops/sync',
    { config: SITE_ADMIN, errorHandler: validationErrorOnInvalidBody, schema: { tags, params: idParams, body: gitopsSyncBody.optional(), response: { 200: z.object({ data: gitopsResultSchema }) } } },
    async (request) => ({ data: await context.commands.runValidated(gitCommands.gitopsSync, { ...request.body, id: request.params.id }, commandCaller(request)) }),
  );

  api.get(
    '/integrations/git/:id/provenance',
    { config: SITE_ADMIN, schema: { tags, params: idParams, querystring: provenanceQuery, response: { 200: z.object({ data: z.array(provenanceEntrySchema) }) } } },
    async (request) => {
      const found = await integration(request.siteId, request.params.id);
      const entries = await context.database.withSiteReads(request.siteId, (tx) => itemProvenance(tx, request.siteId, request.query.collection, request.query.itemId));
      // The integration's own changes and those that name no integration (a CI job's declared commit).
      return { data: entries.filter((entry) => entry.integrationId === null || entry.integrationId === found.id) };
    },
  );

  api.get(
    '/integrations/git/oauth/:provider/callback',
    {
      config: { access: 'public', rateLimit: 'auth' },
      schema: {
        tags,
        params: z.object({ provider: z.enum(GIT_PROVIDERS) }),
        querystring: z.object({ state: z.string().max(200), code: z.string().min(1).max(2000).optional(), error: z.string().max(200).optional() }),
        response: { 200: z.object({ data: z.object({ integrationId: z.string(), authMethod: z.literal('app') }) }) },
      },
    },
    async (request) => ({ data: await completeOAuth(context, request.params.provider, request.query, request.cookies[BINDING_COOKIE], request.id) }),
  );

  // The receiver reads its body as the raw text the signature covers: a parser of its own, in its own scope.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body));
    scope.withTypeProvider<ZodTypeProvider>().post(
      '/integrations/git/webhook/:provider/:siteId/:integrationId',
      {
        config: { access: 'public', rateLimit: WEBHOOK_RATE_LIMIT },
        bodyLimit: WEBHOOK_BODY_LIMIT,
        schema: {
          tags,
          params: z.object({ provider: z.string().max(20), siteId: z.string().max(100), integrationId: z.string().max(100) }),
          response: { 200: z.object({ data: z.object({ deliveryId: z.string(), duplicate: z.boolean(), outcome: z.string() }) }) },
        },
      },
      async (request) => ({
        data: await receiveDelivery(
          context,
          { ...request.params, headers: request.headers, rawBody: typeof request.body === 'string' ? request.body : '' },
          (siteId) => sites.forget(siteId),
        ),
      }),
    );
  });
}
