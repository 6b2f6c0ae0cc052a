// /agent/constitution (site administrators; docs/agents.md "Constitution"): the active version and the
// draft, every version, the draft's text, compile, a dry run of a proposed call, and activation.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import { commandCaller, pageMeta, pageMetaSchema, pageQuery, SITE_ADMIN } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { constitutionCommands } from './constitutionCommands.ts';
import { dryRunConstitution, findDraft, findVersion, listVersions } from './constitutionQueries.ts';
import { constitutionSchema, draftSchema, dryRunBody, dryRunQuery, dryRunSchema, saveDraftBody, versionSchema } from './constitutionSchemas.ts';

const tags = ['agents'];
const versionParams = z.object({ version: z.string() });

export async function agentConstitutionRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get('/agent/constitution', { config: SITE_ADMIN, schema: { tags, response: { 200: z.object({ data: constitutionSchema }) } } }, async (request) => {
    const { siteId } = request;
    return { data: await context.database.withSiteReads(siteId, async (tx) => ({ active: await findVersion(tx, siteId, 'active'), draft: await findDraft(tx, siteId) })) };
  });
  api.get(
    '/agent/constitution/versions',
    { config: SITE_ADMIN, schema: { tags, querystring: pageQuery, response: { 200: z.object({ data: z.array(versionSchema), meta: pageMetaSchema }) } } },
    async (request) => {
      const { versions, total } = await context.database.withSiteReads(request.siteId, (tx) => listVersions(tx, request.siteId, request.query));
      return { data: versions, meta: pageMeta(total, request.query) };
    },
  );
  api.get(
    '/agent/constitution/versions/:version',
    { config: SITE_ADMIN, schema: { tags, params: versionParams, response: { 200: z.object({ data: versionSchema }) } } },
    async (request) => {
      // A version is a positive integer: anything else names none (404, never a SQL error).
      const number = /^[1-9]\d{0,8}$/.test(request.params.version) ? Number(request.params.version) : null;
      const version = number === null ? null : await context.database.withSiteReads(request.siteId, (tx) => findVersion(tx, request.siteId, number));
      if (!version) throw errors.notFound('Constitution version not found');
      return { data: version };
    },
  );
  api.put(
    '/agent/constitution/draft',
    { config: SITE_ADMIN, schema: { tags, body: saveDraftBody, response: { 200: z.object({ data: draftSchema }) } } },
    async (request) => ({ data: await context.commands.runValidated(constitutionCommands.saveDraft, request.body, commandCaller(request)) }),
  );
  api.post('/agent/constitution/compile', { config: SITE_ADMIN, schema: { tags, response: { 200: z.object({ data: draftSchema }) } } }, async (request) => ({
    data: await context.commands.run(constitutionCommands.compile, {}, commandCaller(request)),
  }));
  api.post(
    '/agent/constitution/dry-run',
    { config: SITE_ADMIN, schema: { tags, querystring: dryRunQuery, body: dryRunBody, response: { 200: z.object({ data: dryRunSchema }) } } },
    async (request) => ({ data: await dryRunConstitution(context, request.siteId, request.body, request.query.version) }),
  );
  api.post('/agent/constitution/activate', { config: SITE_ADMIN, schema: { tags, response: { 201: z.object({ data: versionSchema }) } } }, async (request, reply) =>
    reply.status(201).send({ data: await context.commands.run(constitutionCommands.activate, {}, commandCaller(request)) }),
  );
}
